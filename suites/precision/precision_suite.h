// The precision suite (host side so far): conversion kernels bit-exact against the reference, and
// summation error against its bounds and growth laws.
#pragma once

#include <vector>

#include "harness/case.h"
#include "kernels/block_quant.h"
#include "reference/gemm.h"
#include "reference/mx.h"
#include "suites/registry.h"
#include "theory/gemm_error.h"
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
// each is written) and the setup as params.
Declared quant_declared(const QuantSetup& s, std::size_t elements);
// The int8 cases' data: `elements` values uniform in [−1.5, 2.5) (reference/random.h, seed 11).
std::vector<float> quant_data(std::size_t elements);
// Codes, per-group parameters and dequantized values against reference/quant.h, all exact: the
// comparison holds the counts of wrong ones to 0 (Q: std::int8_t or std::uint8_t).
template <class Q>
Comparison quant_compare(const QuantSetup& s, std::span<const float> x, std::span<const Q> q,
                         std::span<const theory::IntQuant> params, std::span<const float> xr);
// Block-scaled float quantization (fp8 per tensor, MXFP8/MXFP4, NVFP4): one setup each, the same
// for the host and the CUDA cases, and what both share (block_quant_case.cpp).
struct BlockQuantSetup {
  const char* name;  // "mxfp8-e4m3/block32/ocp-floor"
  kernels::BlockQuantSpec spec;
  bool in_quick;
};
std::vector<BlockQuantSetup> block_quant_setups();
std::vector<float> block_quant_data(std::size_t n);
reference::BlockQuantized block_quant_reference(const BlockQuantSetup& s, std::span<const float> x);
// Codes, scale codes, the tensor scale and the dequantized values x̂, all bit-exact.
Comparison block_quant_compare(const BlockQuantSetup& s, const reference::BlockQuantized& ref,
                               const std::uint8_t* codes, const std::uint8_t* scale_codes,
                               float tensor_scale, std::span<const float> xr);
// Error bound, SQNR and its law, clipped elements: the case's observations.
nlohmann::json block_quant_laws(const BlockQuantSetup& s, std::span<const float> x,
                                const reference::BlockQuantized& ref, std::span<const float> xr);
// "quantize/<setup>/<backend>", with the laws' checks (error bound, SQNR, no clipping) made from
// the instance's observations.
Case block_quant_case(
    const BlockQuantSetup& s, Backend backend, std::function<Declared(const CaseContext&)> declare,
    std::function<std::unique_ptr<Instance>(const CaseContext&, Declared&)> prepare);
// Declared work (an amax pass where there is a tensor scale, the quantize pass) and params.
Declared block_quant_declared(const BlockQuantSetup& s, std::size_t elements);
std::vector<Case> block_quant_host_cases();
std::vector<Case> block_quant_cuda_cases();  // CUDA builds; cuda_absent.cpp otherwise
std::vector<Case> precision_cuda_cases();    // CUDA builds; cuda_absent.cpp otherwise
std::vector<Case> quant_cuda_cases();        // the same for int8 quantization on the GPU
// fp32's unit roundoff u: the summation cases' bounds and the suite's checks on them.
inline constexpr double kFp32U = 0x1p-24;
// Data set `seed` of the summation cases: n random-sign values with magnitudes in [0.5, 2).
std::vector<float> summation_data(int seed, std::size_t n);
// A summation case's declared work (one read of n floats) and params.
Declared summation_declared(const char* algorithm, std::size_t n, int seeds,
                            double flop_per_element);
// The GPU's tree and CUB sums, judged the same way, at the sizes the target affords.
std::vector<Case> summation_cuda_cases(const SuiteTarget& target);
// One check of the precision suite (suite "precision"; precision_checks.cpp): what every case and
// suite check here builds its checks with. A law on an exact quantity (a rounding error, a
// count, a fitted exponent over deterministic data): PASS inside `band`, FAIL outside
// (harness/checks.h point_check); the reason formatted by fmt::format.
Check precision_check(const std::string& name, std::string law, double predicted, const Band& band,
                      double measured, double tolerance, std::string reason);
// The same check, not judged here (nothing to hold, a model that does not apply): SKIP.
Check precision_skip(const std::string& name, std::string law, std::string reason);
// Summation: every error within its deterministic bound; the median relative error's exponent in
// n near ½ for recursive summation and far flatter for pairwise; Kahan's within 2u.
std::vector<Check> precision_suite_checks(const std::vector<CaseResult>& results);

// The GEMM precision matrix: error against the exact product of the same rounded inputs over
// K = 64 … 16384 (host fp32 in k order; cuBLAS / cuBLASLt per mode on a GPU), and GPU throughput
// per mode at 8192³ (gemm_host.cpp, gemm_cuda.cpp, gemm_checks.cpp).
std::vector<Case> gemm_host_cases();
std::vector<Case> gemm_cuda_cases();  // CUDA builds; cuda_absent.cpp otherwise
// One error case's verdict and observations: every entry's error against its bound
// model-factor(K)·(|A||B|)_ij plus the reference's own error (the comparison: signed error / bound,
// atol 1), and the median / max normalized error, worst error / bound, effective bits, the
// deterministic and probabilistic factors (so reports plot error vs K against the bound as data).
struct GemmErrorReport {
  Comparison comparison;
  nlohmann::json observations;
};
GemmErrorReport gemm_error_report(std::span<const double> c, const reference::GemmExact& exact,
                                  const theory::GemmErrorModel& model);
// Per mode, backend and data set: the largest error / bound over K ≤ 1; the median normalized
// error below Higham & Mary's probabilistic factor; for the host's k-order fp32 series, the
// median's exponent in K (½ for data with a nonzero mean, 0 for zero-mean data); per GPU mode
// the speed-up over fp32 at 8192³ (> 1 for every lower precision), with TFLOP/s and % of peak.
std::vector<Check> gemm_suite_checks(const std::vector<CaseResult>& results);

}  // namespace bb::suites
