// Integer quantization x ≈ s·(q − z) per tensor, channel or group (theory/quant.h): the per-group
// range, quantize and dequantize. Host (OpenMP); bit-exact with reference/quant.h because they do
// its arithmetic: x / s + z in double, rounded to nearest with ties away from zero (or
// stochastically with the reference's random stream), clamped to [q_min, q_max].
#pragma once

#include <cstddef>
#include <cstdint>

#include "theory/quant.h"

struct CUstream_st;  // cudaStream_t

namespace bb::kernels {

// The range is reduced in chunks of at most 16 Ki elements: a group halved while it is larger and
// even (host and CUDA alike; on the GPU one block per chunk, and per tensor at most that many
// blocks, each with a partial range: 128 for 2^21 values).
inline std::size_t quant_chunk_elements(std::size_t group) {
  std::size_t chunk = group;
  while (chunk > 16384 && chunk % 2 == 0) chunk /= 2;
  return chunk;
}

// Minimum and maximum of each run of `group` consecutive elements (group divides n).
void group_minmax_host(const float* x, std::size_t n, std::size_t group, float* mins, float* maxs);

// Q = std::int8_t (symmetric, q in [−127, 127]) or std::uint8_t (asymmetric, [0, 255]).
template <class Q>
void quantize_host(const float* x, std::size_t n, std::size_t group, const theory::IntQuant* params,
                   bool stochastic, std::uint64_t seed, Q* q);
// The same for groups small enough to stay in cache (per channel, per group): one fused pass,
// each group's min/max, its parameters (theory::int_quant_params of `bits`, `scheme`, into
// `params`, n / group of them) and its codes while the group is still in cache. Bit-exact with
// group_minmax_host + int_quant_params + quantize_host.
template <class Q>
void quantize_groups_host(const float* x, std::size_t n, std::size_t group, int bits,
                          theory::QuantScheme scheme, bool stochastic, std::uint64_t seed, Q* q,
                          theory::IntQuant* params);
template <class Q>
void dequantize_host(const Q* q, std::size_t n, std::size_t group, const theory::IntQuant* params,
                     float* x);

// CUDA (quant.cu): the parameters (`params`, n / group) and the codes of x in one call; int8
// symmetric or asymmetric. Groups of 128·2^k ≤ 4096 (quant_cuda_fused) take one fused pass that
// reads x once; other groups reduce the range first into `chunk_lo`/`chunk_hi` (n /
// quant_chunk_elements(group) floats each; unused by the fused pass) and read x twice.
bool quant_cuda_fused(std::size_t group);
template <class Q>
void quantize_cuda(const float* x, std::size_t n, std::size_t group, bool symmetric,
                   bool stochastic, std::uint64_t seed, float* chunk_lo, float* chunk_hi,
                   theory::IntQuant* params, Q* q, CUstream_st* stream);
template <class Q>
void dequantize_cuda(const Q* q, std::size_t n, std::size_t group, const theory::IntQuant* params,
                     float* x, CUstream_st* stream);

}  // namespace bb::kernels
