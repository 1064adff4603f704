// GPU block-scaled quantization: the host cases' setups over 2^26 values (past any L2), bit-exact
// against reference/mx.h (codes, scales, the tensor scale, dequantized values) with the same laws.
// Memory-bound: the harness reports the % of the DRAM peak (target ≥ 85% of a copy).
#include <memory>
#include <vector>

#include "base/cuda_check.h"
#include "harness/gpu.h"
#include "kernels/block_quant.h"
#include "suites/precision/precision_suite.h"

namespace bb::suites {
namespace {

constexpr std::size_t kElements = std::size_t{1} << 26;

class BlockQuantCuda final : public Instance {
 public:
  BlockQuantCuda(BlockQuantSetup s, std::size_t n)
      : s_(s),
        n_(n),
        x_host_(block_quant_data(n_)),
        x_(n_ * 4),
        codes_(s.spec.code_bytes(n_)),
        scales_(std::max<std::size_t>(s.spec.scale_count(n_), 1)),
        back_(n_ * 4),
        state_(sizeof(kernels::BlockQuantState)) {
    x_.upload(x_host_.data(), x_.bytes());
  }
  Comparison validate() override {
    codes_.fill_bytes(0x5A), scales_.fill_bytes(0xA5), back_.fill_bytes(0xFF);
    state_.fill_bytes(0xFF);
    run(nullptr);
    kernels::block_dequantize_cuda(s_.spec, codes_.as<std::uint8_t>(), scales_.as<std::uint8_t>(),
                                   state_.as<kernels::BlockQuantState>(), n_, back_.as<float>(),
                                   nullptr);
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    std::vector<std::uint8_t> codes(codes_.bytes()), scales(scales_.bytes());
    std::vector<float> back(n_);
    kernels::BlockQuantState state;
    codes_.download(codes.data(), codes_.bytes());
    scales_.download(scales.data(), scales_.bytes());
    back_.download(back.data(), back_.bytes());
    state_.download(&state, sizeof state);
    const reference::BlockQuantized ref = block_quant_reference(s_, x_host_);
    laws_ = block_quant_laws(s_, x_host_, ref, back);
    laws_["nonfinite_inputs_counted"] = state.nonfinite;
    Comparison c =
        block_quant_compare(s_, ref, codes.data(), scales.data(), state.tensor_scale, back);
    if (state.nonfinite != 0) {  // the data are finite: a count here is the kernel's error
      ++c.mismatches;
      c.first_mismatches.insert(c.first_mismatches.begin(),
                                "the kernel counted " + std::to_string(state.nonfinite) +
                                    " non-finite inputs in finite data");
    }
    return c;
  }
  void run(gpu_stream stream) override {
    kernels::block_quantize_cuda(s_.spec, x_.as<float>(), n_, state_.as<kernels::BlockQuantState>(),
                                 codes_.as<std::uint8_t>(), scales_.as<std::uint8_t>(), stream);
  }
  nlohmann::json observations() override { return laws_; }

 private:
  BlockQuantSetup s_;
  std::size_t n_;
  std::vector<float> x_host_;
  DeviceBuffer x_, codes_, scales_, back_, state_;
  nlohmann::json laws_;
};

}  // namespace

std::vector<Case> block_quant_cuda_cases() {
  std::vector<Case> cases;
  for (const BlockQuantSetup& s : block_quant_setups())
    cases.push_back(block_quant_case(
        s, Backend::cuda,
        [s](const CaseContext& ctx) {
          return block_quant_declared(s, affordable_elements(ctx.gpu, kElements));
        },
        [s](const CaseContext& ctx, Declared&) -> std::unique_ptr<Instance> {
          return std::make_unique<BlockQuantCuda>(s, affordable_elements(ctx.gpu, kElements));
        }));
  return cases;
}

}  // namespace bb::suites
