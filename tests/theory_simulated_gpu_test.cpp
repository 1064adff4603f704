// Tests for theory/simulated_gpu: the peaks of two GPGPU-Sim configs worked by hand from their
// gpgpusim.config (tested-cfgs of gpgpu-sim_distribution 667834cf), held against the published
// figures of the GPUs they imitate where the config models them at that rate.
#include "theory/simulated_gpu.h"

#include <gtest/gtest.h>

namespace bb::theory {
namespace {

// SM7_QV100: 80 clusters × 1 core, 1132:1132:1132:850 MHz, 4 SP units at initiation 2 (fp MAD),
// 4 DP units at 4, 4 tensor units at 64, 32 channels × 1 chip × 16 B, BL 2, ratio 2, tCCD 1.
SimulatedGpuConfig qv100() {
  return {.clusters = 80,
          .cores_per_cluster = 1,
          .warp_size = 32,
          .core_clock_hz = 1132e6,
          .dram_clock_hz = 850e6,
          .sp_units = 4,
          .fp32_fma_initiation_cycles = 2,
          .dp_units = 4,
          .fp64_fma_initiation_cycles = 4,
          .tensor_units = 4,
          .tensor_initiation_cycles = 64,
          .memory_channels = 32,
          .chips_per_channel = 1,
          .dram_bus_width_bytes = 16,
          .dram_burst_length = 2,
          .dram_data_command_ratio = 2,
          .dram_tccd_cycles = 1};
}

// SM86_RTX3070: 46 × 1, 1132:1132:1132:3500.5 MHz, SP at initiation 1, DP at 64, tensor 4 at 64,
// 16 channels × 1 chip × 2 B, BL 16, ratio 4 (GDDR6), tCCD 4.
SimulatedGpuConfig rtx3070() {
  return {.clusters = 46,
          .cores_per_cluster = 1,
          .warp_size = 32,
          .core_clock_hz = 1132e6,
          .dram_clock_hz = 3500.5e6,
          .sp_units = 4,
          .fp32_fma_initiation_cycles = 1,
          .dp_units = 4,
          .fp64_fma_initiation_cycles = 64,
          .tensor_units = 4,
          .tensor_initiation_cycles = 64,
          .memory_channels = 16,
          .chips_per_channel = 1,
          .dram_bus_width_bytes = 2,
          .dram_burst_length = 16,
          .dram_data_command_ratio = 4,
          .dram_tccd_cycles = 4};
}

TEST(SimulatedGpu, Qv100ByHand) {
  const SimulatedGpuConfig c = qv100();
  EXPECT_EQ(simulated_sm_count(c), 80);
  // 4 × 32 / 2 = 64 FMA lanes (V100: 64 fp32 cores per SM) = 128 flop/clk; × 80 × 1.132 GHz.
  EXPECT_DOUBLE_EQ(simulated_fp32_flop_per_clock_per_sm(c), 128);
  EXPECT_DOUBLE_EQ(simulated_fp64_flop_per_clock_per_sm(c), 64);  // 32 fp64 lanes, as V100
  // 4 × 8192 / 64 = 512 flop/clk: half of V100's 8 tensor cores × 64 FMA × 2 = 1024.
  EXPECT_DOUBLE_EQ(simulated_tensor_fp16_flop_per_clock_per_sm(c), 512);
  // 32 channels × (2 × 16 B) per max(2 / 2, 1) = 1 clock × 850 MHz = 870.4 GB/s (Quadro GV100
  // datasheet: 870 GB/s).
  EXPECT_DOUBLE_EQ(simulated_dram_bytes_per_s(c), 870.4e9);
}

TEST(SimulatedGpu, Rtx3070ByHand) {
  const SimulatedGpuConfig c = rtx3070();
  EXPECT_EQ(simulated_sm_count(c), 46);
  // 4 × 32 / 1 = 128 lanes (GA104: 128 fp32 per SM); 46 × 256 × 1.725 GHz boost = 20.3 TFLOP/s
  // (NVIDIA's RTX 3070 figure); the config clocks it at 1132 MHz: 13.33 TFLOP/s.
  EXPECT_DOUBLE_EQ(simulated_fp32_flop_per_clock_per_sm(c), 256);
  EXPECT_DOUBLE_EQ(simulated_fp64_flop_per_clock_per_sm(c), 4);  // 1/64 of fp32, as GA10x
  EXPECT_DOUBLE_EQ(simulated_tensor_fp16_flop_per_clock_per_sm(c), 512);
  // 16 × (16 × 2 B) per max(16 / 4, 4) = 4 clocks × 3500.5 MHz = 448.06 GB/s (RTX 3070: 14 Gbps
  // × 256 bits / 8 = 448 GB/s).
  EXPECT_DOUBLE_EQ(simulated_dram_bytes_per_s(c), 16 * 8 * 3500.5e6);
  EXPECT_NEAR(simulated_dram_bytes_per_s(c), 448e9, 0.1e9);
}

TEST(SimulatedGpu, TccdLimitsCommandsWhenLongerThanTheBurst) {
  SimulatedGpuConfig c = rtx3070();
  c.dram_tccd_cycles = 8;  // column commands 8 clocks apart, bursts 4 long: half the bandwidth
  EXPECT_DOUBLE_EQ(simulated_dram_bytes_per_s(c), 16 * 4 * 3500.5e6);
}

TEST(SimulatedGpu, UnsetRatesGiveZeroNotInfinity) {
  const SimulatedGpuConfig c{};
  EXPECT_EQ(simulated_fp32_flop_per_clock_per_sm(c), 0);
  EXPECT_EQ(simulated_tensor_fp16_flop_per_clock_per_sm(c), 0);
  EXPECT_EQ(simulated_dram_bytes_per_s(c), 0);
}

// GPGPU-Sim's block placement (shader.cc max_cta), worked by hand for SM86_RTX3070's config
// (1536 threads, -gpgpu_shader_cta 32, 65536 registers per SM, 100 KiB shared memory).
TEST(GpgpusimSmLimits, ConfigLimitsAndAllocationRules) {
  const SmLimits& ga10x = *find_sm_limits(8, 6);
  const SmLimits sim = gpgpusim_sm_limits(ga10x, 1536, 32, 65536);
  KernelResources k;
  // 32-thread blocks: 1536 / 32 = 48 by threads, 32 block slots in the config (an sm_86 GPU: 16).
  k.threads_per_block = 32;
  k.registers_per_thread = 16;
  EXPECT_EQ(occupancy(ga10x, k).blocks_per_sm, 16);
  EXPECT_EQ(occupancy(sim, k).blocks_per_sm, 32);
  // 20 KiB of static shared memory at 256 threads: 100 KiB / 20 KiB = 5 there (a GPU adds 1 KiB
  // per block: 4).
  k.threads_per_block = 256;
  k.static_shared_bytes = 20 * 1024;
  EXPECT_EQ(occupancy(ga10x, k).blocks_per_sm, 4);
  EXPECT_EQ(occupancy(sim, k).blocks_per_sm, 5);
  // SM7_QV100's config (2048 threads, 32 slots): 36 registers x 256 threads, the simulator
  // allocates 36 per thread, 65536 / 9216 = 7 blocks; a GPU 256 registers per warp in each of 4
  // sub-partitions: 1280 per warp, 12 warps per sub-partition, 48 / 8 = 6. 37 round up to 40
  // there: 65536 / 10240 = 6.
  const SmLimits& volta = *find_sm_limits(7, 0);
  const SmLimits qv100 = gpgpusim_sm_limits(volta, 2048, 32, 65536);
  k.static_shared_bytes = 0;
  k.registers_per_thread = 36;
  EXPECT_EQ(occupancy(volta, k).blocks_per_sm, 6);
  EXPECT_EQ(occupancy(qv100, k).blocks_per_sm, 7);
  k.registers_per_thread = 37;
  EXPECT_EQ(occupancy(qv100, k).blocks_per_sm, 6);
}

}  // namespace
}  // namespace bb::theory
