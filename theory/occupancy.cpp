// The occupancy model and the per-architecture constants it uses.
//
// Sources: CUDA C++ Programming Guide (CUDA 13.0), "Compute Capabilities", table "Technical
// Specifications per Compute Capability" (threads and blocks per SM, registers, shared memory per
// SM and per block, the opt-in maximum, the 1 KB reserved per block from 8.0) and each
// architecture's "Shared Memory" section (the carveout sizes an SM can be set to). Allocation
// granularities (registers: 256 per warp, rounded within each of 4 sub-partitions; shared memory:
// 256 B before 8.0, 128 B from 8.0) and the barrier slots of sm_90+ are the ones NVIDIA's Occupancy
// Calculator and cuda_occupancy.h (CUDA 13.0) use.
#include "theory/occupancy.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <stdexcept>

namespace bb::theory {
namespace {

constexpr std::array<int, 6> kVoltaCarveouts = {0, 8, 16, 32, 64, 96};
constexpr std::array<int, 2> kTuringCarveouts = {32, 64};
constexpr std::array<int, 8> kA100Carveouts = {0, 8, 16, 32, 64, 100, 132, 164};
constexpr std::array<int, 6> kGa10xCarveouts = {0, 8, 16, 32, 64, 100};
constexpr std::array<int, 10> kHopperCarveouts = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};

constexpr std::size_t KiB = 1024;

SmLimits make(int major, int minor, std::string_view arch, int threads_per_sm, int blocks_per_sm,
              std::size_t optin_kib, std::span<const int> carveouts, int barrier_slots) {
  SmLimits s;
  s.cc_major = major;
  s.cc_minor = minor;
  s.architecture = arch;
  s.max_threads_per_sm = threads_per_sm;
  s.max_blocks_per_sm = blocks_per_sm;
  s.shared_allocation_unit_bytes = major >= 8 ? 128 : 256;
  s.reserved_shared_per_block_bytes = major >= 8 ? 1 * KiB : 0;
  s.shared_per_block_optin_bytes = optin_kib * KiB;
  s.shared_carveouts_kib = carveouts;
  s.barrier_slots_per_block = barrier_slots;
  s.source = "CUDA C++ Programming Guide 13.0, Technical Specifications per Compute Capability";
  return s;
}

const std::array<SmLimits, 11>& table() {
  static const std::array<SmLimits, 11> t = {
      make(7, 0, "Volta", 2048, 32, 96, kVoltaCarveouts, 2),
      make(7, 5, "Turing", 1024, 16, 64, kTuringCarveouts, 2),
      make(8, 0, "Ampere GA100", 2048, 32, 163, kA100Carveouts, 2),
      make(8, 6, "Ampere GA10x", 1536, 16, 99, kGa10xCarveouts, 1),
      make(8, 7, "Ampere Orin", 1536, 16, 163, kA100Carveouts, 1),
      make(8, 9, "Ada", 1536, 24, 99, kGa10xCarveouts, 1),
      make(9, 0, "Hopper", 2048, 32, 227, kHopperCarveouts, 2),
      make(10, 0, "Blackwell B200", 2048, 32, 227, kHopperCarveouts, 2),
      make(10, 3, "Blackwell B300", 2048, 32, 227, kHopperCarveouts, 2),
      make(12, 0, "Blackwell GB20x", 1536, 24, 99, kGa10xCarveouts, 1),
      make(12, 1, "Blackwell GB10", 1536, 24, 99, kGa10xCarveouts, 1),
  };
  return t;
}

int divide_round_up(long long x, long long y) { return static_cast<int>((x + y - 1) / y); }
long long round_up(long long x, long long y) { return (x + y - 1) / y * y; }

// The smallest carveout that holds `bytes`; 0 when none does.
std::size_t carveout_at_least(const SmLimits& sm, std::size_t bytes) {
  for (int kib : sm.shared_carveouts_kib)
    if (static_cast<std::size_t>(kib) * KiB >= bytes) return static_cast<std::size_t>(kib) * KiB;
  return 0;
}

}  // namespace

std::size_t SmLimits::shared_per_sm_bytes() const {
  return shared_carveouts_kib.empty() ? 0
                                      : static_cast<std::size_t>(shared_carveouts_kib.back()) * KiB;
}

std::span<const SmLimits> sm_limits_table() { return table(); }

const SmLimits* find_sm_limits(int cc_major, int cc_minor) {
  for (const auto& s : table())
    if (s.cc_major == cc_major && s.cc_minor == cc_minor) return &s;
  return nullptr;
}

const SmLimits& sm_limits_for(std::string_view arch) {
  std::string known;
  for (const auto& s : table()) {
    const std::string digits = std::to_string(s.cc_major * 10 + s.cc_minor);
    const std::string dotted = std::to_string(s.cc_major) + "." + std::to_string(s.cc_minor);
    if (arch == s.arch() || arch == digits || arch == dotted) return s;
    known += (known.empty() ? "" : ", ") + s.arch();
  }
  throw std::invalid_argument("unknown architecture '" + std::string(arch) + "' (known: " + known +
                              ")");
}

std::string limiting_factor_names(unsigned mask) {
  std::string s;
  const std::pair<unsigned, const char*> names[] = {{kLimitWarps, "warps"},
                                                    {kLimitRegisters, "registers"},
                                                    {kLimitSharedMemory, "shared_memory"},
                                                    {kLimitBlocks, "blocks"},
                                                    {kLimitBarriers, "barriers"}};
  for (const auto& [bit, name] : names)
    if (mask & bit) s += (s.empty() ? "" : "+") + std::string(name);
  return s;
}

