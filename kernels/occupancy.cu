// Occupancy-suite kernels. Versions: residency light/heavy (1), divergence (1), bank conflicts (1).
#include <algorithm>
#include <cstdint>

#include "base/cuda_check.h"
#include "base/device_timers.cuh"
#include "kernels/occupancy.h"

namespace bb::kernels {
namespace {

// Thread 0 holds the block on its SM for spin_ns; the others wait at the barrier.
__device__ inline void hold_and_record(BlockRecord* out, std::uint64_t spin_ns) {
  __shared__ std::uint64_t start;
  if (threadIdx.x == 0) {
    start = global_timer_ns();
    while (global_timer_ns() - start < spin_ns) {
    }
  }
  __syncthreads();
  if (threadIdx.x == 0 && out) {
    BlockRecord r;
    r.block = blockIdx.x;
    r.smid = sm_id();
    r.start_ns = start;
    r.end_ns = global_timer_ns();
    out[blockIdx.x] = r;
  }
}

// Dynamic shared memory, when launched with some, is held by the block whether touched or not.
__global__ void residency_light(BlockRecord* out, std::uint64_t spin_ns) {
  hold_and_record(out, spin_ns);
}

// 64 accumulators, each round reading its neighbour's previous value, stay live across rounds:
// the kernel needs ~64+ registers per thread, so at 256 threads registers bind.
__global__ void __launch_bounds__(256) residency_heavy(BlockRecord* out, std::uint64_t spin_ns) {
  float acc[64];
  const float seed = __fmul_rn(static_cast<float>(threadIdx.x), 1e-3f);
#pragma unroll
  for (int j = 0; j < 64; ++j) acc[j] = __fadd_rn(seed, static_cast<float>(j));
#pragma unroll
  for (int round = 0; round < 8; ++round) {
    float first = acc[0];
#pragma unroll
    for (int j = 0; j < 63; ++j) acc[j] = fmaf(acc[j], 0.999f, acc[j + 1]);
    acc[63] = fmaf(acc[63], 0.999f, first);
  }
  hold_and_record(out, spin_ns);
  float sum = 0;
#pragma unroll
  for (int j = 0; j < 64; ++j) sum += acc[j];
  if (sum == -1.0f && out)
    out[blockIdx.x].smid = ~0u;  // never true for these values: keeps the work
}

template <int MinBlocks>
__global__ void __launch_bounds__(256, MinBlocks) spill_kernel(float* out, int rounds) {
  const int tid = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  float acc[64];
  // Explicit roundings (__fmul_rn, __fadd_rn, __fsub_rn): no contraction into FMAs that the
  // reference would not do. Each round moves every value halfway to its neighbour: bounded.
  const float seed = __fmul_rn(static_cast<float>(tid), 1e-3f);
#pragma unroll
  for (int j = 0; j < 64; ++j) acc[j] = __fadd_rn(seed, static_cast<float>(j));
#pragma unroll 1
  for (int r = 0; r < rounds; ++r) {
    const float first = acc[0];
#pragma unroll
    for (int j = 0; j < 63; ++j) acc[j] = fmaf(__fsub_rn(acc[j + 1], acc[j]), 0.5f, acc[j]);
    acc[63] = fmaf(__fsub_rn(first, acc[63]), 0.5f, acc[63]);
  }
  float sum = 0;
#pragma unroll
  for (int j = 0; j < 64; ++j) sum += acc[j];
  out[tid] = sum;
}

__global__ void stream_read_kernel(const float4* __restrict__ data, std::size_t n16,
                                   float* __restrict__ out) {
  extern __shared__ float block_sum[];  // sized to throttle occupancy; only [0] is used
  float acc = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
#pragma unroll 1
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n16;
       i += stride)
    acc += data[i].x;  // one 16-byte load in flight: the add waits for it
  if (threadIdx.x == 0) block_sum[0] = 0;
  __syncthreads();
  atomicAdd(&block_sum[0], acc);
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = block_sum[0];
}

__global__ void pointer_chase_kernel(const std::uint32_t* __restrict__ next, std::uint64_t steps,
                                     std::uint32_t* out) {
  std::uint32_t p = 0;
  for (std::uint64_t s = 0; s < steps; ++s) p = next[p];
  *out = p;
}

__global__ void divergence_kernel(float* out, int paths, int iters) {
  const int lane = threadIdx.x & 31;
  float x = __fadd_rn(1.0f, __fmul_rn(static_cast<float>(lane), 1e-3f));
  const int mine = lane % paths;
  for (int p = 0; p < paths; ++p) {  // uniform loop; the branch inside diverges
    if (mine == p) {
      const float c = __fmul_rn(1e-4f, static_cast<float>(p + 1));
      for (int i = 0; i < iters; ++i) x = fmaf(x, 0.9999f, c);
    }
  }
  out[static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = x;
}

__global__ void bank_conflict_kernel(float* out, int stride, int iters) {
  __shared__ float words[1024];
  for (int j = threadIdx.x; j < 1024; j += blockDim.x) words[j] = static_cast<float>((j * 7) % 13);
  __syncthreads();
  const int base = (threadIdx.x & 31) * stride;
  float a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  for (int i = 0; i < iters; i += 4) {
    a0 += words[(base + i) & 1023];
    a1 += words[(base + i + 1) & 1023];
    a2 += words[(base + i + 2) & 1023];
    a3 += words[(base + i + 3) & 1023];
  }
  out[static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = (a0 + a1) + (a2 + a3);
}

// Both residency kernels take (BlockRecord*, uint64_t); the spill kernels (float*, int).
using ResidencyFn = void (*)(BlockRecord*, std::uint64_t);
ResidencyFn kernel_of(ResidencyKernel k) {
  return k == ResidencyKernel::light ? residency_light : residency_heavy;
}
using SpillFn = void (*)(float*, int);
SpillFn kernel_of(SpillVariant v) {
  return v == SpillVariant::capped ? spill_kernel<8> : spill_kernel<1>;
}

}  // namespace

KernelAttributes residency_attributes(ResidencyKernel k) {
  cudaFuncAttributes a{};
  check_cuda(cudaFuncGetAttributes(&a, kernel_of(k)), "cudaFuncGetAttributes");
  return {a.numRegs, a.sharedSizeBytes, a.maxThreadsPerBlock};
}

void residency_allow_dynamic_shared(ResidencyKernel k, std::size_t bytes) {
  check_cuda(cudaFuncSetAttribute(kernel_of(k), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(bytes)),
             "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)");
}

int residency_api_blocks_per_sm(ResidencyKernel k, int threads, std::size_t dynamic_shared) {
  int blocks = 0;
  check_cuda(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel_of(k), threads, dynamic_shared),
      "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  return blocks;
}

void residency_launch(ResidencyKernel k, BlockRecord* out, int blocks, int threads,
                      std::size_t dynamic_shared, std::uint64_t spin_ns, CUstream_st* stream) {
  kernel_of(k)<<<blocks, threads, dynamic_shared, stream>>>(out, spin_ns);
  check_launch("residency kernel");
}

std::string residency_cooperative_launch(ResidencyKernel k, BlockRecord* out, int blocks,
                                         int threads, std::size_t dynamic_shared,
                                         std::uint64_t spin_ns) {
  void* args[] = {&out, &spin_ns};
  const cudaError_t err = cudaLaunchCooperativeKernel(
      kernel_of(k), dim3(static_cast<unsigned>(blocks)), dim3(static_cast<unsigned>(threads)), args,
      dynamic_shared, nullptr);
  if (err != cudaSuccess) {
    cudaGetLastError();  // a refused launch is the answer, not a sticky error
    return cudaGetErrorName(err);
  }
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize (cooperative launch)");
  return "";
}

SpillAttributes spill_attributes(SpillVariant v) {
  cudaFuncAttributes a{};
  check_cuda(cudaFuncGetAttributes(&a, kernel_of(v)), "cudaFuncGetAttributes(spill_kernel)");
  return {a.numRegs, a.localSizeBytes};
}

void spill_launch(SpillVariant v, float* out, int rounds, int blocks, CUstream_st* stream) {
  kernel_of(v)<<<blocks, kSpillThreads, 0, stream>>>(out, rounds);
  check_launch("spill_kernel");
}

void stream_read_allow_dynamic_shared(std::size_t bytes) {
  check_cuda(cudaFuncSetAttribute(&stream_read_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(bytes)),
             "cudaFuncSetAttribute(stream_read_kernel)");
}

void stream_read_launch(const void* data, std::size_t n16, float* out, int blocks, int threads,
                        std::size_t dynamic_shared, CUstream_st* stream) {
  stream_read_kernel<<<blocks, threads, std::max<std::size_t>(dynamic_shared, sizeof(float)),
                       stream>>>(static_cast<const float4*>(data), n16, out);
  check_launch("stream_read_kernel");
}

void pointer_chase_launch(const std::uint32_t* next, std::uint64_t steps, std::uint32_t* out,
                          CUstream_st* stream) {
  pointer_chase_kernel<<<1, 1, 0, stream>>>(next, steps, out);
  check_launch("pointer_chase_kernel");
}

void divergence_launch(float* out, int paths, int iters, int blocks, int threads,
                       CUstream_st* stream) {
  divergence_kernel<<<blocks, threads, 0, stream>>>(out, paths, iters);
  check_launch("divergence_kernel");
}

void bank_conflict_launch(float* out, int stride_words, int iters, int blocks, int threads,
                          CUstream_st* stream) {
  bank_conflict_kernel<<<blocks, threads, 0, stream>>>(out, stride_words, iters);
  check_launch("bank_conflict_kernel");
}

}  // namespace bb::kernels
