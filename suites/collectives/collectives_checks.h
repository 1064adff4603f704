// The collectives suite's checks over its measurements, and the figures written to the results.
// Each is judged from an interval (harness/checks.h): the link 1/β of a series comes with the
// interval of its Theil–Sen slope over the bandwidth-bound sizes (harness/fit.h).
//   law:         link bound (no collective's busbw beyond the point-to-point link: byte
//                conservation); exactness is each size's verify check (collectives_report.cpp)
//   expectation: the α–β fit's R² (libraries switch algorithm and protocol with the size), busbw
//                agreement between all_reduce, all_gather and reduce_scatter (whether a library's
//                algorithms are bandwidth-optimal: OpenMPI's reduce_scatter is not), rank scaling
//                (a machine's tuning, oversubscription)
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/case.h"
#include "reference/collectives.h"
#include "theory/collectives.h"

namespace bb::collectives {

// One measured size of one collective.
struct Point {
  std::string transport;  // "mpi", "nccl"
  theory::Collective op = theory::Collective::all_reduce;
  reference::DType dtype = reference::DType::fp32;
  reference::RedOp redop = reference::RedOp::sum;
  bool in_place = false;
  int ranks = 1;
  double bytes = 0;    // n, as nccl-tests prints it
  double time_s = 0;   // median over samples
  bool sweep = false;  // part of the size sweep that the fits use
  // Oversubscription: ranks of this group on one node, and that node's cores (0: no limit, GPUs).
  int ranks_on_node = 1, cores = 0;
};

// "all_reduce/fp32/sum/out-of-place": a collective, data type, operator (of a reducing collective)
// and placement; a root other than 0 comes before the placement ("broadcast/fp32/root1/in-place").
std::string series_name(theory::Collective op, reference::DType dtype, reference::RedOp redop,
                        bool in_place, int root = 0);

double algbw_bytes_per_s(const Point& p);
double busbw_bytes_per_s(const Point& p);

struct CheckLimits {
  double min_r2 = 0.95;               // of the α–β fit over the bandwidth-bound sizes
  double busbw_spread = 0.20;         // all_reduce / all_gather / reduce_scatter
  double link_tolerance = 0.25;       // busbw may exceed the fitted send_recv link by this
  double rank_scaling_spread = 0.35;  // β across rank counts, oversubscription removed
};

std::vector<Check> collectives_checks(const std::vector<Point>& points,
                                      const CheckLimits& limits = {});
nlohmann::json collectives_figures(const std::vector<Point>& points);

// The all_reduce link fitted in a results file (figures.collectives: NCCL before MPI, the most
// ranks), for `theory --from`. Throws std::invalid_argument naming the file when there is none.
struct MeasuredLink {
  double alpha_s = 0, link_bytes_per_s = 0;
  std::string source;  // "mpi, 4 ranks, all_reduce/fp32/sum/out-of-place"
};
MeasuredLink measured_link(const nlohmann::json& results, const std::string& path);

}  // namespace bb::collectives
