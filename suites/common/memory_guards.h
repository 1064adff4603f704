// Memory guards every topic's cases use: a size that does not fit this machine is a SKIP with the
// reason, not a crash or a swapping machine.
#pragma once

#include <cstdint>
#include <string>

#include "harness/case.h"

namespace bb::suites {

// Refuses (as a SKIP) sizes that would leave less than a quarter of host memory free.
inline void check_host_memory(const HostInfo& host, std::uint64_t bytes) {
  if (!fits_in_memory(bytes, host.memory_bytes))
    throw CaseSkipped("needs " + std::to_string(bytes >> 20) + " MiB of host memory, host has " +
                      std::to_string(host.memory_bytes >> 20) + " MiB");
}

// Refuses (as a SKIP) device allocations beyond 3/4 of the GPU's memory.
inline void check_gpu_memory(const GpuDevice& gpu, std::uint64_t bytes) {
  if (!fits_in_memory(bytes, gpu.memory_bytes))
    throw CaseSkipped("needs " + std::to_string(bytes >> 20) + " MiB of GPU memory, " + gpu.name +
                      " has " + std::to_string(gpu.memory_bytes >> 20) + " MiB");
}

}  // namespace bb::suites
