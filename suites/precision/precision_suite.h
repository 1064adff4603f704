// The precision suite (host side so far): conversion kernels bit-exact against the reference, and
// summation error against its bounds and growth laws.
#pragma once

#include <vector>

#include "harness/case.h"
#include "theory/quant.h"

namespace bb::suites {

std::vector<Case> precision_host_cases();
// int8 quantize/dequantize, bit-exact against the reference, with the error and SQNR laws.
std::vector<Case> quant_host_cases();

// One int8 quantization setup, the same for the host and the CUDA cases.
struct QuantSetup {
  const char* granularity;  // per-tensor, per-channel, per-group128
  std::size_t group;        // elements sharing one scale
  theory::QuantScheme scheme;
  bool stochastic;
  bool symmetric() const { return scheme == theory::QuantScheme::symmetric; }
};
// "quantize/int8/<granularity>/<scheme>[/stochastic]/<backend>"
std::string quant_case_name(const QuantSetup& s, Backend backend);
// The declared work over `elements` floats (a range pass and a quantize pass read them, one byte
// each is written) and the setup as params; the caller adds the instance.
Prepared quant_prepared(const QuantSetup& s, std::size_t elements);
std::vector<Case> precision_cuda_cases();  // CUDA builds; cuda_absent.cpp otherwise
std::vector<Case> quant_cuda_cases();      // the same for int8 quantization on the GPU
// Summation: every error within its deterministic bound; the median relative error's exponent in
// n near ½ for recursive summation and far flatter for pairwise; Kahan's within 2u.
std::vector<Check> precision_suite_checks(const std::vector<CaseResult>& results);

}  // namespace bb::suites
