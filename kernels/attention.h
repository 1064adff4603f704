// Attention forward kernels: the naive three-pass version that holds the n×n scores in memory,
// and the IO-aware tiled one with the online softmax that never does. Host (fp32, OpenMP) and CUDA
// (bf16/fp16 in, fp32 accumulation): naive with cuBLAS, fused with tensor cores, decode.
#pragma once

#include <cstddef>

#include "reference/attention.h"
#include "theory/attention.h"

struct CUstream_st;  // cudaStream_t

namespace bb::kernels {

// Host, fp32. Naive: S = Q·Kᵀ/√d for every head into `scores` (B·H·n² floats: −inf above the
// diagonal when causal), then the softmax of every row in place, then O = P·V: three passes over
// S, as three GPU kernels would make.
void attention_naive_host(const reference::AttentionDims& s, const float* q, const float* k,
                          const float* v, float* scores, float* o);
// Its n×n matrix (theory/attention.h): S in fp32, P written over it, O in fp32: 4·B·H·n² bytes.
inline constexpr theory::NaiveAttentionLayout kHostNaiveLayout{4, 4, 4, true};
// Tiled: blocks of kHostBlockRows query rows against blocks of kHostBlockKeys keys, with a running
// max, sum and accumulator per row (the online softmax); per thread a few KiB of scratch.
inline constexpr std::size_t kHostBlockRows = 64, kHostBlockKeys = 64, kHostMaxHeadDim = 256;
void attention_tiled_host(const reference::AttentionDims& s, const float* q, const float* k,
                          const float* v, float* o);

// CUDA (attention.cu), bf16 or fp16 inputs, fp32 accumulation and output. Layouts as the reference.
enum class AttentionDtype { bf16, fp16 };
class CublasHandle;  // kernels/intensity.h

// Naive, three kernels: S = Q·Kᵀ/√d with cuBLAS (strided-batched over batch × K/V head: GQA's
// query heads of one group form one matrix) into `scores` (fp32, B·H·n²), a softmax kernel into
// `probs` (the input type, B·H·n², causal mask applied), O = P·V with cuBLAS into `o` (fp32).
void attention_naive_cuda(AttentionDtype t, const reference::AttentionDims& s, const void* q,
                          const void* k, const void* v, float* scores, void* probs, float* o,
                          CublasHandle& handle, CUstream_st* stream);
// Its n×n matrices: S in fp32 and P (2 bytes) beside it, O in fp32: 6·B·H·n² bytes.
inline constexpr theory::NaiveAttentionLayout kCudaNaiveLayout{4, 2, 4, false};
// The naive path's softmax kernel alone (no cuBLAS): `scores` → `probs` as above.
void attention_softmax_cuda(AttentionDtype t, const reference::AttentionDims& s,
                            const float* scores, void* probs, CUstream_st* stream);

// Fused, IO-aware, of the FlashAttention-2 class (attention_flash.cu): one block per
// kFusedBlockRows = 128 query rows of one head (8 warps of 16); K/V tiles of 64 keys by 16-byte
// cp.async, double-buffered, in swizzled shared memory; Q·Kᵀ and P·V on mma.sync m16n8k16 (fp32
// accumulation) fed by ldmatrix, S and P in registers, the online softmax in base 2; the n×n
// matrices never reach HBM. d = 64 or 128; causal (masked tiles skipped); GQA.
inline constexpr std::size_t kFusedBlockRows = 128;
bool attention_fused_supported(std::size_t d);
void attention_fused_cuda(AttentionDtype t, const reference::AttentionDims& s, const void* q,
                          const void* k, const void* v, float* o, CUstream_st* stream);
// The earlier fused kernel, kept to compare against: 64 query rows a block, WMMA 16×16×16 fragments
// loaded from shared memory, S and P through shared memory, element-wise tile loads.
inline constexpr std::size_t kFusedWmmaBlockRows = 64;
void attention_fused_wmma_cuda(AttentionDtype t, const reference::AttentionDims& s, const void* q,
                               const void* k, const void* v, float* o, CUstream_st* stream);

// Decode: one query token per sequence and head (q, o: [B][H][d]) against a contiguous KV cache of
// n ≥ 1 positions ([B][H_kv][n][d]); d = 64 or 128. Split-KV: one block per (batch, K/V head, up
// to 4 query heads of its group, chunk of positions), 16-byte loads, the online softmax per warp,
// merged in the block, then across the chunks by the last block of each to finish, through
// `workspace`: device memory of attention_decode_workspace_bytes(s) bytes (null when that is 0),
// zeroed (cudaMemset) before its first call; every call leaves its counts at zero again. One call
// at a time per workspace (two at once, e.g. on two streams, would leave a count off zero and every
// later call's output unwritten). The plan depends on the shape and on the current device (its
// slots: SMs × resident blocks): ask for the workspace size on the device that runs the kernel.
std::size_t attention_decode_workspace_bytes(const reference::AttentionDims& s);
void attention_decode_cuda(AttentionDtype t, const reference::AttentionDims& s, const void* q,
                           const void* k, const void* v, float* o, void* workspace,
                           CUstream_st* stream);
// The same with a workspace of its own, allocated and freed around the call (cudaMalloc, cudaFree:
// it synchronises; for tests and one-off calls, never for a timed loop).
void attention_decode_cuda(AttentionDtype t, const reference::AttentionDims& s, const void* q,
                           const void* k, const void* v, float* o, CUstream_st* stream);

}  // namespace bb::kernels
