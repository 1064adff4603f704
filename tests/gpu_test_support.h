// What the GPU tests share: whether the device is a functional simulator (GPGPU-Sim, ci/gpusim.sh)
// and the sizes it can afford. A simulator computes real results ~10^4 times slower than a GPU, so
// under it only the bulk lengths shrink (to 2^16-2^20 elements); edge cases, odd tails and every
// check stay. What a simulator cannot run (cuBLAS's SASS-only kernels, timings) is skipped there
// with the reason, and only there.
#pragma once

#include <cstddef>

#include "harness/gpu.h"

namespace bb::gpu_test {

// Whether device 0 is a simulator (harness/gpu.h: GpuDevice::simulated).
inline bool simulated() {
  static const bool s = [] {
    const GpuStatus st = query_gpus();
    return st.usable && !st.devices.empty() && st.devices.front().simulated;
  }();
  return s;
}

// A bulk length: `on_gpu` on a GPU, `on_simulator` under a simulator.
inline std::size_t bulk(std::size_t on_gpu, std::size_t on_simulator) {
  return simulated() ? on_simulator : on_gpu;
}

inline constexpr const char* kNoCublas =
    "cannot run under the simulator: cuBLAS device code (SASS only, no PTX to simulate)";
inline constexpr const char* kNoTiming =
    "cannot run under the simulator: it times nothing (event times are 0 in functional mode)";

}  // namespace bb::gpu_test
