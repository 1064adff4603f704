// A step's compute on this process's GPU (--engine nccl): `--compute gemm` runs cuBLAS SGEMM
// (kernels/gemm_precision.h, mode fp32: fp32 data and arithmetic, no tensor cores) on each of the
// layer's shapes; `--compute synthetic` runs a kernel that waits the declared duration on the
// GPU's %globaltimer (kernels/timer_wait.h): it holds one thread on one SM, not a host core. Both
// run on a stream of their own (a pending NCCL send does not hold them up) and each call returns
// once the GPU has finished: Compute (compute.h) times it on the host clock, as the steps time
// themselves, so that the parts and the whole step are measured alike.
#pragma once

#include <memory>
#include <vector>

#include "suites/strategies/strategies_plan.h"

namespace bb::strategies {

class DeviceCompute {
 public:
  virtual ~DeviceCompute() = default;
  virtual void gemms(const std::vector<GemmShape>& shapes) = 0;
  virtual void wait(double seconds) = 0;
};

// On the current GPU (the NCCL engine chose it), with buffers for every GEMM of `gemms`, each
// run once (and one wait) before returning: the first call of a kernel loads its module, which
// may wait for the whole device, NCCL's operations included, so it is done before any of them.
// Throws std::runtime_error when boundbench was built without CUDA.
std::shared_ptr<DeviceCompute> make_device_compute(const std::vector<GemmShape>& gemms);

}  // namespace bb::strategies
