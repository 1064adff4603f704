#include "suites/suites.h"

#include "suites/attention/attention_suite.h"
#include "suites/bandwidth/bandwidth_suite.h"
#include "suites/occupancy/occupancy_suite.h"
#include "suites/precision/precision_suite.h"

namespace bb::suites {
namespace {

void append(std::vector<Case>& to, std::vector<Case> from) {
  for (auto& c : from) to.push_back(std::move(c));
}

std::vector<Case> bandwidth_cases(const SuiteTarget& t) {
  std::vector<Case> cases;
  append(cases, stream_host_cases());
  append(cases, hierarchy_host_cases(t));
  append(cases, intensity_host_cases());
  append(cases, stream_cuda_cases());
  append(cases, hierarchy_cuda_cases(t));
  append(cases, intensity_cuda_cases());
  append(cases, copy_cuda_cases());
  return cases;
}

}  // namespace

std::vector<Suite> all_suites(const SuiteTarget& target) {
  std::vector<Case> occupancy = occupancy_cuda_cases();
  append(occupancy, occupancy_host_cases());
  return {
      {"bandwidth",
       "memory hierarchy: STREAM kernels, latency and bandwidth per cache level, strided access, "
       "arithmetic intensity, host<->device copies — against the roofline",
       bandwidth_cases(target), bandwidth_suite_checks, bandwidth_suite_figures},
      {"precision",
       "number formats: conversions bit-exact against the reference; summation error against "
       "its bounds and growth laws",
       [] {
         std::vector<Case> cases = precision_host_cases();
         append(cases, precision_cuda_cases());
         append(cases, quant_cuda_cases());
         append(cases, block_quant_cuda_cases());
         append(cases, summation_cuda_cases());
         append(cases, gemm_host_cases());
         append(cases, gemm_cuda_cases());
         return cases;
       }(),
       precision_suite_checks},
      {"occupancy",
       "GPU occupancy: model vs CUDA's calculator vs measured co-residency; waves, divergence, "
       "bank conflicts",
       std::move(occupancy), occupancy_suite_checks},
      {"attention",
       "attention forward: naive (n x n scores in memory) vs IO-aware tiled/fused kernels and "
       "decode against a KV cache — time ~ n^2, memory and bytes against the formulas",
       [] {
         std::vector<Case> cases = attention_host_cases();
         append(cases, attention_cuda_cases());
         return cases;
       }(),
       attention_suite_checks, attention_suite_figures},
      {"harness", "the measurement engine itself: per-sample overhead", harness_host_cases()},
  };
}

}  // namespace bb::suites
