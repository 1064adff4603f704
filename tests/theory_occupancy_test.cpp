// Hand-worked examples of the occupancy model, waves, bank conflicts and Little's law, and the
// quantity parser of `boundbench theory`.
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>

#include "app/theory_catalogue.h"
#include "theory/occupancy.h"

namespace bb::theory {
namespace {

using namespace app;  // the catalogue: parse_quantity, find_formula

KernelResources kernel(int threads, int regs, std::size_t smem = 0) {
  KernelResources k;
  k.threads_per_block = threads;
  k.registers_per_thread = regs;
  k.dynamic_shared_bytes = smem;
  if (smem > 48 * 1024) k.max_dynamic_shared_bytes = smem;
  return k;
}

TEST(Occupancy, HopperRegistersAndSharedMemoryBindTogether) {
  // 256 threads = 8 warps; 64 regs x 32 = 2048 per warp: 16384 per sub-partition / 2048 = 8 warps,
  // x 4 = 32 warps = 4 blocks. Shared: 48 KiB + 1 KiB reserved = 49 KiB; 228 KiB / 49 KiB = 4.
  const Occupancy o = occupancy(sm_limits_for("sm_90"), kernel(256, 64, 48 * 1024));
  EXPECT_EQ(o.blocks_per_sm, 4);
  EXPECT_EQ(o.by_warps, 8);
  EXPECT_EQ(o.by_registers, 4);
  EXPECT_EQ(o.by_shared_memory, 4);
  EXPECT_EQ(o.limiting, kLimitRegisters | kLimitSharedMemory);
  EXPECT_EQ(o.active_warps_per_sm, 32);
  EXPECT_DOUBLE_EQ(o.occupancy, 0.5);
  EXPECT_EQ(o.shared_per_block_bytes, 49u * 1024);
}

TEST(Occupancy, RegistersFlooredPerSubPartition) {
  // 73 regs x 32 = 2336 -> 2560 per warp. A pooled file would hold 65536 / 2560 = 25 warps; each
  // quarter holds 16384 / 2560 = 6, so 24 one-warp blocks.
  const Occupancy o = occupancy(sm_limits_for("sm_70"), kernel(32, 73));
  EXPECT_EQ(o.by_registers, 24);
  EXPECT_EQ(o.blocks_per_sm, 24);
  EXPECT_EQ(o.limiting, kLimitRegisters);
}

TEST(Occupancy, WarpsBindLargeBlocks) {
  // A100: 1024 threads = 32 warps of 64; 32 regs -> 1024 per warp, 16 warps per quarter: also 2.
  const Occupancy o = occupancy(sm_limits_for("8.0"), kernel(1024, 32));
  EXPECT_EQ(o.blocks_per_sm, 2);
  EXPECT_EQ(o.limiting, kLimitWarps | kLimitRegisters);
  EXPECT_DOUBLE_EQ(o.occupancy, 1.0);
}

TEST(Occupancy, BlockSlotsAndBarriersOnBlackwellConsumer) {
  // sm_120: 24 block slots and 24 barriers (one per slot); 32-thread blocks with 16 regs.
  const Occupancy o = occupancy(sm_limits_for("sm_120"), kernel(32, 16));
  EXPECT_EQ(o.blocks_per_sm, 24);
  EXPECT_EQ(o.limiting, kLimitBlocks | kLimitBarriers);
  KernelResources two = kernel(32, 16);
  two.barriers = 2;
  EXPECT_EQ(occupancy(sm_limits_for("sm_120"), two).blocks_per_sm, 12);
}

TEST(Occupancy, CarveoutPreferenceRoundsUpToAConfiguration) {
  // 50% of 228 KiB = 114 KiB -> the 132 KiB configuration; 16 KiB (+1) blocks: 132 / 17 = 7.
  const Occupancy o = occupancy(sm_limits_for("sm_90"), kernel(128, 32, 16 * 1024), 50);
  EXPECT_EQ(o.shared_per_sm_bytes, 132u * 1024);
  EXPECT_EQ(o.by_shared_memory, 7);
}

TEST(Occupancy, UnlaunchableKernelsAreRejectedWithTheLimit) {
  const SmLimits& h = sm_limits_for("sm_90");
  EXPECT_EQ(exceeded_launch_limit(h, kernel(2048, 32)), LaunchLimit::threads);
  EXPECT_EQ(exceeded_launch_limit(h, kernel(0, 32)), LaunchLimit::threads);
  EXPECT_EQ(exceeded_launch_limit(h, kernel(256, 256)), LaunchLimit::registers);
  EXPECT_EQ(exceeded_launch_limit(h, kernel(256, 32, 228 * 1024)), LaunchLimit::shared_memory);
  EXPECT_EQ(exceeded_launch_limit(h, kernel(256, 32, 227 * 1024)), LaunchLimit::none);
  KernelResources many_barriers = kernel(256, 32);
  many_barriers.barriers = 17;
  EXPECT_EQ(exceeded_launch_limit(h, many_barriers), LaunchLimit::barriers);
  EXPECT_THROW(sm_limits_for("sm_99"), std::invalid_argument);
}

TEST(Waves, TailOfTheLastWave) {
  EXPECT_EQ(waves(528, 132, 4), 1);
  EXPECT_EQ(waves(529, 132, 4), 2);
  EXPECT_EQ(waves(1000, 132, 4), 2);
  // 529 blocks, 528 per wave: the second wave holds 1 block; 529 of 1056 slots work.
  EXPECT_DOUBLE_EQ(last_wave_fill_fraction(529, 132, 4), 1.0 / 528);
  EXPECT_DOUBLE_EQ(wave_efficiency_fraction(529, 132, 4), 529.0 / 1056);
  EXPECT_DOUBLE_EQ(last_wave_fill_fraction(528, 132, 4), 1.0);
  EXPECT_DOUBLE_EQ(wave_efficiency_fraction(528, 132, 4), 1.0);
}

TEST(BankConflicts, GcdOfStrideAndBanks) {
  EXPECT_EQ(bank_conflict_ways(1), 1);
  EXPECT_EQ(bank_conflict_ways(2), 2);
  EXPECT_EQ(bank_conflict_ways(6), 2);
  EXPECT_EQ(bank_conflict_ways(8), 8);
  EXPECT_EQ(bank_conflict_ways(32), 32);
  EXPECT_EQ(bank_conflict_ways(33), 1);  // the padded fix
  EXPECT_EQ(bank_conflict_ways(0), 1);   // broadcast
}

TEST(LittlesLaw, BytesInFlight) {
  // 4.8 TB/s x 600 ns = 2.88 MB in flight.
  EXPECT_DOUBLE_EQ(bytes_in_flight(4.8e12, 600e-9), 2.88e6);
  // Across 132 SMs: ≈ 22 KB per SM (FACTS.md, "Little's law for HBM": 2.9 MB / 132 ≈ 22 KB).
  EXPECT_NEAR(bytes_in_flight(4.8e12, 600e-9) / 132, 21818.18, 0.01);
  // Another regime, hand-worked: 2 TB/s × 1 µs = 2 MB; 100 GB/s (a link) × 2 µs = 200 KB.
  EXPECT_DOUBLE_EQ(bytes_in_flight(2e12, 1e-6), 2e6);
  EXPECT_DOUBLE_EQ(bytes_in_flight(100e9, 2e-6), 2e5);
}

TEST(ParseQuantity, SuffixesAndRefusals) {
  EXPECT_DOUBLE_EQ(parse_quantity("48KiB"), 49152);
  EXPECT_DOUBLE_EQ(parse_quantity("1Mi"), 1048576);
  EXPECT_DOUBLE_EQ(parse_quantity("4.8T"), 4.8e12);
  EXPECT_DOUBLE_EQ(parse_quantity("2k"), 2000);
  EXPECT_DOUBLE_EQ(parse_quantity("1e9"), 1e9);
  EXPECT_THROW(parse_quantity("48KB"), std::invalid_argument);
  EXPECT_THROW(parse_quantity("1e"), std::invalid_argument);
  EXPECT_THROW(parse_quantity(""), std::invalid_argument);
  EXPECT_THROW(parse_quantity("12 apples"), std::invalid_argument);
}

TEST(OccupancyFormula, ThroughTheRegistry) {
  const Formula f = find_formula("occupancy");
  const auto out = evaluate_formula(
      f, {{"arch", "sm_90"}, {"threads", "256"}, {"regs", "64"}, {"smem", "48KiB"}});
  auto get = [&](const std::string& name) {
    for (const auto& o : out)
      if (o.name == name) return o;
    ADD_FAILURE() << name;
    return FormulaOutput{};
  };
  EXPECT_EQ(get("blocks_per_sm").value, 4);
  EXPECT_EQ(get("binding_limit").text, "registers+shared_memory");
  EXPECT_THROW(evaluate_formula(f, {{"arch", "sm_90"}, {"threads", "32.5"}, {"regs", "8"}}),
               std::invalid_argument);
}

TEST(OccupancyFormula, UnlaunchableKernelsNameTheParameterAndLimit) {
  const Formula f = find_formula("occupancy");
  auto message = [&](std::map<std::string, std::string> args) {
    args["arch"] = "sm_90";
    try {
      evaluate_formula(f, args);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(message({{"threads", "2048"}, {"regs", "32"}}),
            "--threads 2048 is outside 1 ... 1024 threads per block on sm_90");
  EXPECT_EQ(message({{"threads", "256"}, {"regs", "256"}}),
            "--regs 256 is outside 0 ... 255 registers per thread on sm_90");
  EXPECT_EQ(message({{"threads", "256"}, {"regs", "32"}, {"smem", "228KiB"}}),
            "--smem 233472 bytes exceeds the 227 KiB opt-in limit of shared memory per block on "
            "sm_90");
  EXPECT_EQ(message({{"threads", "256"}, {"regs", "32"}, {"barriers", "17"}}),
            "--barriers 17 is outside 0 ... 16 named barriers per block");
  EXPECT_EQ(message({{"threads", "256"}, {"regs", "32"}, {"smem", "227KiB"}}), "");
}

}  // namespace
}  // namespace bb::theory
