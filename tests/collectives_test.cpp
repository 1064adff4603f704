// The collectives suite without processes: its theory (bus factors, α–β models, the fit, the
// parallelism calculator), its reference (inputs and expected outputs, checked by executing every
// collective on host buffers) and its checks on synthetic measurements.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <vector>

#include "reference/collectives.h"
#include "suites/collectives/collectives_checks.h"
#include "theory/collectives.h"
#include "theory/parallelism.h"

namespace bb {
namespace {

using reference::CollectiveShape;
using reference::DType;
using reference::RedOp;
using theory::Algorithm;
using theory::Collective;

TEST(CollectivesTheory, BusBandwidthFactorsAreNcclTests) {
  EXPECT_DOUBLE_EQ(theory::bus_bandwidth_factor(Collective::all_reduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(theory::bus_bandwidth_factor(Collective::all_gather, 4), 0.75);
  EXPECT_DOUBLE_EQ(theory::bus_bandwidth_factor(Collective::reduce_scatter, 2), 0.5);
  EXPECT_DOUBLE_EQ(theory::bus_bandwidth_factor(Collective::all_to_all, 4), 0.75);
  for (auto c : {Collective::broadcast, Collective::reduce, Collective::send_recv})
    EXPECT_DOUBLE_EQ(theory::bus_bandwidth_factor(c, 16), 1);
  // Other rank counts, odd ones included (nccl-tests, FACTS.md: all_reduce 2(n−1)/n; all_gather,
  // reduce_scatter, all_to_all (n−1)/n; broadcast, reduce, sendrecv 1).
  EXPECT_DOUBLE_EQ(theory::bus_bandwidth_factor(Collective::all_reduce, 2), 1.0);
  EXPECT_DOUBLE_EQ(theory::bus_bandwidth_factor(Collective::all_reduce, 3), 4.0 / 3);
  EXPECT_DOUBLE_EQ(theory::bus_bandwidth_factor(Collective::all_gather, 3), 2.0 / 3);
  EXPECT_DOUBLE_EQ(theory::bus_bandwidth_factor(Collective::all_gather, 8), 0.875);
  EXPECT_DOUBLE_EQ(theory::bus_bandwidth_factor(Collective::reduce_scatter, 5), 0.8);
  EXPECT_DOUBLE_EQ(theory::bus_bandwidth_factor(Collective::all_to_all, 8), 0.875);
  for (auto c : {Collective::broadcast, Collective::reduce, Collective::send_recv})
    EXPECT_DOUBLE_EQ(theory::bus_bandwidth_factor(c, 3), 1);
}

// Bytes all ranks copy for size n over busbw's bytes: send_recv p·n (1/β = C/p); broadcast and
// reduce (p−1)·n with bus factor 1, so busbw may reach C/(p−1) = p/(p−1) × the link; the rest 1.
TEST(CollectivesTheory, SharedCapacityLetsOnlyRootedCollectivesPassTheLink) {
  for (auto c : {Collective::broadcast, Collective::reduce}) {
    EXPECT_DOUBLE_EQ(theory::shared_capacity_link_factor(c, 2), 2);
    EXPECT_DOUBLE_EQ(theory::shared_capacity_link_factor(c, 4), 4.0 / 3);
  }
  for (auto c : {Collective::all_reduce, Collective::all_gather, Collective::reduce_scatter,
                 Collective::all_to_all, Collective::send_recv})
    for (int p : {2, 4, 8}) EXPECT_DOUBLE_EQ(theory::shared_capacity_link_factor(c, p), 1);
  EXPECT_THROW(theory::shared_capacity_link_factor(Collective::broadcast, 1),
               std::invalid_argument);
}

TEST(CollectivesTheory, BandwidthOptimalByteTermIsTheBusFactor) {
  for (auto c : theory::kAllCollectives)
    for (int p : {2, 3, 4, 8, 64}) {
      const auto t = theory::alpha_beta_terms(c, theory::bandwidth_optimal_algorithm(c), p);
      EXPECT_DOUBLE_EQ(t.byte_terms, theory::bus_bandwidth_factor(c, p))
          << theory::collective_name(c);
    }
}

TEST(CollectivesTheory, ThakurModels) {
  const auto ring = theory::alpha_beta_terms(Collective::all_reduce, Algorithm::ring, 8);
  EXPECT_DOUBLE_EQ(ring.latency_terms, 14);
  EXPECT_DOUBLE_EQ(ring.byte_terms, 14.0 / 8);
  const auto tree = theory::alpha_beta_terms(Collective::all_reduce, Algorithm::binomial_tree, 8);
  EXPECT_DOUBLE_EQ(tree.latency_terms, 6);
  EXPECT_DOUBLE_EQ(tree.byte_terms, 6);
  const auto rab = theory::alpha_beta_terms(Collective::all_reduce, Algorithm::rabenseifner, 5);
  EXPECT_DOUBLE_EQ(rab.latency_terms, 6);  // 2 ⌈log2 5⌉
  EXPECT_DOUBLE_EQ(rab.byte_terms, 8.0 / 5);
  const auto bcast = theory::alpha_beta_terms(Collective::broadcast, Algorithm::binomial_tree, 4);
  EXPECT_DOUBLE_EQ(bcast.latency_terms, 2);
  EXPECT_DOUBLE_EQ(bcast.byte_terms, 2);
  // 1 GiB ring all-reduce on 8 ranks, α 5 µs, 400 GB/s links.
  EXPECT_NEAR(theory::alpha_beta_time_s(ring, 0x1p30, 5e-6, 1 / 400e9),
              14 * 5e-6 + 1.75 * 0x1p30 / 400e9, 1e-15);
  EXPECT_THROW(theory::alpha_beta_terms(Collective::all_gather, Algorithm::binomial_tree, 4),
               std::invalid_argument);
  EXPECT_THROW(theory::alpha_beta_terms(Collective::all_reduce, Algorithm::ring, 0),
               std::invalid_argument);
}

std::vector<double> sizes() {
  std::vector<double> n;
  for (double b = 8; b <= 0x1p26; b *= 2) n.push_back(b);
  return n;
}

TEST(CollectivesTheory, FitRecoversAlphaAndBetaOfExactTimes) {
  const auto terms = theory::alpha_beta_terms(Collective::all_reduce, Algorithm::ring, 4);
  const double alpha = 2e-6, beta = 1 / 20e9;
  std::vector<double> n = sizes(), t;
  for (double b : n) t.push_back(theory::alpha_beta_time_s(terms, b, alpha, beta));
  const auto f = theory::fit_alpha_beta(terms, n, t);
  EXPECT_NEAR(f.alpha_s, alpha, alpha * 1e-9);
  EXPECT_NEAR(f.beta_s_per_byte, beta, beta * 1e-9);
  EXPECT_NEAR(f.half_bytes, 6 * alpha / (1.5 * beta), 1e-3);
  EXPECT_NEAR(f.r2_bandwidth_bound, 1, 1e-12);
  EXPECT_GE(f.bandwidth_bound_points, 3u);
}

TEST(CollectivesTheory, FitWeighsEachTimeByItsRelativeError) {
  // Noisy data, where the weighting shows: t = (12 µs + 75 ps/B·n)·(1 ± 5%), the sign alternating,
  // n = 8·8^k (k = 0..7): a 4-rank ring all_reduce (6 latency terms, 1.5 byte terms) with α = 2 µs
  // and a 20 GB/s link. Expected values by exact rational arithmetic in Python (fractions.Fraction,
  // the two steps of fit_alpha_beta written out): step 1 with weights 1/t² gives α = 2.00389 µs and
  // n½ = 163,236 B; unweighted (w = 1) it would give α = 2.35660 µs, n½ = 198,616 B. Step 2 (the 3
  // sizes ≥ n½, unweighted) gives β = 4.72051e-11 s/B, R² = 0.999807; weighted by 1/t² it would
  // give β = 4.96879e-11.
  const auto terms = theory::alpha_beta_terms(Collective::all_reduce, Algorithm::ring, 4);
  std::vector<double> n;
  for (double b = 8; b <= 0x1p24; b *= 8) n.push_back(b);
  const std::vector<double> t = {1.260063e-05, 1.140456e-05, 1.264032e-05,  1.169184e-05,
                                 1.518048e-05, 3.007776e-05, 1.7775072e-04, 1.20677664e-03};
  const auto f = theory::fit_alpha_beta(terms, n, t);
  EXPECT_NEAR(f.alpha_s, 2.0038921956572024e-06, 2e-15);
  EXPECT_NEAR(f.half_bytes, 163236.08520909713, 1e-4);
  EXPECT_EQ(f.bandwidth_bound_points, 3u);
  EXPECT_NEAR(f.beta_s_per_byte, 4.7205124946489726e-11, 1e-19);
  EXPECT_NEAR(f.r2_bandwidth_bound, 0.99980652541538706, 1e-12);
}

TEST(CollectivesTheory, FitSeesACurvedBandwidthRegime) {
  // Times that grow as n^1.5 beyond 1 MiB are not a line: R² must fall well below 0.95.
  const auto terms = theory::alpha_beta_terms(Collective::all_gather, Algorithm::ring, 2);
  std::vector<double> n = sizes(), t;
  for (double b : n) t.push_back(1e-6 + b / 10e9 * (b > 0x1p20 ? std::pow(b / 0x1p20, 1.5) : 1));
  const auto f = theory::fit_alpha_beta(terms, n, t);
  EXPECT_LT(f.r2_bandwidth_bound, 0.95);
}

TEST(CollectivesTheory, FitRefusesWhatItCannotFit) {
  const auto terms = theory::alpha_beta_terms(Collective::all_reduce, Algorithm::ring, 2);
  const std::vector<double> one{8}, same{8, 8}, t2{1e-6, 1e-6}, bad{1e-6, 0};
  EXPECT_THROW(theory::fit_alpha_beta(terms, one, std::vector<double>{1e-6}),
               std::invalid_argument);
  EXPECT_THROW(theory::fit_alpha_beta(terms, same, t2), std::invalid_argument);
  EXPECT_THROW(theory::fit_alpha_beta(terms, std::vector<double>{8, 16}, bad),
               std::invalid_argument);
  const auto alone = theory::alpha_beta_terms(Collective::all_reduce, Algorithm::ring, 1);
  EXPECT_THROW(theory::fit_alpha_beta(alone, std::vector<double>{8, 16}, t2),
               std::invalid_argument);
  // Constant times: no bandwidth term; β clamps to 0, n½ infinite, no R².
  const auto f = theory::fit_alpha_beta(terms, std::vector<double>{8, 16, 32},
                                        std::vector<double>{1e-6, 1e-6, 1e-6});
  EXPECT_EQ(f.beta_s_per_byte, 0);
  EXPECT_TRUE(std::isnan(f.r2_bandwidth_bound));
}

TEST(Parallelism, PaperValues) {
  EXPECT_EQ(theory::global_batch(16, 64, 4), 4096);
  // ZeRO paper, Figure 1: 7.5B parameters, 64 devices, K = 12.
  EXPECT_DOUBLE_EQ(theory::zero_footprint(0, 7.5e9, 64).memory_bytes, 120e9);
  EXPECT_NEAR(theory::zero_footprint(1, 7.5e9, 64).memory_bytes, 31.4e9, 0.05e9);
  EXPECT_NEAR(theory::zero_footprint(2, 7.5e9, 64).memory_bytes, 16.6e9, 0.05e9);
  EXPECT_NEAR(theory::zero_footprint(3, 7.5e9, 64).memory_bytes, 1.875e9, 1e6);
  EXPECT_EQ(theory::zero_footprint(3, 1, 8).communication_elements, 3);
  EXPECT_THROW(theory::zero_footprint(4, 1, 8), std::invalid_argument);
  EXPECT_DOUBLE_EQ(theory::pipeline_bubble_fraction(4, 8), 3.0 / 11);
  EXPECT_DOUBLE_EQ(theory::interleaved_bubble_ratio(4, 8, 2), 3.0 / 16);
  const auto tp = theory::tensor_parallel_comm(1, 2048, 12288, 2, 8, 0, 1 / 100e9);
  EXPECT_DOUBLE_EQ(tp.bytes_per_all_reduce, 2048.0 * 12288 * 2);
  EXPECT_DOUBLE_EQ(tp.time_per_layer_s, 4 * 1.75 * tp.bytes_per_all_reduce / 100e9);
  EXPECT_DOUBLE_EQ(theory::expert_all_to_all_bytes(4096, 2, 4096, 2, 8),
                   4096.0 * 2 * 4096 * 2 * 7 / 8);
  EXPECT_DOUBLE_EQ(theory::training_flop(175e9, 300e9), 3.15e23);  // GPT-3: 3.14e23 in the paper
  EXPECT_DOUBLE_EQ(theory::model_flops_utilization(1e9, 1e3, 12e12), 0.5);
}

// Executes a collective on host buffers, from the definition, for `ranks` ranks.
std::vector<std::vector<std::uint32_t>> execute(Collective c, RedOp op, DType t, int ranks,
                                                int root, const CollectiveShape& s) {
  const int a = reference::pattern_amplitude(t, ranks);
  const std::size_t share = s.count / static_cast<std::size_t>(ranks);
  std::vector<std::vector<double>> in(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r)
    for (std::size_t i = 0; i < s.in_count; ++i)
      in[static_cast<std::size_t>(r)].push_back(reference::pattern_value(r, i, a));
  std::vector<std::vector<std::uint32_t>> out(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    auto& o = out[static_cast<std::size_t>(r)];
    for (std::size_t i = 0; i < s.out_count; ++i) {
      double v = 0;
      const auto red = [&](std::size_t k) {
        double acc = in[0][k];
        for (int j = 1; j < ranks; ++j) {
          const double x = in[static_cast<std::size_t>(j)][k];
          acc = op == RedOp::sum ? acc + x : op == RedOp::max ? std::max(acc, x) : std::min(acc, x);
        }
        return acc;
      };
      switch (c) {
        case Collective::all_reduce:
        case Collective::reduce: v = red(i); break;
        case Collective::reduce_scatter: v = red(static_cast<std::size_t>(r) * share + i); break;
        case Collective::all_gather: v = in[i / share][i % share]; break;
        case Collective::broadcast: v = in[static_cast<std::size_t>(root)][i]; break;
        case Collective::all_to_all:
          v = in[i / share][static_cast<std::size_t>(r) * share + i % share];
          break;
        case Collective::send_recv:
          v = in[static_cast<std::size_t>((r + ranks - 1) % ranks)][i];
          break;
      }
      o.push_back(reference::encode_element(t, v));
    }
  }
  return out;
}

TEST(CollectivesReference, ExpectedOutputsAreTheCollectivesExecuted) {
  for (auto c : theory::kAllCollectives)
    for (auto t : reference::kAllDTypes)
      for (auto op : reference::kAllRedOps)
        for (int ranks : {1, 2, 3, 4, 8, 11, 13}) {
          const auto s = reference::collective_shape(c, 4 * 1000 + 24, ranks, t);
          const int root = ranks - 1;
          const auto outs = execute(c, op, t, ranks, root, s);
          for (int r = 0; r < ranks; ++r) {
            std::vector<char> buf(s.out_count * reference::dtype_bytes(t));
            for (std::size_t i = 0; i < s.out_count; ++i)
              reference::store_element(t, buf.data(), i, outs[static_cast<std::size_t>(r)][i]);
            EXPECT_EQ(reference::count_wrong(c, op, t, r, ranks, root, s, buf.data()), 0u)
                << theory::collective_name(c) << " " << reference::dtype_name(t) << " p=" << ranks;
            if (!reference::has_output(c, r, root) || s.out_count == 0) continue;
            reference::store_element(t, buf.data(), s.out_count / 2, 0x7E5Au);  // one wrong element
            EXPECT_EQ(reference::count_wrong(c, op, t, r, ranks, root, s, buf.data()), 1u);
            reference::poison_output(t, buf.data(), s.out_count);
            EXPECT_EQ(reference::count_wrong(c, op, t, r, ranks, root, s, buf.data()), s.out_count);
          }
        }
}

TEST(CollectivesReference, SumsStayExactAndInputsAreNotZero) {
  // Amplitudes keep |Σ| within the exact integers of each type.
  EXPECT_EQ(reference::pattern_amplitude(DType::bf16, 64), 3);
  EXPECT_EQ(reference::pattern_amplitude(DType::bf16, 128), 2);
  EXPECT_EQ(reference::pattern_amplitude(DType::bf16, 256), 1);
  std::size_t zeros = 0, n = 0;
  for (int r = 0; r < 8; ++r)
    for (std::size_t i = 0; i < 1000; ++i, ++n) zeros += reference::pattern_value(r, i, 3) == 0;
  EXPECT_LT(zeros, n / 5);
  // Every rank counts: consecutive ranks give different values at every amplitude.
  for (int a : {1, 2, 3})
    for (std::size_t i = 0; i < 100; ++i)
      EXPECT_NE(reference::pattern_value(0, i, a), reference::pattern_value(1, i, a));
  // Shapes: whole shares, nccl-tests' size.
  const auto ag = reference::collective_shape(Collective::all_gather, 1001 * 4, 4, DType::fp32);
  EXPECT_EQ(ag.count, 1000u);
  EXPECT_EQ(ag.in_count, 250u);
  EXPECT_EQ(ag.bytes, 4000u);
  const auto rs = reference::collective_shape(Collective::reduce_scatter, 4096, 2, DType::bf16);
  EXPECT_EQ(rs.in_count, 2048u);
  EXPECT_EQ(rs.out_count, 1024u);
}

// Synthetic measurements that follow the model exactly, per collective and rank count.
std::vector<collectives::Point> model_points(double link_bytes_per_s, int cores) {
  std::vector<collectives::Point> pts;
  for (int p : {1, 2, 4})
    for (auto c : theory::kAllCollectives)
      for (double n : sizes()) {
        collectives::Point pt;
        pt.transport = "mpi", pt.op = c, pt.ranks = p, pt.bytes = n, pt.sweep = true;
        pt.ranks_on_node = p, pt.cores = cores;
        const double slow = cores > 0 ? std::max(1.0, static_cast<double>(p) / cores) : 1.0;
        const auto terms = theory::alpha_beta_terms(c, theory::bandwidth_optimal_algorithm(c), p);
        pt.time_s = theory::alpha_beta_time_s(terms, n, 1e-6, slow / link_bytes_per_s) +
                    (p == 1 ? 1e-7 : 0);
        pts.push_back(pt);
      }
  return pts;
}

TEST(CollectivesChecks, TheModelPassesEveryLaw) {
  const auto checks = collectives::collectives_checks(model_points(10e9, 2));
  int pass = 0;
  for (const auto& c : checks) {
    EXPECT_NE(c.verdict, Verdict::fail) << c.name << ": " << c.reason;
    pass += c.verdict == Verdict::pass;
  }
  // Per rank count 2 and 4: 7 fits, agreement, link bound; 7 rank-scaling checks.
  EXPECT_EQ(pass, 2 * 9 + 7);
  const auto figures = collectives::collectives_figures(model_points(10e9, 2));
  EXPECT_NEAR(figures["mpi"]["p4"]["series"]["all_reduce/fp32/sum/out-of-place"]["link_bytes_per_s"]
                  .get<double>(),
              10e9 / 2, 1e3);  // 4 ranks on 2 cores: half the link
  nlohmann::json results = {{"figures", {{"collectives", figures}}}};
  const auto link = collectives::measured_link(results, "x.json");
  EXPECT_NEAR(link.alpha_s, 1e-6, 1e-12);
  EXPECT_THROW(collectives::measured_link(nlohmann::json::object(), "x.json"),
               std::invalid_argument);
}

TEST(CollectivesChecks, EachLawCanFail) {
  auto pts = model_points(10e9, 0);  // no oversubscription correction: p = 4 is not slower
  for (auto& p : pts) {
    if (p.op == Collective::reduce_scatter && p.ranks == 2) p.time_s *= 3;  // a slow algorithm
    if (p.op == Collective::broadcast && p.ranks == 4 && p.bytes > 0x1p20)
      p.time_s *= std::pow(p.bytes / 0x1p20, 1.5);  // bent
  }
  std::map<std::string, Verdict> v;
  for (const auto& c : collectives::collectives_checks(pts)) v[c.name] = c.verdict;
  // A library's algorithm and a machine's tuning are expectations: findings, not failures.
  EXPECT_EQ(v.at("mpi/p2/busbw-agreement"), Verdict::below_expectation);
  EXPECT_EQ(v.at("mpi/p4/busbw-agreement"), Verdict::pass);
  EXPECT_EQ(v.at("mpi/p4/broadcast/fp32/out-of-place/alpha-beta-fit"), Verdict::below_expectation);
  EXPECT_EQ(v.at("mpi/reduce_scatter/fp32/sum/out-of-place/rank-scaling"),
            Verdict::below_expectation);
  // A collective faster than the link: send_recv three times slower than the rest.
  for (auto& p : pts)
    if (p.op == Collective::send_recv) p.time_s *= 3;
  v.clear();
  for (const auto& c : collectives::collectives_checks(pts)) v[c.name] = c.verdict;
  EXPECT_EQ(v.at("mpi/p4/link-bound"), Verdict::fail);  // a law
}

// The link bound's band is busbw / link ≤ 1 + 25%: send_recv's times × 1.26 put every collective
// at 1.26 × the link (just outside: FAIL), × 1.24 at 1.24 (just inside: PASS), at both rank counts.
TEST(CollectivesChecks, LinkBoundJustOutsideAndJustInsideItsBand) {
  for (const double slower : {1.26, 1.24}) {
    auto pts = model_points(10e9, 0);
    for (auto& p : pts)
      if (p.op == Collective::send_recv) p.time_s *= slower;
    std::map<std::string, Check> k;
    for (const auto& c : collectives::collectives_checks(pts)) k[c.name] = c;
    for (const char* name : {"mpi/p2/link-bound", "mpi/p4/link-bound"}) {
      const Check& c = k.at(name);
      EXPECT_EQ(c.verdict, slower > 1.25 ? Verdict::fail : Verdict::pass)
          << name << ": " << c.reason;
      EXPECT_NEAR(c.measured, slower, 1e-6) << name;
    }
  }
}

// Noisy times: each check is judged from the intervals of the Theil–Sen slopes, so a spread
// that noise could explain is INCONCLUSIVE, one beyond it a finding or a FAIL.
TEST(CollectivesChecks, JudgedFromTheFitsIntervals) {
  auto pts = model_points(10e9, 0);
  std::erase_if(pts, [](const collectives::Point& p) { return p.ranks != 2; });
  // ±20% noise, alternating along the sizes (the same at every collective): the slopes' intervals
  // widen, the medians stay at the model's.
  const auto noisy = [](std::vector<collectives::Point> ps, double amplitude) {
    int i = 0;
    for (auto& p : ps) p.time_s *= 1 + ((i++ % 3) - 1) * amplitude;
    return ps;
  };
  const auto verdicts = [](const std::vector<collectives::Point>& ps) {
    std::map<std::string, Check> v;
    for (const auto& c : collectives::collectives_checks(ps)) v[c.name] = c;
    return v;
  };
  auto v = verdicts(noisy(pts, 0.2));
  const Check& link = v.at("mpi/p2/link-bound");
  EXPECT_LT(link.interval.low, link.interval.high) << link.reason;
  EXPECT_NE(link.verdict, Verdict::fail) << link.reason;
  // reduce_scatter 30% slower: within the noise of the agreement, INCONCLUSIVE; 3x: a finding.
  for (auto& p : pts)
    if (p.op == Collective::reduce_scatter) p.time_s *= 1.3;
  v = verdicts(noisy(pts, 0.2));
  EXPECT_EQ(v.at("mpi/p2/busbw-agreement").verdict, Verdict::inconclusive)
      << v.at("mpi/p2/busbw-agreement").reason;
  for (auto& p : pts)
    if (p.op == Collective::reduce_scatter) p.time_s *= 3 / 1.3;
  v = verdicts(noisy(pts, 0.2));
  EXPECT_EQ(v.at("mpi/p2/busbw-agreement").verdict, Verdict::below_expectation)
      << v.at("mpi/p2/busbw-agreement").reason;
  // A collective moving half the bytes its bus factor counts (all_gather's work declared as
  // all_reduce's: busbw twice the link) FAILs the link bound, noise or not.
  for (auto& p : pts)
    if (p.op == Collective::all_reduce) p.time_s /= 2;
  v = verdicts(noisy(pts, 0.2));
  EXPECT_EQ(v.at("mpi/p2/link-bound").verdict, Verdict::fail) << v.at("mpi/p2/link-bound").reason;
}

// MPI ranks on one node share one copy capacity: a 2-rank broadcast at 1.45x send_recv's 1/beta
// (measured under a busy core on the 2-core CI VM) is within p/(p-1) = 2 x the link; an all_reduce
// at 2x, or a broadcast at 3x, still beats it and FAILs. Off the node (cores 0) nothing changes.
TEST(CollectivesChecks, RootedCollectivesOnOneNodeMayReachTwiceTheLinkAtTwoRanks) {
  const auto link_bound = [](int cores, Collective faster, double by) {
    auto pts = model_points(10e9, cores);
    std::erase_if(pts, [](const collectives::Point& p) { return p.ranks != 2; });
    for (auto& p : pts)
      if (p.op == faster) p.time_s /= by;
    for (const auto& c : collectives::collectives_checks(pts))
      if (c.name == "mpi/p2/link-bound") return c;
    ADD_FAILURE() << "no link-bound check";
    return Check{};
  };
  EXPECT_EQ(link_bound(2, Collective::broadcast, 1.45).verdict, Verdict::pass);
  EXPECT_EQ(link_bound(2, Collective::reduce, 1.45).verdict, Verdict::pass);
  EXPECT_EQ(link_bound(2, Collective::broadcast, 3).verdict, Verdict::fail);
  EXPECT_EQ(link_bound(2, Collective::all_reduce, 2).verdict, Verdict::fail);
  EXPECT_EQ(link_bound(0, Collective::broadcast, 1.45).verdict, Verdict::fail);
}

TEST(CollectivesChecks, OneRankOnlySaysWhyNothingIsFitted) {
  auto pts = model_points(10e9, 0);
  std::erase_if(pts, [](const collectives::Point& p) { return p.ranks > 1; });
  const auto checks = collectives::collectives_checks(pts);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].verdict, Verdict::skip);
  EXPECT_NE(checks[0].reason.find("only 1 rank"), std::string::npos);
}

}  // namespace
}  // namespace bb
