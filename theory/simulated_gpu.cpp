#include "theory/simulated_gpu.h"

#include <algorithm>

namespace bb::theory {

// num_shader() = n_simt_clusters × n_simt_cores_per_cluster (GPGPU-Sim shader.h).
int simulated_sm_count(const SimulatedGpuConfig& c) { return c.clusters * c.cores_per_cluster; }

// units × warp lanes / initiation interval FMAs per clock, 2 flop each (pipelined_simd_unit).
double simulated_fp32_flop_per_clock_per_sm(const SimulatedGpuConfig& c) {
  if (c.fp32_fma_initiation_cycles <= 0) return 0;
  return 2.0 * c.sp_units * c.warp_size / c.fp32_fma_initiation_cycles;
}

double simulated_fp64_flop_per_clock_per_sm(const SimulatedGpuConfig& c) {
  if (c.fp64_fma_initiation_cycles <= 0) return 0;
  return 2.0 * c.dp_units * c.warp_size / c.fp64_fma_initiation_cycles;
}

// 2 × 16³ flop per wmma.mma.m16n16k16 per tensor unit per initiation interval (TENSOR_CORE_OP).
double simulated_tensor_fp16_flop_per_clock_per_sm(const SimulatedGpuConfig& c) {
  if (c.tensor_initiation_cycles <= 0) return 0;
  return 2.0 * 16 * 16 * 16 * c.tensor_units / c.tensor_initiation_cycles;
}

// channels × (BL × bus width × chips) bytes per max(BL / ratio, tCCD) DRAM clocks (dram.cc).
double simulated_dram_bytes_per_s(const SimulatedGpuConfig& c) {
  if (c.dram_data_command_ratio <= 0) return 0;
  const double bus_clocks =
      std::max(static_cast<double>(c.dram_burst_length) / c.dram_data_command_ratio,
               static_cast<double>(c.dram_tccd_cycles));
  if (bus_clocks <= 0) return 0;
  const double bytes_per_command =
      static_cast<double>(c.dram_burst_length) * c.dram_bus_width_bytes * c.chips_per_channel;
  return c.memory_channels * bytes_per_command / bus_clocks * c.dram_clock_hz;
}

}  // namespace bb::theory
