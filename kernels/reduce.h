// fp32 sums on the GPU, judged like the host summations (theory/summation.h):
// - `tree`: boundbench's deterministic two-pass reduction. Each of T threads keeps four running
//   sums (one per float4 lane) over its grid-stride slice, adds them pairwise, the block adds its
//   threads' sums in a tree (warp shuffles, then shared memory), a second pass adds the blocks'
//   partials in a tree. No term passes through more than h = ⌈n/4T⌉ − 1 + 2 + log2 T additions
//   (reduce_tree_height).
// - `cub`: CUB's DeviceReduce::Sum, whose order is not documented: held to the any-order bound.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>

struct CUstream_st;  // cudaStream_t

namespace bb::kernels {

inline constexpr int kReduceThreads = 256;  // per block, both passes
inline constexpr int kReduceMaxBlocks = 256;

// Blocks of the first pass for n elements: enough for one float4 per thread, at most 256.
inline int reduce_tree_blocks(std::size_t n) {
  const std::size_t per_block = std::size_t{kReduceThreads} * 4;
  const std::size_t b = (n + per_block - 1) / per_block;
  return static_cast<int>(b < 1 ? 1 : b > kReduceMaxBlocks ? kReduceMaxBlocks : b);
}
// Whether every lane holds at most 4 values (n ≤ 2^20): the sum is then a tree, whose error grows
// like pairwise summation's; beyond, the lanes' running sums grow like recursive summation's.
inline bool reduce_is_tree(std::size_t n) {
  return n <= std::size_t{4} * 4 * kReduceThreads * static_cast<std::size_t>(reduce_tree_blocks(n));
}

// The longest chain of additions any term passes through (the tree's height): the lane's running
// sum, the pairwise add of four lanes, the block's tree (log2 256), the second pass's (log2 256).
inline double reduce_tree_height(std::size_t n) {
  const double threads = static_cast<double>(reduce_tree_blocks(n)) * kReduceThreads;
  const double per_lane = std::ceil(static_cast<double>(n) / (4 * threads));
  return std::max(per_lane - 1, 0.0) + 2 + std::log2(static_cast<double>(kReduceThreads)) +
         std::log2(static_cast<double>(kReduceMaxBlocks));
}

// n a multiple of 4; `partials`: reduce_tree_blocks(n) floats of scratch; the sum lands in *out.
void reduce_tree_cuda(const float* x, std::size_t n, float* partials, float* out,
                      CUstream_st* stream);

// CUB: `temp` of cub_reduce_temp_bytes(n) bytes.
std::size_t cub_reduce_temp_bytes(std::size_t n);
void reduce_cub_cuda(const float* x, std::size_t n, void* temp, std::size_t temp_bytes, float* out,
                     CUstream_st* stream);

}  // namespace bb::kernels
