// Block-scaled (floating-point) quantization x ≈ S·P on the host (OpenMP, vectorised body picked at
// run time); the schemes, data, comparison, laws and checks it shares with the CUDA cases are in
// block_quant_case.cpp.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "harness/host_threads.h"
#include "kernels/block_quant.h"
#include "suites/common/memory_guards.h"
#include "suites/precision/precision_suite.h"

namespace bb::suites {
namespace {

constexpr std::size_t kHostElements = std::size_t{1} << 24;

class BlockQuantHost final : public Instance {
 public:
  explicit BlockQuantHost(BlockQuantSetup s)
      : s_(s),
        x_(block_quant_data(kHostElements)),
        codes_(s.spec.code_bytes(kHostElements)),
        scales_(s.spec.scale_count(kHostElements)),
        xr_(kHostElements) {}
  Comparison validate() override {
    std::fill(codes_.begin(), codes_.end(), std::uint8_t{0x5A});
    std::fill(scales_.begin(), scales_.end(), std::uint8_t{0xA5});
    std::fill(xr_.begin(), xr_.end(), std::nanf(""));
    tensor_scale_ = std::nanf("");
    run(nullptr);
    kernels::block_dequantize_host(s_.spec, codes_.data(), scales_.data(), tensor_scale_,
                                   kHostElements, xr_.data());
    const reference::BlockQuantized ref = block_quant_reference(s_, x_);
    laws_ = block_quant_laws(s_, x_, ref, xr_);
    return block_quant_compare(s_, ref, codes_.data(), scales_.data(), tensor_scale_, xr_);
  }
  void run(gpu_stream) override {
    kernels::block_quantize_host(s_.spec, x_.data(), kHostElements, codes_.data(), scales_.data(),
                                 &tensor_scale_);
  }
  nlohmann::json observations() override { return laws_; }

 private:
  BlockQuantSetup s_;
  std::vector<float> x_;
  std::vector<std::uint8_t> codes_, scales_;
  std::vector<float> xr_;
  float tensor_scale_ = 1;
  nlohmann::json laws_;
};

}  // namespace

std::vector<Case> block_quant_host_cases() {
  std::vector<Case> cases;
  for (const BlockQuantSetup& s : block_quant_setups())
    cases.push_back(block_quant_case(
        s, Backend::host,
        [s](const CaseContext&) {
          Declared d = block_quant_declared(s, kHostElements);
          d.params["threads"] = openmp_threads();
          d.params["isa"] = kernels::block_quantize_host_isa();
          return d;
        },
        [s](const CaseContext& ctx, Declared&) -> std::unique_ptr<Instance> {
          check_host_memory(ctx.host, kHostElements * 24);  // data, outputs, the reference's
          return std::make_unique<BlockQuantHost>(s);
        }));
  return cases;
}

}  // namespace bb::suites
