// Tests for harness/gpusim_config: the options of two GPGPU-Sim configs as their gpgpusim.config
// writes them (excerpts of tested-cfgs/SM7_QV100 and SM86_RTX3070, gpgpu-sim_distribution 667834cf:
// comments, a quoted value over two lines, options repeated), and the peaks a device gets from
// them.
#include "harness/gpusim_config.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace bb {
namespace {

constexpr const char* kQv100 = R"(# This config models the Volta
-gpgpu_ptx_sim_mode 0
-gpgpu_n_clusters 80
-gpgpu_n_cores_per_cluster 1
-gpgpu_n_mem 32
-gpgpu_n_sub_partition_per_mchannel 2
#-gpgpu_clock_domains <Core Clock>:<Interconnect Clock>:<L2 Clock>:<DRAM Clock>
-gpgpu_clock_domains 1132.0:1132.0:1132.0:850.0
# -gpgpu_clock_domains 1628.0:1628.0:1628.0:850.0
-gpgpu_shader_core_pipeline 2048:32
-gpgpu_num_sp_units 4
-gpgpu_num_dp_units 4
-gpgpu_tensor_core_avail 1
-gpgpu_num_tensor_core_units 4
-ptx_opcode_initiation_fp 2,2,2,2,4
-ptx_opcode_initiation_dp 4,4,4,4,130
-ptx_opcode_initiation_tensor 64
-gpgpu_n_mem_per_ctrlr 1
-gpgpu_dram_buswidth 16
-gpgpu_dram_burst_length 2
-dram_data_command_freq_ratio 2  # HBM is DDR
-gpgpu_dram_timing_opt "nbk=16:CCD=1:RRD=3:RCD=12:RAS=28:RP=12:RC=40:
                        CL=12:WL=2:CDLR=3:WR=10:nbkgrp=4:CCDL=2:RTPL=3"
)";

constexpr const char* kRtx3070 = R"(-gpgpu_n_clusters 46
-gpgpu_n_cores_per_cluster 1
-gpgpu_n_mem 16
-gpgpu_clock_domains 1132:1132:1132:3500.5
-gpgpu_shader_core_pipeline 1536:32
-gpgpu_num_sp_units 4
-gpgpu_num_dp_units 4
-gpgpu_tensor_core_avail 1
-gpgpu_num_tensor_core_units 4
-ptx_opcode_initiation_fp 1,1,1,1,2
-ptx_opcode_initiation_dp 64,64,64,64,130
-ptx_opcode_initiation_tensor 64
-gpgpu_n_mem_per_ctrlr 1
-gpgpu_dram_buswidth 2
-gpgpu_dram_burst_length 16
-dram_data_command_freq_ratio 4
-gpgpu_dram_timing_opt nbk=16:CCD=4:RRD=12:RCD=24:RAS=55:RP=24:RC=78:CL=24:WL=8:CDLR=10:WR=24:nbkgrp=4:CCDL=6:RTPL=4
)";

TEST(GpusimConfig, Qv100Options) {
  const theory::SimulatedGpuConfig c = parse_gpusim_config(kQv100);
  EXPECT_EQ(c.clusters, 80);
  EXPECT_EQ(c.cores_per_cluster, 1);
  EXPECT_EQ(c.warp_size, 32);
  EXPECT_DOUBLE_EQ(c.core_clock_hz, 1132e6);  // the commented-out 1628 MHz line is ignored
  EXPECT_DOUBLE_EQ(c.dram_clock_hz, 850e6);
  EXPECT_EQ(c.fp32_fma_initiation_cycles, 2);
  EXPECT_EQ(c.fp64_fma_initiation_cycles, 4);
  EXPECT_EQ(c.tensor_units, 4);
  EXPECT_EQ(c.tensor_initiation_cycles, 64);
  EXPECT_EQ(c.memory_channels, 32);
  EXPECT_EQ(c.dram_bus_width_bytes, 16);
  EXPECT_EQ(c.dram_burst_length, 2);
  EXPECT_EQ(c.dram_data_command_ratio, 2);
  EXPECT_EQ(c.dram_tccd_cycles, 1);  // CCD, not CCDL
}

TEST(GpusimConfig, Rtx3070PeaksOnADevice) {
  GpuDevice d;
  d.name = "GPGPU-Sim timing SM86_RTX3070 sm_86 46 SMs 1132 MHz";
  d.bus_width_bits = 352;  // the simulator's placeholder attributes (a GTX 1080 Ti's)
  fill_simulated_peaks(d, parse_gpusim_config(kRtx3070));
  EXPECT_DOUBLE_EQ(d.peak_dram_bytes_per_s, 16 * 8 * 3500.5e6);  // 448.06 GB/s
  EXPECT_EQ(d.bus_width_bits, 256);
  EXPECT_DOUBLE_EQ(d.memory_clock_hz, 7001e6);  // 2 × 7001 MHz × 256 / 8 = 448.06 GB/s
  // 46 SMs × 256 flop/clk × 1132 MHz = 13.33 TFLOP/s fp32; 46 × 512 × 1132 MHz tensor fp16.
  EXPECT_DOUBLE_EQ(d.peak_flop_per_s(theory::Precision::fp32), 46 * 256 * 1132e6);
  EXPECT_DOUBLE_EQ(d.peak_flop_per_s(theory::Precision::fp64), 46 * 4 * 1132e6);
  EXPECT_DOUBLE_EQ(d.peak_flop_per_s(theory::Precision::fp16), 46 * 512 * 1132e6);
  EXPECT_EQ(d.peak_flop_per_s(theory::Precision::bf16), 0);  // no bf16 WMMA in the simulator
}

TEST(GpusimConfig, LaterLinesWinAsInTheSimulator) {
  const std::string text = std::string(kRtx3070) + "-gpgpu_n_clusters 20\n";
  EXPECT_EQ(parse_gpusim_config(text).clusters, 20);
}

TEST(GpusimConfig, MissingOrMalformedOptionsAreNamed) {
  try {
    parse_gpusim_config("-gpgpu_n_clusters 46\n");
    FAIL() << "a config without -gpgpu_n_cores_per_cluster parsed";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("-gpgpu_n_cores_per_cluster"), std::string::npos);
  }
  std::string bad = kRtx3070;
  bad.replace(bad.find("1,1,1,1,2"), 9, "1,1,x,1,2");
  EXPECT_THROW(parse_gpusim_config(bad), std::runtime_error);
  bad = kRtx3070;
  bad.replace(bad.find("1,1,1,1,2"), 9, "1,1,1");  // no 4th (MAD) entry
  EXPECT_THROW(parse_gpusim_config(bad), std::runtime_error);
}

TEST(GpusimConfig, TimedSimulatorByName) {
  EXPECT_TRUE(is_timed_simulator("GPGPU-Sim timing SM7_QV100 sm_70 80 SMs 1132 MHz"));
  EXPECT_TRUE(is_timed_simulator("GPGPU-Sim timing sm_70 80 SMs 1132 MHz"));  // no config name
  EXPECT_FALSE(is_timed_simulator("GPGPU-Sim_vGPGPU-Sim Simulator Version 4.2.0 "));  // functional
  EXPECT_FALSE(is_timed_simulator("NVIDIA H200 timing"));
}

}  // namespace
}  // namespace bb
