#include "suites/suites.h"

#include "suites/occupancy/occupancy_suite.h"

namespace bb::suites {
namespace {

std::vector<Case> join(std::vector<Case> a, std::vector<Case> b) {
  for (auto& c : b) a.push_back(std::move(c));
  return a;
}

}  // namespace

std::vector<Suite> all_suites() {
  return {
      {"bandwidth", "memory hierarchy: STREAM kernels against the DRAM roofline",
       join(stream_host_cases(), stream_cuda_cases())},
      {"occupancy",
       "GPU occupancy: model vs CUDA's calculator vs measured co-residency; waves, divergence, "
       "bank conflicts",
       join(occupancy_cuda_cases(), occupancy_host_cases()), occupancy_suite_checks},
      {"harness", "the measurement engine itself: per-sample overhead", harness_host_cases()},
  };
}

}  // namespace bb::suites
