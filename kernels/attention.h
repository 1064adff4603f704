// Attention forward kernels: the naive three-pass version that holds the n×n scores in memory,
// and the IO-aware tiled one with the online softmax that never does. Host (fp32, OpenMP) and CUDA
// (bf16/fp16 in, fp32 accumulation): naive with cuBLAS, fused with tensor cores, decode.
#pragma once

#include <cstddef>
#include <string>

#include "reference/attention.h"

namespace bb::kernels {

// Host, fp32. Naive: S = Q·Kᵀ/√d for every head into `scores` (B·H·n² floats: −inf above the
// diagonal when causal), then the softmax of every row in place, then O = P·V: three passes over
// S, as three GPU kernels would make.
void attention_naive_host(const reference::AttentionDims& s, const float* q, const float* k,
                          const float* v, float* scores, float* o);
// Tiled: blocks of kHostBlockRows query rows against blocks of kHostBlockKeys keys, with a running
// max, sum and accumulator per row (the online softmax); per thread a few KiB of scratch.
inline constexpr std::size_t kHostBlockRows = 32, kHostBlockKeys = 64, kHostMaxHeadDim = 256;
void attention_tiled_host(const reference::AttentionDims& s, const float* q, const float* k,
                          const float* v, float* o);

}  // namespace bb::kernels
