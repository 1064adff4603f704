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

// Lane l of each warp takes path l % paths; each path is `iters` dependent FMAs, so a warp runs
// `paths` paths one after another. out[thread] = the lane's result (reference/occupancy.h).
void divergence_launch(float* out, int paths, int iters, int blocks, int threads,
                       CUstream_st* stream);

// Each thread sums `iters` floats of a 1024-word shared array at (lane × stride + i) mod 1024: a
// gcd(stride, 32)-way bank conflict. out[thread] = the sum (reference/occupancy.h).
void bank_conflict_launch(float* out, int stride_words, int iters, int blocks, int threads,
                          CUstream_st* stream);

}  // namespace bb::kernels
