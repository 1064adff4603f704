// The attention suite: the naive and the IO-aware forward pass on the host (fp32) and the GPU
// (bf16/fp16, cuBLAS naive, fused tensor-core kernel, decode against a KV cache), validated against
// the fp64 reference, and held against the formulas: time ∝ n², the naive kernel's n² memory, the
// decode's KV-cache bandwidth bound.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "harness/case.h"
#include "reference/attention.h"
#include "suites/registry.h"
#include "theory/attention.h"

namespace bb::suites {

std::vector<Case> attention_host_cases();

// What host and CUDA cases share (attention_case.cpp): the name
// "<kernel>/<dtype>/<backend>/[causal-]gqaHxK/]d<d>/n<n>" (the gqa part on the cases outside the
// sweep), the shape for the formulas, and the params.
std::string attention_case_name(const std::string& kernel, const std::string& dtype,
                                Backend backend, const reference::AttentionDims& s, bool sweep);
theory::AttentionShape attention_shape(const reference::AttentionDims& s, double bytes_per_element);
nlohmann::json attention_params(const std::string& kernel, const std::string& dtype,
                                const reference::AttentionDims& s, bool sweep);
// CUDA builds (cuda_absent.cpp otherwise), at the sizes the target affords.
std::vector<Case> attention_cuda_cases(const SuiteTarget& target);
// Per backend and kernel: the exponent of time against n (Theil–Sen; host n ≥ 256, GPU n ≥ 2048)
// within 2 ± 0.2.
std::vector<Check> attention_suite_checks(const std::vector<CaseResult>& results);
// Per backend: the exponents, and the smallest n from which the fused/tiled kernel beats naive.
nlohmann::json attention_suite_figures(const std::vector<CaseResult>& results);

}  // namespace bb::suites
