// fp32 sums on the GPU (kernels/reduce.h): the two-pass tree and CUB's DeviceReduce.
#include <cuda_runtime_api.h>

#include <cub/device/device_reduce.cuh>
#include <stdexcept>

#include "base/cuda_check.h"
#include "kernels/reduce.h"

namespace bb::kernels {
namespace {

// The block's threads' values added in a tree: butterflies within each warp (depth 5), then the
// warps' sums in shared memory (depth log2(warps)). Thread 0 returns the sum.
__device__ float block_tree_sum(float v) {
  __shared__ float warp_sums[kReduceThreads / 32];
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xFFFFFFFFu, v, o);
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x / 32] = v;
  __syncthreads();
  for (int s = kReduceThreads / 64; s > 0; s /= 2) {
    if (threadIdx.x < s) warp_sums[threadIdx.x] += warp_sums[threadIdx.x + s];
    __syncthreads();
  }
  return warp_sums[0];
}

__global__ void __launch_bounds__(kReduceThreads)
    reduce_first_pass(const float4* x, std::size_t n4, float* partials) {
  float a = 0, b = 0, c = 0, d = 0;  // one running sum per float4 lane
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
#pragma unroll 4
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n4; i += stride) {
    const float4 v = x[i];
    a += v.x, b += v.y, c += v.z, d += v.w;
  }
  const float s = block_tree_sum((a + b) + (c + d));
  if (threadIdx.x == 0) partials[blockIdx.x] = s;
}

__global__ void __launch_bounds__(kReduceThreads)
    reduce_second_pass(const float* partials, int count, float* out) {
  // count ≤ 256 partials, one per thread (zeros beyond: exact), added in the same tree.
  const float s = block_tree_sum(threadIdx.x < count ? partials[threadIdx.x] : 0.0f);
  if (threadIdx.x == 0) *out = s;
}

}  // namespace

void reduce_tree_cuda(const float* x, std::size_t n, float* partials, float* out,
                      CUstream_st* stream) {
  if (n % 4 != 0) throw std::invalid_argument("reduce_tree_cuda: n must be a multiple of 4");
  const int blocks = reduce_tree_blocks(n);
  reduce_first_pass<<<blocks, kReduceThreads, 0, stream>>>(reinterpret_cast<const float4*>(x),
                                                           n / 4, partials);
  check_launch("reduce_first_pass");
  reduce_second_pass<<<1, kReduceThreads, 0, stream>>>(partials, blocks, out);
  check_launch("reduce_second_pass");
}

std::size_t cub_reduce_temp_bytes(std::size_t n) {
  std::size_t bytes = 0;
  check_cuda(cub::DeviceReduce::Sum(nullptr, bytes, static_cast<const float*>(nullptr),
                                    static_cast<float*>(nullptr), static_cast<long long>(n)),
             "cub::DeviceReduce::Sum (temporary storage size)");
  return bytes;
}

void reduce_cub_cuda(const float* x, std::size_t n, void* temp, std::size_t temp_bytes, float* out,
                     CUstream_st* stream) {
  check_cuda(cub::DeviceReduce::Sum(temp, temp_bytes, x, out, static_cast<long long>(n), stream),
             "cub::DeviceReduce::Sum");
}

}  // namespace bb::kernels