Occupancy occupancy(const SmLimits& sm, const KernelResources& k, int carveout_percent) {
  Occupancy o;
  const int warps = divide_round_up(k.threads_per_block, sm.warp_size);

  // Warps: the SM holds max_threads_per_sm / 32 warps; a block takes whole warps.
  o.by_warps = k.threads_per_block > sm.max_threads_per_block ? 0 : sm.max_warps_per_sm() / warps;

  // Blocks: a fixed number of block slots per SM.
  o.by_blocks = sm.max_blocks_per_sm;

  // Registers: allocated per warp in units of 256; each of the 4 sub-partitions holds a quarter of
  // the register file and whole warps, so the count of warps is floored per sub-partition.
  const long long regs_per_warp = round_up(
      static_cast<long long>(k.registers_per_thread) * sm.warp_size, sm.register_allocation_unit);
  o.registers_per_block = static_cast<int>(regs_per_warp * warps);
  const long long regs_hardware = regs_per_warp * round_up(warps, sm.sub_partitions);
  if (regs_hardware > sm.max_registers_per_block ||
      o.registers_per_block > sm.max_registers_per_block ||
      k.registers_per_thread > sm.max_registers_per_thread) {
    o.by_registers = 0;
  } else if (regs_per_warp > 0) {
    const long long warps_per_sub = sm.registers_per_sm / sm.sub_partitions / regs_per_warp;
    o.by_registers = static_cast<int>(warps_per_sub * sm.sub_partitions / warps);
  }

  // Shared memory: static + dynamic + the driver's per-block reservation, rounded to the
  // allocation unit; the SM runs with the preferred carveout, or the smallest that fits one block.
  const std::size_t static_bytes = k.static_shared_bytes + sm.reserved_shared_per_block_bytes;
  o.shared_per_block_bytes = static_cast<std::size_t>(
      round_up(static_cast<long long>(static_bytes + k.dynamic_shared_bytes),
               sm.shared_allocation_unit_bytes));
  const bool opted_in = k.max_dynamic_shared_bytes > 0;
  const std::size_t per_block_limit =
      (opted_in && static_bytes + k.max_dynamic_shared_bytes > sm.shared_per_block_bytes
           ? sm.shared_per_block_optin_bytes
           : sm.shared_per_block_bytes) +
      sm.reserved_shared_per_block_bytes;
  if ((opted_in && k.dynamic_shared_bytes > k.max_dynamic_shared_bytes) ||
      o.shared_per_block_bytes > per_block_limit) {
    o.by_shared_memory = 0;
  } else {
    const std::size_t preferred =
        carveout_percent == kCarveoutDefault
            ? sm.shared_per_sm_bytes()
            : carveout_at_least(
                  sm, static_cast<std::size_t>(carveout_percent) * sm.shared_per_sm_bytes() / 100);
    o.shared_per_sm_bytes = preferred >= o.shared_per_block_bytes
                                ? preferred
                                : carveout_at_least(sm, o.shared_per_block_bytes);
    if (o.shared_per_block_bytes > 0)
      o.by_shared_memory = static_cast<int>(o.shared_per_sm_bytes / o.shared_per_block_bytes);
  }

  o.blocks_per_sm = std::min({o.by_warps, o.by_blocks, o.by_registers, o.by_shared_memory});
  if (o.blocks_per_sm == o.by_warps) o.limiting |= kLimitWarps;
  if (o.blocks_per_sm == o.by_registers) o.limiting |= kLimitRegisters;
  if (o.blocks_per_sm == o.by_shared_memory) o.limiting |= kLimitSharedMemory;
  if (o.blocks_per_sm == o.by_blocks) o.limiting |= kLimitBlocks;

  // Barriers (sm_90 and later): the SM has max_blocks × slots hardware barriers to share.
  if (sm.cc_major >= 9 && k.barriers > 0) {
    o.by_barriers = sm.max_blocks_per_sm * sm.barrier_slots_per_block / k.barriers;
    o.blocks_per_sm = std::min(o.blocks_per_sm, o.by_barriers);
    if (o.blocks_per_sm == o.by_barriers) o.limiting |= kLimitBarriers;
  }

  o.active_warps_per_sm = o.blocks_per_sm * warps;
  o.occupancy = static_cast<double>(o.active_warps_per_sm) / sm.max_warps_per_sm();
  return o;
}

LaunchLimit exceeded_launch_limit(const SmLimits& sm, const KernelResources& k) {
  if (k.threads_per_block < 1 || k.threads_per_block > sm.max_threads_per_block)
    return LaunchLimit::threads;
  if (k.registers_per_thread < 0 || k.registers_per_thread > sm.max_registers_per_thread)
    return LaunchLimit::registers;
  if (k.static_shared_bytes + k.dynamic_shared_bytes > sm.shared_per_block_optin_bytes)
    return LaunchLimit::shared_memory;
  if (k.barriers < 0 || k.barriers > kMaxBarriersPerBlock) return LaunchLimit::barriers;
  return LaunchLimit::none;
}

int bank_conflict_ways(long long stride_words) {
  if (stride_words == 0) return 1;  // every thread reads the same word: a broadcast
  return static_cast<int>(std::gcd(stride_words < 0 ? -stride_words : stride_words, 32LL));
}

}  // namespace bb::theory
