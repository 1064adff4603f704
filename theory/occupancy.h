// How many blocks of a kernel fit on one SM, and which resource binds: warps, blocks, registers,
// shared memory or barriers. An independent model of each limit from the architecture's documented
// constants (occupancy.cpp, each with its source); checked against CUDA's own calculator
// (cuda_occupancy.h) over the whole grid in tests/occupancy_grid_test.cpp. Derivation:
// theory/README.md. No CUDA, no I/O.
#pragma once

#include <climits>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "theory/work.h"

namespace bb::theory {

struct SmLimits {
  int cc_major = 0, cc_minor = 0;
  std::string_view architecture;
  int warp_size = 32;
  int max_threads_per_sm = 0;
  int max_threads_per_block = 1024;
  int max_blocks_per_sm = 0;
  int registers_per_sm = 65536;
  int max_registers_per_block = 65536;
  int max_registers_per_thread = 255;      // what the compiler can allocate to one thread
  int register_allocation_unit = 256;      // registers, per warp
  int sub_partitions = 4;                  // each holds 1/4 of the register file and its warps
  int shared_allocation_unit_bytes = 128;  // per block
  std::size_t reserved_shared_per_block_bytes = 0;  // taken by the driver for every block
  std::size_t shared_per_block_bytes = 48 * 1024;   // without opting in
  std::size_t shared_per_block_optin_bytes = 0;  // with cudaFuncAttributeMaxDynamicSharedMemorySize
  std::span<const int> shared_carveouts_kib;     // the shared-memory sizes an SM can be set to
  int barrier_slots_per_block = 2;  // barriers available per SM = max blocks × this (sm_90+)
  std::string_view source;

  std::size_t shared_per_sm_bytes() const;  // the largest carveout
  int max_warps_per_sm() const { return max_threads_per_sm / warp_size; }
  std::string arch() const { return "sm_" + std::to_string(cc_major * 10 + cc_minor); }
};

std::span<const SmLimits> sm_limits_table();
const SmLimits* find_sm_limits(int cc_major, int cc_minor);
// "sm_90", "90" or "9.0"; throws std::invalid_argument naming the known architectures.
const SmLimits& sm_limits_for(std::string_view arch);

// What a kernel asks of an SM, per block.
struct KernelResources {
  int threads_per_block = 0;
  int registers_per_thread = 0;
  std::size_t static_shared_bytes = 0;
  std::size_t dynamic_shared_bytes = 0;
  // Opted in to more than 48 KiB (cudaFuncAttributeMaxDynamicSharedMemorySize), up to this much
  // dynamic shared memory; 0: not opted in.
  std::size_t max_dynamic_shared_bytes = 0;
  int barriers = 1;  // named barriers the block uses (__syncthreads uses one)
};

// Preferred shared-memory carveout, percent of the maximum; -1: no preference (the maximum).
inline constexpr int kCarveoutDefault = -1;

enum LimitingFactor : unsigned {
  kLimitWarps = 0x01,
  kLimitRegisters = 0x02,
  kLimitSharedMemory = 0x04,
  kLimitBlocks = 0x08,
  kLimitBarriers = 0x10,
};
std::string limiting_factor_names(unsigned mask);  // "registers+shared_memory"

struct Occupancy {
  int blocks_per_sm = 0;
  // Each resource's own limit on blocks per SM; INT_MAX when the kernel does not use it.
  int by_warps = INT_MAX, by_registers = INT_MAX, by_shared_memory = INT_MAX;
  int by_blocks = INT_MAX, by_barriers = INT_MAX;
  unsigned limiting = 0;                   // every factor whose limit equals blocks_per_sm
  int registers_per_block = 0;             // allocated
  std::size_t shared_per_block_bytes = 0;  // allocated, reservation included
  std::size_t shared_per_sm_bytes = 0;     // the carveout the SM runs with
  int active_warps_per_sm = 0;
  double occupancy = 0;  // active warps / max warps per SM
};

// The model. A kernel that cannot launch at all (too many threads, registers or shared memory per
// block) gets 0 blocks from the resource that refuses it, as CUDA's calculator gives.
Occupancy occupancy(const SmLimits& sm, const KernelResources& k,
                    int carveout_percent = kCarveoutDefault);

// Named barriers per block: bar.sync takes ids 0 … 15 (PTX ISA, "bar, barrier").
inline constexpr int kMaxBarriersPerBlock = 16;

// The first limit that keeps a kernel from ever launching on `sm`, or none: threads outside 1 … max
// per block, registers above 255, shared memory above the opt-in limit per block, barriers
// above 16.
enum class LaunchLimit { none, threads, registers, shared_memory, barriers };
LaunchLimit exceeded_launch_limit(const SmLimits& sm, const KernelResources& k);

// Little's law: data in flight needed to sustain a bandwidth = bandwidth × latency.
inline double bytes_in_flight(double bandwidth_bytes_per_s, double latency_s) {
  return bandwidth_bytes_per_s * latency_s;
}

// Waves: a grid of B blocks runs in ceil(B / (SMs × blocks per SM)) rounds; time ∝ waves.
inline long long waves(long long blocks, long long sms, long long blocks_per_sm) {
  const long long per_wave = sms * blocks_per_sm;
  return (blocks + per_wave - 1) / per_wave;
}

// The tail effect (CUDA C++ Best Practices Guide, Occupancy), with W = SMs × blocks per SM: the
// last wave holds (B − (waves − 1)·W) / W of a full wave, and the waves do B / (waves·W) of the
// work they could.
inline double last_wave_fill_fraction(long long blocks, long long sms, long long blocks_per_sm) {
  const long long per_wave = sms * blocks_per_sm;
  return static_cast<double>(blocks - (waves(blocks, sms, blocks_per_sm) - 1) * per_wave) /
         static_cast<double>(per_wave);
}
inline double wave_efficiency_fraction(long long blocks, long long sms, long long blocks_per_sm) {
  return static_cast<double>(blocks) /
         static_cast<double>(waves(blocks, sms, blocks_per_sm) * sms * blocks_per_sm);
}

// Shared-memory bank conflicts (32 banks of 4 bytes): a warp reading 4-byte words with a stride of
// s words hits gcd(s, 32) words per bank: a gcd-way conflict, serialized into that many passes.
int bank_conflict_ways(long long stride_words);

// The work of the occupancy suite's kernels, flop only (their data stay in registers or shared
// memory; the read kernel of the latency-hiding cases is hierarchy.h's read_work):
// divergence: each of `threads` runs `iters` dependent FMAs on its own path, 2·iters flop (the
// useful work: lanes idle while other paths run do none);
inline WorkCount divergence_work(double threads, double iters) {
  return {0, 0, 2 * iters * threads, 0};
}
// bank conflicts: each thread reads `iters` shared-memory words and adds each, iters flop;
inline WorkCount bank_conflict_work(double threads, double iters) {
  return {0, 0, iters * threads, 0};
}
// forced spills: 64 accumulators per thread, one FMA each per round, 2·64·rounds flop.
inline WorkCount spill_work(double threads, double rounds) {
  return {0, 0, 2 * 64 * rounds * threads, 0};
}

}  // namespace bb::theory
