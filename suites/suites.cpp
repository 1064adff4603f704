#include "suites/suites.h"

#include <algorithm>
#include <iterator>

#include "suites/attention/attention_suite.h"
#include "suites/bandwidth/bandwidth_suite.h"
#include "suites/occupancy/occupancy_suite.h"
#include "suites/precision/precision_suite.h"

namespace bb::suites {
namespace {

// The lists one after the other.
template <class... Lists>
std::vector<Case> concat(Lists... lists) {
  std::vector<Case> cases;
  (std::move(lists.begin(), lists.end(), std::back_inserter(cases)), ...);
  return cases;
}

}  // namespace

std::vector<Suite> all_suites(const SuiteTarget& target) {
  return {
      {"bandwidth",
       "memory hierarchy: STREAM kernels, latency and bandwidth per cache level, strided access, "
       "arithmetic intensity, host<->device copies — against the roofline",
       concat(stream_host_cases(), hierarchy_host_cases(target), intensity_host_cases(),
              stream_cuda_cases(), hierarchy_cuda_cases(target), intensity_cuda_cases(),
              copy_cuda_cases()),
       bandwidth_suite_checks, bandwidth_suite_figures},
      {"precision",
       "number formats: conversions bit-exact against the reference; summation error against "
       "its bounds and growth laws",
       concat(precision_host_cases(), precision_cuda_cases(), quant_cuda_cases(),
              block_quant_cuda_cases(), summation_cuda_cases(target), gemm_host_cases(),
              gemm_cuda_cases()),
       precision_suite_checks},
      {"occupancy",
       "GPU occupancy: model vs CUDA's calculator vs measured co-residency; waves, divergence, "
       "bank conflicts",
       concat(occupancy_cuda_cases(), occupancy_host_cases()), occupancy_suite_checks},
      {"attention",
       "attention forward: naive (n x n scores in memory) vs IO-aware tiled/fused kernels and "
       "decode against a KV cache — time ~ n^2, memory and bytes against the formulas",
       concat(attention_host_cases(), attention_cuda_cases(target)), attention_suite_checks,
       attention_suite_figures},
      {"harness",
       "the measurement engine itself: per-sample overhead, the GPU's kernel launch overhead",
       concat(harness_host_cases(), harness_cuda_cases())},
  };
}

}  // namespace bb::suites
