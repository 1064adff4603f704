// GPU precision cases: CUDA's device conversions (fp32 → fp16, bf16, E4M3 and E5M2, saturating
// and not; FP6 E2M3/E3M2 and FP4 E2M1) against the reference rounding over all 2^32 fp32 inputs, on
// the device.
#include <algorithm>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "base/cuda_check.h"
#include "harness/gpu.h"
#include "kernels/convert.h"
#include "suites/precision/precision_suite.h"
#include "theory/formats.h"

namespace bb::suites {
namespace {

constexpr std::uint64_t kAllPatterns = std::uint64_t{1} << 32;
constexpr int kThreads = 256;
constexpr std::uint64_t kExponentEdges = 512;  // the patterns e << 23: ±0, ±2^k, ±inf

using Windows = std::vector<std::pair<std::uint64_t, std::uint64_t>>;  // [first, first + count)

// The patterns swept, as the device affords them: all 2^32, or else windows centred on each
// exponent's edge e << 23 (±0 and the subnormals, every power of two and its negative where a
// format's rounding and overflow thresholds lie, ±inf and the NaNs next to them).
Windows sweep_windows(const GpuDevice* gpu) {
  const std::uint64_t afford = affordable_elements(gpu, kAllPatterns);
  if (afford >= kAllPatterns) return {{0, kAllPatterns}};
  const std::uint64_t half = std::max<std::uint64_t>(afford / kExponentEdges / 2, 1);
  Windows w;
  for (std::uint64_t e = 0; e < kExponentEdges; ++e) {
    const std::uint64_t centre = e << 23, first = centre < half ? 0 : centre - half;
    w.emplace_back(first, std::min(centre + half, kAllPatterns) - first);
  }
  return w;
}

std::uint64_t patterns_in(const Windows& w) {
  std::uint64_t n = 0;
  for (const auto& [first, count] : w) n += count;
  return n;
}

class ConvertSweep final : public Instance {
 public:
  ConvertSweep(const GpuDevice& gpu, kernels::DeviceConversion c)
      : c_(c),
        windows_(sweep_windows(&gpu)),
        blocks_(gpu.sm_count * std::max(1, gpu.max_threads_per_sm / kThreads)),
        result_(sizeof(kernels::ConvertSweepResult)),
        fresh_(sizeof(kernels::ConvertSweepResult)) {
    // The reset value lives on the device: run() copies it device to device, so no pageable host
    // copy (a host-synchronous staging step) sits inside the timed region.
    const kernels::ConvertSweepResult fresh;
    fresh_.upload(&fresh, sizeof fresh);
  }
  Comparison validate() override {
    run(nullptr);
    kernels::ConvertSweepResult r;
    result_.download(&r, sizeof r);
    last_ = r;
    // Every pattern checked, none disagreeing.
    const std::vector<double> got = {static_cast<double>(r.checked),
                                     static_cast<double>(r.mismatches)};
    const std::vector<double> want = {static_cast<double>(patterns_in(windows_)), 0.0};
    Comparison c = compare<double, double>(got, want, Tolerance{0, 0});
    if (r.mismatches > 0) {  // the evidence, in the check's reason
      c.first_mismatches.insert(
          c.first_mismatches.begin(),
          fmt::format("first disagreeing fp32 input 0x{:08x}: reference code 0x{:x}, device code "
                      "0x{:x}",
                      r.first_input, r.reference_code, r.device_code));
    }
    return c;
  }
  void run(gpu_stream s) override {
    check_cuda(cudaMemcpyAsync(result_.get(), fresh_.get(), sizeof(kernels::ConvertSweepResult),
                               cudaMemcpyDeviceToDevice, s),
               "cudaMemcpyAsync (sweep result reset)");
    // At most one thread per pattern: a window narrower than a full wave launches fewer blocks.
    for (const auto& [first, count] : windows_) {
      const auto blocks =
          static_cast<int>(std::min<std::uint64_t>(blocks_, (count + kThreads - 1) / kThreads));
      kernels::convert_sweep_cuda(c_, first, count, result_.as<kernels::ConvertSweepResult>(),
                                  blocks, kThreads, s);
    }
  }
  nlohmann::json observations() override {
    return {{"checked", last_.checked},
            {"mismatches", last_.mismatches},
            {"first_disagreeing_input", last_.first_input}};
  }

 private:
  kernels::DeviceConversion c_;
  Windows windows_;
  int blocks_;
  DeviceBuffer result_, fresh_;
  kernels::ConvertSweepResult last_;
};

Case sweep_case(kernels::DeviceConversion c, const char* name) {
  return {std::string("convert-all/") + name + "/cuda", Backend::cuda,
          [name](const CaseContext& ctx) {
            const Windows w = sweep_windows(ctx.gpu);
            Declared d;
            d.work = work_of(theory::conversion_sweep_work(static_cast<double>(patterns_in(w))));
            d.params = {{"conversion", name},
                        {"inputs", patterns_in(w)},
                        {"windows", w.size()},
                        {"from", "fp32"}};
            return d;
          },
          [c](const CaseContext& ctx, Declared&) -> std::unique_ptr<Instance> {
            return std::make_unique<ConvertSweep>(*ctx.gpu, c);
          },
          nullptr};
}

}  // namespace

std::vector<Case> precision_cuda_cases() {
  using kernels::DeviceConversion;
  return {sweep_case(DeviceConversion::fp16, "fp32-fp16"),
          sweep_case(DeviceConversion::bf16, "fp32-bf16"),
          sweep_case(DeviceConversion::e4m3_satfinite, "fp32-e4m3-satfinite"),
          sweep_case(DeviceConversion::e4m3, "fp32-e4m3"),
          sweep_case(DeviceConversion::e5m2_satfinite, "fp32-e5m2-satfinite"),
          sweep_case(DeviceConversion::e5m2, "fp32-e5m2"),
          sweep_case(DeviceConversion::e2m3, "fp32-e2m3"),
          sweep_case(DeviceConversion::e3m2, "fp32-e3m2"),
          sweep_case(DeviceConversion::e2m1, "fp32-e2m1")};
}

}  // namespace bb::suites
