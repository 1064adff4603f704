// Built instead of the *_cuda.cpp case lists when boundbench has no CUDA backend.
#include "suites/attention/attention_suite.h"
#include "suites/bandwidth/bandwidth_suite.h"
#include "suites/precision/precision_suite.h"
#include "suites/suites.h"

namespace bb::suites {

std::vector<Case> stream_cuda_cases() { return {}; }
std::vector<Case> hierarchy_cuda_cases(const SuiteTarget&) { return {}; }
std::vector<Case> intensity_cuda_cases() { return {}; }
std::vector<Case> copy_cuda_cases() { return {}; }
std::vector<Case> occupancy_cuda_cases() { return {}; }
std::vector<Case> precision_cuda_cases() { return {}; }
std::vector<Case> quant_cuda_cases() { return {}; }
std::vector<Case> block_quant_cuda_cases() { return {}; }
std::vector<Case> summation_cuda_cases(const SuiteTarget&) { return {}; }
std::vector<Case> attention_cuda_cases(const SuiteTarget&) { return {}; }
std::vector<Case> gemm_cuda_cases() { return {}; }
std::vector<Case> harness_cuda_cases() { return {}; }

}  // namespace bb::suites
