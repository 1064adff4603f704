// Host↔device copies over the host link (PCIe, or NVLink-C2C on Grace Hopper): cudaMemcpyAsync of
// 256 MiB on the sample's stream, from and to pinned (cudaMallocHost) and pageable (aligned_alloc)
// host memory. Each byte crosses the link once: bytes_read = bytes, bytes_written = 0.
//
// No "link_peak_bytes_per_s": the CUDA runtime does not expose the link's generation and width
// (cudaDeviceProp has only the PCI bus/device/domain IDs; NVML's nvmlDeviceGetCurrPcieLinkWidth
// is another library), and a hard-coded figure would bound the wrong machine. The memory level
// "pcie" has no bandwidth bound, so the harness SKIPs the roofline check with that reason.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "base/cuda_check.h"
#include "harness/gpu.h"
#include "reference/random.h"
#include "suites/bandwidth/bandwidth_suite.h"
#include "suites/common/host_buffer.h"
#include "theory/hierarchy.h"

namespace bb::suites {
namespace {

constexpr std::size_t kCopyBytes = std::size_t{256} << 20;

// The bytes copied: kCopyBytes, as the device affords it.
std::size_t copy_bytes(const GpuDevice* gpu) {
  return affordable_elements(gpu, kCopyBytes / sizeof(float)) * sizeof(float);
}

constexpr std::uint64_t kPatternSeed = 21;

enum class Direction { h2d, d2h };

// Host memory of either kind, released by its own deallocator; a failed cudaFreeHost is reported,
// never thrown.
struct HostBytesFree {
  bool pinned;
  void operator()(void* p) const {
    if (!pinned) return std::free(p);
    const cudaError_t status = cudaFreeHost(p);
    if (status != cudaSuccess)
      std::fprintf(stderr, "boundbench: cudaFreeHost: %s\n", cudaGetErrorString(status));
  }
};
using HostBytes = std::unique_ptr<void, HostBytesFree>;

HostBytes allocate_host_bytes(std::size_t bytes, bool pinned) {
  if (!pinned) return HostBytes(allocate_host<unsigned char>(bytes).release(), {false});
  void* p = nullptr;
  check_cuda(cudaMallocHost(&p, bytes), "cudaMallocHost(" + std::to_string(bytes) + ")");
  return HostBytes(p, {true});
}

class CopyCuda final : public Instance {
 public:
  CopyCuda(Direction d, bool pinned, std::size_t bytes)
      : direction_(d), bytes_(bytes), host_(allocate_host_bytes(bytes, pinned)), device_(bytes) {
    // Touch every host page now, so that no sample pays for first-touch page faults.
    std::memset(host_.get(), 0, bytes_);
    device_.fill_bytes(0);
  }

  // The pattern goes one way through copy() into a destination poisoned with 0xFF (NaN as
  // floats), and comes back bit-exact.
  Comparison validate() override {
    std::vector<float> pattern(bytes_ / sizeof(float)), out(bytes_ / sizeof(float));
    for (std::size_t i = 0; i < bytes_ / sizeof(float); ++i)
      pattern[i] = static_cast<float>(reference::positive_test_value(kPatternSeed, i));
    if (direction_ == Direction::h2d) {
      std::memcpy(host_.get(), pattern.data(), bytes_);
      device_.fill_bytes(0xFF);
      copy_and_wait();
      device_.download(out.data(), bytes_);
    } else {
      device_.upload(pattern.data(), bytes_);
      std::memset(host_.get(), 0xFF, bytes_);
      copy_and_wait();
      std::memcpy(out.data(), host_.get(), bytes_);
    }
    return compare<float, float>(out, pattern, Tolerance{0, 0});
  }

  void run(gpu_stream s) override {
    const bool h2d = direction_ == Direction::h2d;
    check_cuda(cudaMemcpyAsync(h2d ? device_.get() : host_.get(), h2d ? host_.get() : device_.get(),
                               bytes_, h2d ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, s),
               "cudaMemcpyAsync");
  }

 private:
  void copy_and_wait() {
    run(nullptr);
    check_cuda(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize");
  }

  Direction direction_;
  std::size_t bytes_;
  HostBytes host_;
  DeviceBuffer device_;
};

Case copy_case(Direction d, bool pinned) {
  const std::string direction = d == Direction::h2d ? "h2d" : "d2h";
  const std::string memory = pinned ? "pinned" : "pageable";
  return {"copy-" + direction + "/" + memory + "/cuda", Backend::cuda,
          [direction, memory](const CaseContext& ctx) {
            const std::size_t bytes = copy_bytes(ctx.gpu);
            Declared decl;
            // The link moves each byte once; nothing is written back over it.
            decl.work = work_of(theory::link_copy_work(static_cast<double>(bytes), sizeof(float)),
                                theory::Precision::fp32, "pcie");
            decl.params = {{"direction", direction}, {"memory", memory}, {"bytes", bytes}};
            return decl;
          },
          [d, pinned](const CaseContext& ctx, Declared&) -> std::unique_ptr<Instance> {
            const std::size_t bytes = copy_bytes(ctx.gpu);
            check_host_memory(ctx.host, 3 * bytes);  // host buffer, pattern, downloaded copy
            return std::make_unique<CopyCuda>(d, pinned, bytes);
          },
          nullptr};
}

}  // namespace

std::vector<Case> copy_cuda_cases() {
  return {copy_case(Direction::h2d, true), copy_case(Direction::d2h, true),
          copy_case(Direction::h2d, false), copy_case(Direction::d2h, false)};
}

}  // namespace bb::suites
