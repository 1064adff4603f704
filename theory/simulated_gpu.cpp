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

// GPGPU-Sim shader.cc max_cta: min(threads / padded block, shmem / static smem, registers /
// (padded block × regs rounded up to 4), -gpgpu_shader_cta).
SmLimits gpgpusim_sm_limits(const SmLimits& arch, int threads_per_sm, int blocks_per_sm,
                            int registers_per_sm) {
  SmLimits s = arch;
  s.max_threads_per_sm = threads_per_sm;
  s.max_blocks_per_sm = blocks_per_sm;
  s.registers_per_sm = registers_per_sm;
  s.register_allocation_unit = 4 * s.warp_size;
  s.sub_partitions = 1;
  s.shared_allocation_unit_bytes = 1;
  s.reserved_shared_per_block_bytes = 0;
  s.source = "GPGPU-Sim gpgpusim.config limits, shader.cc max_cta allocation";
  return s;
}

}  // namespace bb::theory
