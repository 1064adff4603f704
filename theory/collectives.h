// Collective communication: nccl-tests' bandwidth conventions, the α–β (latency–bandwidth) cost
// models of the classic algorithms, and the fit of α and β to measured times.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bb::theory {

enum class Collective {
  all_reduce,
  all_gather,
  reduce_scatter,
  broadcast,
  reduce,
  all_to_all,
  send_recv
};
inline constexpr Collective kAllCollectives[] = {Collective::all_reduce,     Collective::all_gather,
                                                 Collective::reduce_scatter, Collective::broadcast,
                                                 Collective::reduce,         Collective::all_to_all,
                                                 Collective::send_recv};
std::string_view collective_name(Collective c);
std::optional<Collective> collective_from_name(std::string_view name);
bool collective_reduces(Collective c);  // takes a reduction operator (sum, max, min)

// The message size n of a measurement, as nccl-tests prints it ("size"): the bytes of the largest
// buffer of one rank: all_reduce, broadcast, reduce: the buffer; all_gather: the gathered output
// (p × the input); reduce_scatter: the input (p × the output); all_to_all: one rank's send buffer;
// send_recv: the bytes one rank sends.
// algbw = n / t;  busbw = algbw × factor.  Source: nccl-tests doc/PERFORMANCE.md.
double bus_bandwidth_factor(Collective c, int ranks);

// How far a collective's busbw may exceed send_recv's 1/β when every copy goes through one capacity
// C shared by all ranks (processes on one node copying through its memory), not a full-duplex link
// per rank (a network, NVLink: factor 1). Counting the bytes all ranks copy for size n (bus factors
// as above): send_recv copies p·n at once, so its 1/β = C/p; all_reduce 2(p−1)n, all_gather,
// reduce_scatter and all_to_all (p−1)n, each with busbw ≤ C/p (factor 1); broadcast and reduce
// copy (p−1)n with bus factor 1, so busbw ≤ C/(p−1): factor p/(p−1) (2 at p = 2).
double shared_capacity_link_factor(Collective c, int ranks);

// The algorithms the α–β models describe.
enum class Algorithm {
  ring,
  binomial_tree,
  rabenseifner,
  scatter_allgather,
  pipeline,
  pairwise,
  direct
};
std::string_view algorithm_name(Algorithm a);
std::optional<Algorithm> algorithm_from_name(std::string_view name);

// t = latency_terms · α + byte_terms · n · β, with n the message size above, α the per-message
// latency (s) and β the inverse link bandwidth (s/byte); the reduction's arithmetic is neglected.
// Thakur, Rabenseifner & Gropp, "Optimization of Collective Communication Operations in MPICH",
// IJHPCA 19(1), 2005 (ring: Patarasuk & Yuan 2009):
//   all_reduce ring          2(p−1)α + 2(p−1)/p·nβ     binomial tree   2⌈log2 p⌉(α + nβ)
//   all_reduce rabenseifner  2⌈log2 p⌉α + 2(p−1)/p·nβ
//   all_gather, reduce_scatter ring   (p−1)α + (p−1)/p·nβ
//   broadcast, reduce  binomial tree  ⌈log2 p⌉(α + nβ); scatter+allgather (⌈log2 p⌉+p−1)α +
//   2(p−1)/p·nβ
//                      pipeline (a chain in many segments, as NCCL's ring) (p−1)α + nβ as n grows
//   all_to_all pairwise               (p−1)α + (p−1)/p·nβ
//   send_recv direct                  α + nβ
struct AlphaBetaTerms {
  double latency_terms = 0;  // multiplies α
  double byte_terms = 0;     // multiplies n·β
};
// Throws std::invalid_argument when the algorithm does not implement the collective or p < 1.
AlphaBetaTerms alpha_beta_terms(Collective c, Algorithm a, int ranks);
// The algorithm whose byte term is the bandwidth-optimal one (ring for all_reduce, all_gather,
// reduce_scatter; pipeline for broadcast and reduce; pairwise; direct): its byte term is the busbw
// factor, so 1/β is the asymptotic busbw, the convention in which all collectives share one link.
Algorithm bandwidth_optimal_algorithm(Collective c);

double alpha_beta_time_s(AlphaBetaTerms terms, double bytes, double alpha_s,
                         double beta_s_per_byte);

// The link work of one collective of size n over p ranks (the limiter analysis, harness/bound.h):
// the bytes one rank puts on the wire, byte_terms × n of the bandwidth-optimal algorithm (= the
// busbw factor × n: all_reduce ring 2(p−1)/p·n, all_gather (p−1)/p·n, broadcast 1·n, …;
// nccl-tests doc/PERFORMANCE.md), and the messages it waits for one after the other, its
// latency_terms (ring all_reduce 2(p−1), send_recv 1). Time ≥ max(wire bytes / busbw capacity,
// messages × α). Zero below p = 2: nothing crosses a link.
struct LinkWork {
  double wire_bytes_per_rank = 0;
  double messages = 0;
};
LinkWork link_work(Collective c, int ranks, double bytes);

// Fit of α and β to measured (n, t), in two steps. (1) Least squares t_i ≈ a + b·n_i with relative
// weights 1/t_i² over every size (times span decades; each point counts by its relative error):
// α = a / latency_terms, the latency the small sizes show, and n½ = a / b, the size at which the
// two costs are equal. (2) Ordinary least squares over the "bandwidth-bound" sizes n ≥ n½: its
// slope gives β = slope / byte_terms (the asymptotic link, as the large sizes show it) and its R²
// = 1 − SS_res/SS_tot says how straight the bandwidth-bound times lie (NaN below 3 such sizes;
// then β comes from step 1). Negative coefficients are clamped to 0 (refit with the other alone).
// Throws std::invalid_argument for fewer than 2 points, sizes all equal, non-positive times, or a
// model without communication (p = 1).
struct AlphaBetaFit {
  double alpha_s = 0;
  double beta_s_per_byte = 0;
  double half_bytes = 0;
  double r2_bandwidth_bound = 0;
  std::size_t points = 0, bandwidth_bound_points = 0;
  double link_bytes_per_s() const { return beta_s_per_byte > 0 ? 1 / beta_s_per_byte : 0; }
};
AlphaBetaFit fit_alpha_beta(AlphaBetaTerms terms, std::span<const double> bytes,
                            std::span<const double> times_s);

}  // namespace bb::theory
