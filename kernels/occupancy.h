// Kernels of the occupancy suite (kernels/occupancy.cu): blocks that record where and when they
// ran, a divergent-path kernel and a shared-memory bank-conflict kernel. CUDA builds only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

struct CUstream_st;

namespace bb::kernels {

// Written by thread 0 of every block of the residency kernels.
struct BlockRecord {
  std::uint32_t block;             // blockIdx.x: proves the record was written
  std::uint32_t smid;              // %smid
  std::uint64_t start_ns, end_ns;  // %globaltimer when the block began and ended its spin
};

// light: few registers; heavy: ~64 floats kept live (register-bound at 256 threads).
enum class ResidencyKernel { light, heavy };

struct KernelAttributes {
  int registers = 0;
  std::size_t static_shared_bytes = 0;
  int max_threads_per_block = 0;
};

KernelAttributes residency_attributes(ResidencyKernel k);
// Opts the kernel in to `bytes` of dynamic shared memory (needed above 48 KiB).
void residency_allow_dynamic_shared(ResidencyKernel k, std::size_t bytes);
// cudaOccupancyMaxActiveBlocksPerMultiprocessor for the kernel.
int residency_api_blocks_per_sm(ResidencyKernel k, int threads, std::size_t dynamic_shared);
// Every block holds its SM for `spin_ns` of %globaltimer time, then records itself in out[block].
void residency_launch(ResidencyKernel k, BlockRecord* out, int blocks, int threads,
                      std::size_t dynamic_shared, std::uint64_t spin_ns, CUstream_st* stream);
// The same as a cooperative launch (all blocks co-resident or none); returns "" on success, else
// the CUDA error's name. Waits for the kernel.
std::string residency_cooperative_launch(ResidencyKernel k, BlockRecord* out, int blocks,
                                         int threads, std::size_t dynamic_shared,
                                         std::uint64_t spin_ns);

// Register pressure: 64 accumulators updated `rounds` times. capped = __launch_bounds__(256, 8),
// at most 32 registers per thread, so the array spills to local memory; uncapped has room for it.
// out[thread] = the thread's sum (reference/occupancy.h).
enum class SpillVariant { uncapped, capped };
struct SpillAttributes {
  int registers = 0;
  std::size_t local_bytes = 0;  // per thread: spilled values live here
};
SpillAttributes spill_attributes(SpillVariant v);
void spill_launch(SpillVariant v, float* out, int rounds, int blocks, CUstream_st* stream);
inline constexpr int kSpillThreads = 256;

// Streaming read for latency hiding: each thread sums n16/(grid) 16-byte loads, one load in flight
// per thread (the loop is not unrolled and each sum needs the load before it). dynamic_shared only
// throttles how many blocks fit on an SM. out[block] = the block's sum of x components.
void stream_read_launch(const void* data, std::size_t n16, float* out, int blocks, int threads,
                        std::size_t dynamic_shared, CUstream_st* stream);
void stream_read_allow_dynamic_shared(std::size_t bytes);

// Pointer chase: one thread follows next[] `steps` times from 0; out[0] = where it ended, so each
// load waits for the one before it. Time / steps = latency.
void pointer_chase_launch(const std::uint32_t* next, std::uint64_t steps, std::uint32_t* out,
                          CUstream_st* stream);

// Lane l of each warp takes path l % paths; each path is `iters` dependent FMAs, so a warp runs
// `paths` paths one after another. out[thread] = the lane's result (reference/occupancy.h).
void divergence_launch(float* out, int paths, int iters, int blocks, int threads,
                       CUstream_st* stream);

// Each thread sums `iters` floats of a 1024-word shared array at (lane × stride + i) mod 1024: a
// gcd(stride, 32)-way bank conflict. out[thread] = the sum (reference/occupancy.h).
void bank_conflict_launch(float* out, int stride_words, int iters, int blocks, int threads,
                          CUstream_st* stream);

}  // namespace bb::kernels
