// The bandwidth suite's sizes, declared work and checks, shared by its host and CUDA case lists.
#pragma once

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/case.h"
#include "suites/suites.h"
#include "theory/stream.h"

namespace bb::suites {

using theory::StreamOp;

inline constexpr std::size_t kHostMinElements = std::size_t{1} << 25;  // BabelStream's default
inline constexpr std::size_t kCudaMinElements = std::size_t{1} << 25;

// Host STREAM arrays together span at least 4x the last-level cache; GPU arrays 8x the L2.
inline constexpr int kHostCacheMultiple = 4;
inline constexpr int kCudaCacheMultiple = 8;

// Elements per array so that 3 arrays span at least `multiple` x the cache, rounded up to 2^20.
inline std::size_t stream_elements(std::uint64_t cache_bytes, int multiple,
                                   std::size_t element_bytes, std::size_t min_elements) {
  const std::uint64_t need =
      static_cast<std::uint64_t>(multiple) * cache_bytes / (3 * element_bytes);
  const std::size_t mib = std::size_t{1} << 20;
  return std::max<std::size_t>(min_elements, (need + mib - 1) / mib * mib);
}

// Refuses (as a SKIP) sizes that would leave less than a quarter of host memory free.
inline void check_host_memory(const HostInfo& host, std::uint64_t bytes) {
  if (host.memory_bytes > 0 && bytes > host.memory_bytes / 4 * 3)
    throw CaseSkipped("needs " + std::to_string(bytes >> 20) + " MiB of host memory, host has " +
                      std::to_string(host.memory_bytes >> 20) + " MiB");
}

// Refuses (as a SKIP) device allocations beyond 3/4 of the GPU's memory.
inline void check_gpu_memory(const GpuDevice& gpu, std::uint64_t bytes) {
  if (gpu.memory_bytes > 0 && bytes > gpu.memory_bytes / 4 * 3)
    throw CaseSkipped("needs " + std::to_string(bytes >> 20) + " MiB of GPU memory, " + gpu.name +
                      " has " + std::to_string(gpu.memory_bytes >> 20) + " MiB");
}

template <class T>
Work stream_work(const theory::StreamKernel& k, std::size_t n) {
  return work_of(theory::stream_work(k, static_cast<double>(n), sizeof(T)),
                 sizeof(T) == 8 ? theory::Precision::fp64 : theory::Precision::fp32);
}

// Working-set sizes of the sweeps: 4 KiB · 2^(i / per_octave) for i = 0, 1, … up to the first size
// ≥ max_bytes, each rounded to a multiple of 512 bytes (eight 64-byte lines).
std::vector<std::uint64_t> sweep_sizes(std::uint64_t max_bytes, int per_octave);
inline constexpr int kSweepPerOctave = 4;       // full runs
inline constexpr int kSweepPerOctaveQuick = 2;  // --quick

// Host sweeps reach 4x the last-level cache, GPU sweeps 8x the L2 (both at least 64 MiB).
std::uint64_t host_sweep_max_bytes(const HostInfo& host);
std::uint64_t cuda_sweep_max_bytes(std::uint64_t l2_bytes);

// The reported capacities a sweep should find, written into each sweep point's params as
// "cache_levels": [{"name": "L1", "bytes": …}, …]. For the host read sweep, whose threads each
// stream their own share, a private cache counts once per thread that uses one.
nlohmann::json host_cache_levels(const HostInfo& host, int threads);

// Checks over the measured cases (cache capacities from the latency staircase and the bandwidth
// plateaus, the sector model of strided reads, the intensity sweep against the roofline, DRAM
// bandwidth as % of peak, Little's law) and the measured hierarchy per backend as figures.
std::vector<Check> bandwidth_suite_checks(const std::vector<CaseResult>& results);
nlohmann::json bandwidth_suite_figures(const std::vector<CaseResult>& results);

// Case lists beyond the STREAM ones (suites.h).
std::vector<Case> hierarchy_host_cases(const SuiteTarget& target);
std::vector<Case> intensity_host_cases();
std::vector<Case> hierarchy_cuda_cases(const SuiteTarget& target);
std::vector<Case> intensity_cuda_cases();
std::vector<Case> copy_cuda_cases();

}  // namespace bb::suites
