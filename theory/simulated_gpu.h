// Peaks of a GPU simulated by GPGPU-Sim, from the parameters of its own gpgpusim.config (the
// harness parses the file): what the simulator's timing model can deliver at most, not what the
// GPU the config imitates delivers. Formulas only; the derivations are in theory/README.md.
#pragma once

#include "theory/occupancy.h"

namespace bb::theory {

// The config options each peak depends on (names as in gpgpusim.config).
struct SimulatedGpuConfig {
  int clusters = 0;                    // -gpgpu_n_clusters
  int cores_per_cluster = 0;           // -gpgpu_n_cores_per_cluster
  int warp_size = 0;                   // -gpgpu_shader_core_pipeline <threads>:<warp size>
  double core_clock_hz = 0;            // -gpgpu_clock_domains <core>:<icnt>:<L2>:<DRAM>, first
  double dram_clock_hz = 0;            // -gpgpu_clock_domains, fourth: the DRAM command clock
  int sp_units = 0;                    // -gpgpu_num_sp_units (fp32 pipelines per SM)
  int fp32_fma_initiation_cycles = 0;  // -ptx_opcode_initiation_fp, 4th entry (MAD)
  int dp_units = 0;                    // -gpgpu_num_dp_units
  int fp64_fma_initiation_cycles = 0;  // -ptx_opcode_initiation_dp, 4th entry (MAD)
  int tensor_units = 0;                // -gpgpu_num_tensor_core_units (0 unless tensor_core_avail)
  int tensor_initiation_cycles = 0;    // -ptx_opcode_initiation_tensor
  int memory_channels = 0;             // -gpgpu_n_mem
  int chips_per_channel = 0;           // -gpgpu_n_mem_per_ctrlr
  int dram_bus_width_bytes = 0;        // -gpgpu_dram_buswidth (per chip)
  int dram_burst_length = 0;           // -gpgpu_dram_burst_length (transfers per column command)
  int dram_data_command_ratio = 0;     // -dram_data_command_freq_ratio (data transfers per clock)
  int dram_tccd_cycles = 0;            // tCCD of -gpgpu_dram_timing_opt (column-to-column)
};

// SMs = clusters × cores per cluster (GPGPU-Sim's num_shader()).
int simulated_sm_count(const SimulatedGpuConfig& c);

// An SM's pipelines each accept one warp instruction per initiation interval (GPGPU-Sim
// pipelined_simd_unit: the dispatch register holds it that many cycles); an FMA is 2 flop per
// lane: units × warp size × 2 / initiation cycles.
double simulated_fp32_flop_per_clock_per_sm(const SimulatedGpuConfig& c);
double simulated_fp64_flop_per_clock_per_sm(const SimulatedGpuConfig& c);

// A wmma.mma m16n16k16 is one instruction of 2 × 16 × 16 × 16 = 8192 flop (fp16 in, fp32 or fp16
// accumulate): tensor units × 8192 / initiation cycles.
double simulated_tensor_fp16_flop_per_clock_per_sm(const SimulatedGpuConfig& c);

// A column command moves burst length × bus width × chips bytes of one channel and occupies its
// data bus for burst / data-command ratio DRAM clocks; commands are at least tCCD apart
// (GPGPU-Sim dram.cc: dram_atom_size, RTPc, CCDc):
// channels × BL × width × chips / max(BL / ratio, tCCD) × DRAM clock.
double simulated_dram_bytes_per_s(const SimulatedGpuConfig& c);

// The SM limits GPGPU-Sim applies when it places blocks (shader.cc shader_core_config::max_cta,
// which its cudaOccupancyMaxActiveBlocksPerMultiprocessor also calls): threads, block slots
// (-gpgpu_shader_cta) and registers per SM from its config, as cudaGetDeviceProperties reports
// them; registers allocated per thread rounded up to 4 over the warp-padded block (128 per warp,
// no sub-partitions), shared memory with neither the driver's 1 KiB per block nor an allocation
// unit. The rest (shared memory per SM, per-block limits) stay the architecture's `arch`. Its
// deviations from hardware that no limit expresses (dynamic shared memory is not counted) are the
// caller's to name.
SmLimits gpgpusim_sm_limits(const SmLimits& arch, int threads_per_sm, int blocks_per_sm,
                            int registers_per_sm);

}  // namespace bb::theory
