// Tests for harness/simulated_timing.h: the sizes a case takes on a timing simulator (issue 26).
// A GPU keeps its sizes; on SM7_QV100 (80 SMs, 2048 threads/SM) and SM86_RTX3070 (46, 1536) the
// strided read gives every thread 8 loads at stride 16, the sector model's premise
// (bandwidth_checks.cpp too_few_loads), with 8 KiB in flight per SM at stride 1.
#include "harness/simulated_timing.h"

#include <gtest/gtest.h>

namespace bb {
namespace {

GpuDevice device(int sms, int threads_per_sm, bool simulated, bool timing) {
  GpuDevice d;
  d.sm_count = sms;
  d.max_threads_per_sm = threads_per_sm;
  d.simulated = simulated;
  d.simulated_timing = timing;
  return d;
}

constexpr int kLoads = 8;  // kernels::kStridedLoadsInFlight

TEST(SimulatedTiming, GpuKeepsItsStridedGridAndSize) {
  const GpuDevice h200 = device(132, 2048, false, false);
  const StridedGrid g = strided_grid(h200, std::size_t{1} << 26, 264, kLoads);
  EXPECT_EQ(g.blocks, 264);
  EXPECT_EQ(g.threads_per_block, 1024);
  EXPECT_EQ(g.elements, std::size_t{1} << 26);
  // The functional simulator too: only the timing model changes the grid.
  const GpuDevice functional = device(80, 2048, true, false);
  EXPECT_EQ(strided_grid(functional, std::size_t{1} << 18, 160, kLoads).threads_per_block, 1024);
}

TEST(SimulatedTiming, StridedGridGivesStride16EightLoadsPerThread) {
  // SM7_QV100: 80 x 256 = 20,480 threads need 16 x 8 x 20,480 = 2.6 M elements: 2^22.
  const StridedGrid qv100 =
      strided_grid(device(80, 2048, true, true), std::size_t{1} << 21, 160, kLoads);
  EXPECT_EQ(qv100.blocks, 80);
  EXPECT_EQ(qv100.threads_per_block, 256);
  EXPECT_EQ(qv100.elements, std::size_t{1} << 22);
  // SM86_RTX3070: 46 x 256 = 11,776 threads, 1.5 M elements: the 2^21 floor.
  const StridedGrid rtx =
      strided_grid(device(46, 1536, true, true), std::size_t{1} << 21, 46, kLoads);
  EXPECT_EQ(rtx.elements, std::size_t{1} << 21);
  for (const StridedGrid& g : {qv100, rtx}) {
    EXPECT_GE(static_cast<double>(g.elements / 16) / static_cast<double>(g.threads()), kLoads);
    // Stride 1 keeps 8 warps x 8 loads x 128 B = 8 KiB in flight per SM.
    EXPECT_EQ(g.threads_per_block / 32 * kLoads * 128, 8 * 1024);
  }
  // A larger simulated GPU grows the array rather than starving the threads.
  const StridedGrid big =
      strided_grid(device(132, 2048, true, true), std::size_t{1} << 21, 264, kLoads);
  EXPECT_GE(static_cast<double>(big.elements / 16) / static_cast<double>(big.threads()), kLoads);
}

// Decode's cache: the suite's positions on a GPU, judged from 256 MiB; on a timing simulator 4x
// its L2. SM86_RTX3070's 4 MiB L2: 16 MiB, 512 positions of 32 KiB (B 8, H_kv 8, d 128, K and V
// in bf16: 8 · 8 · 128 · 2 · 2 B); SM7_QV100's 6 MiB: 768; never more than the suite asked for.
TEST(SimulatedTiming, DecodeCacheIsFourL2s) {
  GpuDevice h200 = device(132, 2048, false, false), rtx = device(46, 1536, true, true);
  h200.l2_bytes = 60'000'000;
  rtx.l2_bytes = std::uint64_t{4} << 20;
  constexpr std::size_t kPosition = 8 * 8 * 128 * 2 * 2;
  EXPECT_EQ(decode_positions(&h200, 8192, kPosition), 8192u);
  EXPECT_EQ(decode_judged_kv_bytes(&h200), 268435456.0);
  EXPECT_EQ(decode_positions(&rtx, 8192, kPosition), 512u);
  EXPECT_EQ(decode_judged_kv_bytes(&rtx), 16777216.0);
  GpuDevice qv100 = device(80, 2048, true, true);
  qv100.l2_bytes = std::uint64_t{6} << 20;
  EXPECT_EQ(decode_positions(&qv100, 32768, kPosition), 768u);
  EXPECT_EQ(decode_positions(&qv100, 300, kPosition), 300u);
  // The functional simulator, or no L2 reported: the suite's positions and 256 MiB.
  GpuDevice functional = device(80, 2048, true, false);
  functional.l2_bytes = std::uint64_t{6} << 20;
  EXPECT_EQ(decode_positions(&functional, 8192, kPosition), 8192u);
  EXPECT_EQ(decode_judged_kv_bytes(&functional), 268435456.0);
  rtx.l2_bytes = 0;
  EXPECT_EQ(decode_positions(&rtx, 8192, kPosition), 8192u);
}

TEST(SimulatedTiming, OccupancySizes) {
  const GpuDevice gpu = device(132, 2048, false, false);
  const GpuDevice sim = device(80, 2048, true, true);
  EXPECT_EQ(residency_spin_ns(&gpu), 100'000u);
  EXPECT_EQ(waves_spin_ns(&gpu), 50'000u);
  EXPECT_EQ(chase_steps(&gpu), std::uint64_t{1} << 16);
  EXPECT_EQ(chase_words(&gpu), std::size_t{1} << 27);
  EXPECT_EQ(latency_loads_16b(&gpu, std::size_t{1} << 26), std::size_t{1} << 26);
  EXPECT_EQ(residency_spin_ns(&sim), 10'000u);
  EXPECT_EQ(waves_spin_ns(&sim), 10'000u);
  EXPECT_EQ(chase_steps(&sim), std::uint64_t{1} << 7);
  // The chased table stays >= 8x the largest simulated L2 (SM7_QV100: 6 MiB).
  EXPECT_GE(chase_words(&sim) * 4, std::size_t{8} * 6 * 1024 * 1024);
  // 16 MiB: 2 MiB left a fixed ~5 us of ramp the larger share of the read on SM7_QV100.
  EXPECT_EQ(latency_loads_16b(&sim, std::size_t{1} << 26), std::size_t{1} << 20);
  // No device (nominal sizes): the GPU's.
  EXPECT_EQ(chase_steps(nullptr), std::uint64_t{1} << 16);
}

TEST(SimulatedTiming, BankGridKeepsTheBanksTheLimitInFewCycles) {
  // A GPU (and the functional simulator) keep the grid and reads they are given.
  const GpuDevice h200 = device(132, 2048, false, false);
  EXPECT_EQ(bank_grid(h200, 1056, 4000).blocks, 1056);
  EXPECT_EQ(bank_grid(h200, 1056, 4000).reads_per_thread, 4000);
  EXPECT_EQ(bank_grid(device(80, 2048, true, false), 2, 4000).blocks, 2);
  // SM7_QV100's timing model: 4 blocks of 256 threads per SM = 32 warps, each with 4 reads in
  // flight: 128 outstanding warp-reads per SM against a shared-memory latency of tens of cycles;
  // 32 reads a thread (a multiple of the kernel's 4 accumulators): 1,024 warp-reads per SM.
  const BankGrid g = bank_grid(device(80, 2048, true, true), 2, 4000);
  EXPECT_EQ(g.blocks, 320);
  EXPECT_EQ(g.reads_per_thread, 32);
  EXPECT_EQ(g.reads_per_thread % 4, 0);
  EXPECT_EQ(g.blocks / 80 * 256 / 32 * g.reads_per_thread, 1024);
  // SM86_RTX3070 holds 1536 threads per SM: the 4 blocks (1024 threads) fit.
  const BankGrid rtx = bank_grid(device(46, 1536, true, true), 2, 4000);
  EXPECT_LE(rtx.blocks / 46 * 256, 1536);
}

}  // namespace
}  // namespace bb
