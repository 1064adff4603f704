// The strategies' compute on a GPU (compute_device.h): cuBLAS SGEMM and the %globaltimer wait.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "base/cuda_check.h"
#include "kernels/gemm_precision.h"
#include "kernels/timer_wait.h"
#include "suites/strategies/compute_device.h"

namespace bb::strategies {
namespace {

class GpuCompute final : public DeviceCompute {
 public:
  explicit GpuCompute(const std::vector<GemmShape>& gemms) {
    check_cuda(cudaGetDevice(&device_), "cudaGetDevice");
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    for (const GemmShape& g : gemms) {
      a_count_ = std::max(a_count_, std::size_t(g.m) * std::size_t(g.k));
      b_count_ = std::max(b_count_, std::size_t(g.k) * std::size_t(g.n));
      c_count_ = std::max(c_count_, std::size_t(g.m) * std::size_t(g.n));
    }
    allocate(a_, a_count_, 0.5f);
    allocate(b_, b_count_, 0.25f);
    allocate(c_, c_count_, std::nanf(""));  // poisoned: the GEMMs write every entry they use
    GpuCompute::gemms(gemms);
    wait(1e-6);
  }
  ~GpuCompute() override {
    cudaSetDevice(device_);
    for (float* p : {a_, b_, c_})
      if (p) cudaFree(p);
    if (stream_) cudaStreamDestroy(stream_);
  }
  GpuCompute(const GpuCompute&) = delete;
  GpuCompute& operator=(const GpuCompute&) = delete;

  void gemms(const std::vector<GemmShape>& shapes) override {
    check_cuda(cudaSetDevice(device_), "cudaSetDevice");
    for (const GemmShape& g : shapes) {
      if (std::size_t(g.m) * std::size_t(g.k) > a_count_ ||
          std::size_t(g.k) * std::size_t(g.n) > b_count_ ||
          std::size_t(g.m) * std::size_t(g.n) > c_count_)
        throw std::logic_error("strategies: a GEMM larger than the GPU buffers planned");
      gemm_.run(kernels::GemmMode::fp32, g.m, g.n, g.k, a_, b_, c_, stream_);
    }
    check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (GEMMs)");
  }

  void wait(double seconds) override {
    check_cuda(cudaSetDevice(device_), "cudaSetDevice");
    kernels::launch_timer_wait(static_cast<std::uint64_t>(std::llround(seconds * 1e9)), stream_);
    check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (timer wait)");
  }

 private:
  void allocate(float*& p, std::size_t count, float value) {
    check_cuda(cudaMalloc(reinterpret_cast<void**>(&p), count * sizeof(float)), "cudaMalloc");
    const std::vector<float> host(count, value);
    check_cuda(cudaMemcpy(p, host.data(), count * sizeof(float), cudaMemcpyHostToDevice),
               "cudaMemcpy");
  }

  int device_ = 0;
  cudaStream_t stream_ = nullptr;
  std::size_t a_count_ = 1, b_count_ = 1, c_count_ = 1;
  float *a_ = nullptr, *b_ = nullptr, *c_ = nullptr;
  kernels::GemmRunner gemm_;  // cuBLAS's handle on the current device
};

}  // namespace

std::shared_ptr<DeviceCompute> make_device_compute(const std::vector<GemmShape>& gemms) {
  return std::make_shared<GpuCompute>(gemms);
}

}  // namespace bb::strategies
