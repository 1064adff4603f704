// GPU int8 quantization: the host cases' setups over 2^26 values (past any L2), the range and
// parameters on the device, bit-exact against reference/quant.h (codes, parameters, dequantized
// values). Memory-bound: the harness reports the % of the DRAM peak (target ≥ 85% of a copy).
#include <memory>
#include <vector>

#include "base/cuda_check.h"
#include "harness/gpu.h"
#include "kernels/quant.h"
#include "suites/precision/precision_suite.h"

namespace bb::suites {
namespace {

constexpr std::size_t kElements = std::size_t{1} << 26;

template <class Q>
class QuantCuda final : public Instance {
 public:
  QuantCuda(QuantSetup s, std::size_t n)
      : s_(s),
        n_(n),
        x_host_(quant_data(n)),
        x_(n * 4),
        q_(n * sizeof(Q)),
        back_(n * 4),
        lo_(n / kernels::quant_chunk_elements(s.group) * 4),
        hi_(n / kernels::quant_chunk_elements(s.group) * 4),
        params_(n / s.group * sizeof(theory::IntQuant)) {
    x_.upload(x_host_.data(), x_.bytes());
  }
  Comparison validate() override {
    q_.fill_bytes(0x5A), back_.fill_bytes(0xFF);
    run(nullptr);
    kernels::dequantize_cuda(q_.as<Q>(), n_, s_.group, params_.as<theory::IntQuant>(),
                             back_.as<float>(), nullptr);
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    std::vector<Q> q(n_);
    std::vector<float> back(n_);
    std::vector<theory::IntQuant> params(n_ / s_.group);
    q_.download(q.data(), q_.bytes());
    back_.download(back.data(), back_.bytes());
    params_.download(params.data(), params_.bytes());
    return quant_compare<Q>(s_, x_host_, q, params, back);
  }
  void run(gpu_stream stream) override {
    kernels::quantize_cuda(x_.as<float>(), n_, s_.group, s_.symmetric(), s_.stochastic, 7,
                           lo_.as<float>(), hi_.as<float>(), params_.as<theory::IntQuant>(),
                           q_.as<Q>(), stream);
  }

 private:
  QuantSetup s_;
  std::size_t n_;
  std::vector<float> x_host_;
  DeviceBuffer x_, q_, back_, lo_, hi_, params_;
};

// The setup over the `n` values the device affords: a per-tensor group spans them all.
QuantSetup over(QuantSetup s, std::size_t n) {
  if (s.group == kElements) s.group = n;
  return s;
}

Case quant_cuda_case(QuantSetup s, bool in_quick) {
  Case c{quant_case_name(s, Backend::cuda), Backend::cuda,
         [s](const CaseContext& ctx) {
           const std::size_t n = affordable_elements(ctx.gpu, kElements);
           Declared d = quant_declared(over(s, n), n);
           // Groups the fused kernel holds in registers are read once, not twice.
           const int passes = kernels::quant_cuda_fused(over(s, n).group) ? 1 : 2;
           d.work = work_of(theory::int_quant_work(static_cast<double>(n), 8, passes));
           d.params["passes"] = passes;
           return d;
         },
         [s](const CaseContext& ctx, Declared&) -> std::unique_ptr<Instance> {
           const std::size_t n = affordable_elements(ctx.gpu, kElements);
           if (s.symmetric()) return std::make_unique<QuantCuda<std::int8_t>>(over(s, n), n);
           return std::make_unique<QuantCuda<std::uint8_t>>(over(s, n), n);
         },
         nullptr};
  c.in_quick = in_quick;
  return c;
}

}  // namespace

std::vector<Case> quant_cuda_cases() {
  const auto sym = theory::QuantScheme::symmetric, asym = theory::QuantScheme::asymmetric;
  return {quant_cuda_case({"per-tensor", kElements, sym, false}, true),
          quant_cuda_case({"per-channel", 4096, asym, false}, false),
          quant_cuda_case({"per-group128", 128, asym, false}, true),
          quant_cuda_case({"per-group128", 128, sym, true}, true)};
}

}  // namespace bb::suites
