// The bandwidth suite's sizes, declared work and checks, shared by its host and CUDA case lists.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "harness/case.h"
#include "suites/common/memory_guards.h"
#include "suites/common/stream.h"
#include "suites/suites.h"
#include "theory/stream.h"

namespace bb::suites {

using theory::StreamOp;

// Working-set sizes of the sweeps: 4 KiB · 2^(i / per_octave) for i = 0, 1, … up to the first size
// ≥ max_bytes, each rounded to a multiple of 512 bytes (eight 64-byte lines).
std::vector<std::uint64_t> sweep_sizes(std::uint64_t max_bytes, int per_octave);
inline constexpr int kSweepPerOctave = 4;       // full runs
inline constexpr int kSweepPerOctaveQuick = 2;  // --quick

// Host sweeps reach 4x the last-level cache, GPU sweeps 8x the L2, both at least this.
inline constexpr std::uint64_t kSweepMinMaxBytes = std::uint64_t{64} << 20;

// Passes over a working set of `bytes` so that a sample reads at least `sample_bytes`.
inline int read_passes(std::uint64_t bytes, double sample_bytes) {
  return static_cast<int>(std::max(1.0, std::ceil(sample_bytes / static_cast<double>(bytes))));
}

// Elements of an intensity-sweep array at k FMAs per element: n_dram up to k = 64 (DRAM-bound),
// above it about `sample_flop` per sample (2k flop per element), within [2^20, n_dram]; rounded
// down to even for the paired types when `even`.
inline std::size_t intensity_elements(std::size_t n_dram, int k, double sample_flop, bool even) {
  if (k <= 64) return n_dram;
  const auto n_compute = static_cast<std::size_t>(sample_flop / (2.0 * k));
  return std::min(n_dram, std::max(std::size_t{1} << 20, even ? n_compute / 2 * 2 : n_compute));
}

// One full wave of `threads`-thread blocks: as many as the SMs hold at once by their thread limit.
inline int full_wave_blocks(const GpuDevice& gpu, int threads) {
  return gpu.sm_count * std::max(1, gpu.max_threads_per_sm / threads);
}

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
