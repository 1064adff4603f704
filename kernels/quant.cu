// Integer quantization on the GPU, the same arithmetic as quant_host.cpp and reference/quant.h.
//   1. Fused (groups of 128 · 2^k up to 4096, 16-byte aligned): one pass. A block of 256 threads
//      takes a tile of 4096 values, four 16-byte loads per thread issued before any use (the
//      next tile loaded ahead too, four blocks an SM, took 64 K cycles a call on a simulated RTX
//      3070, against 51 K before); each warp reduces its 128 values per load, one thread per
//      group turns the warps' ranges into the group's parameters (theory/quant.h), and the codes
//      leave from the registers: x read once.
//   2. Otherwise (per tensor, per channel past 4096, odd groups): the range (per tensor: partial
//      ranges in grid-stride order, then each block of the next pass takes the parameters from
//      them, no launch of their own; else in chunks of ≤ 16 Ki values, then the groups'
//      parameters), and a quantize pass, 16-byte loads four deep when the group is a multiple of
//      4, scalar otherwise: x read twice.
// The parameters need no fp64 divide (int_quant_params_device): the scale is Markstein's quotient
// by the constant 127 or 255, the zero point rounded in fp32 unless near a tie.
// Round to nearest decides in fp32 (kernels/quant_host_avx512.cpp's argument): v' = fma(x, fl(1/s),
// z), clamped, is within 2^-14 of x / s + z for |v| ≤ 256 (fl(1/s) from the fp32 reciprocal of
// fl(s): two roundings), so rint(v') is the reference's code wherever v' lies farther than 2^-12
// from a half-integer; a value that close, and every stochastic rounding, takes the fp64 path.
// There x / s is never an fp64 divide per value: q = x·(1/s) corrected twice with fused
// multiply-adds (Markstein), which is x / s correctly rounded, so the codes are the reference's
// bit for bit. (fp64 runs at 1/64 of fp32's rate on consumer parts: 9 fp64 operations per value
// made the quantize pass compute-bound there.)
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "base/cuda_check.h"
#include "kernels/quant.h"
#include "reference/quant.h"

namespace bb::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kLoadsPerThread = 4;  // float4 loads in flight
constexpr std::size_t kTile = std::size_t{kThreads} * 4 * kLoadsPerThread;  // 4096 values
constexpr unsigned kFullMask = 0xFFFFFFFFu;

// x / s correctly rounded without a divide: q0 = x·y (y = RN(1/s)) is within 1.5 ulp; one
// correction q + (x − s·q)·y (the residual exact in an FMA) makes it faithful, and a second is
// RN(x / s) (Markstein's theorem: y within half an ulp of 1/s, q faithful). For codes |x/s| ≤ 255
// and s is far from the double range's ends; for the parameters x is a float's range and s 127 or
// 255: nothing under- or overflows either way.
__device__ double quotient(double x, double s, double y) {
  double q = __dmul_rn(x, y);
  q = fma(fma(-q, s, x), y, q);
  return fma(fma(-q, s, x), y, q);
}

// llround(a / s) for 0 ≤ a / s ≤ 255 (a a float's value): fp32 decides where its quotient lies
// farther than 2^-12 from a half-integer (fl(a)·fl(1/fl(s)) errs by ≤ 4·2^-24 relative, under
// 2^-14 at 255), the reference's fp64 divide decides the rest (ties included).
__device__ std::int64_t rounded_quotient(double a, double s) {
  if (s >= 0x1p-120 && s <= 0x1p120) {
    const float v = __fmul_rn(static_cast<float>(a), __frcp_rn(__double2float_rn(s)));
    const float r = rintf(v);
    if (fabsf(fabsf(v - r) - 0.5f) > 0x1p-12f) return static_cast<std::int64_t>(r);
  }
  return llround(a / s);
}

// a / b for the constant b = 127 or 255 (y = RN(1/b), folded at compile time): Markstein's
// quotient (5 fp64 operations) where a is finite, the divide otherwise (inf / b stays inf).
__device__ double divided_by(double a, double b, double y) {
  return isfinite(a) ? quotient(a, b, y) : a / b;
}

// theory::int_quant_params, on the device (theory/ has no CUDA), for a float range: its scale
// without an fp64 divide and its zero point in fp32 where that is provably the same (fp64 runs at
// 1/64 of fp32's rate on consumer parts; the group's parameters stand between its range and its
// codes). The GPU test compares the two over many ranges, near-ties of the zero point included.
__device__ theory::IntQuant int_quant_params_device(float min, float max, bool symmetric) {
  theory::IntQuant p;
  if (symmetric) {
    p.q_max = 127, p.q_min = -127, p.zero_point = 0;
    const double amax = fmax(fabs(double{min}), fabs(double{max}));
    p.scale = amax > 0 ? divided_by(amax, 127.0, 1.0 / 127.0) : 1.0;
    return p;
  }
  p.q_min = 0, p.q_max = 255;
  const double lo = fmin(double{min}, 0.0), hi = fmax(double{max}, 0.0);
  p.scale = hi > lo ? divided_by(hi - lo, 255.0, 1.0 / 255.0) : 1.0;
  p.zero_point = rounded_quotient(-lo, p.scale);
  return p;
}

// A group's parameters as the quantize step uses them: s and, for the fp64 path of stochastic
// rounding, 1/s (rounded once; `with_inverse`); for the fp32 path fl(1/fl(s)), z and the clamp
// bounds, where that path's bound holds (`fast`: fl(s) normal, at most 256 codes, z among them).
struct Step {
  double scale, inv_scale, zero_point, q_min, q_max;
  float inv32, z32, lo32, hi32;
  bool fast;
};

__device__ Step step_of(const theory::IntQuant& p, bool with_inverse) {
  const bool fast = p.scale >= 0x1p-120 && p.scale <= 0x1p120 && p.q_max - p.q_min <= 255 &&
                    p.zero_point >= p.q_min && p.zero_point <= p.q_max;
  return {p.scale,
          with_inverse ? 1.0 / p.scale : 0.0,
          static_cast<double>(p.zero_point),
          static_cast<double>(p.q_min),
          static_cast<double>(p.q_max),
          fast ? __frcp_rn(__double2float_rn(p.scale)) : 0.0f,
          static_cast<float>(p.zero_point),
          static_cast<float>(p.q_min),
          static_cast<float>(p.q_max),
          fast};
}

// The code of value x, element i: x / s + z, rounded (ties away from zero, as std::llround, or
// stochastically with the reference's stream), clamped.
__device__ int code_of(float x, const Step& p, bool stochastic, std::uint64_t seed,
                       std::uint64_t i) {
  if (!stochastic && p.fast) {
    const float v = fminf(fmaxf(__fmaf_rn(x, p.inv32, p.z32), p.lo32), p.hi32);
    const float r = rintf(v);
    if (fabsf(fabsf(v - r) - 0.5f) > 0x1p-12f) return static_cast<int>(r);
  }
  const double inv = stochastic ? p.inv_scale : 1.0 / p.scale;  // nearest: a value in ~2^11
  const double v = __dadd_rn(quotient(x, p.scale, inv), p.zero_point);
  const double r = stochastic ? reference::round_stochastic(v, seed, i) : round(v);
  return static_cast<int>(fmin(fmax(r, p.q_min), p.q_max));
}

// Four codes as one 4-byte store (uchar4: a vector store of four bytes in PTX; packing them into
// a word with shifts compiles to prmt, which GPGPU-Sim's functional model gets wrong).
__device__ uchar4 pack4(float4 v, const Step& p, bool stochastic, std::uint64_t seed,
                        std::uint64_t i) {
  const auto byte = [](int c) {
    return static_cast<unsigned char>(c);
  };  // int8 as two's complement
  return make_uchar4(byte(code_of(v.x, p, stochastic, seed, i)),
                     byte(code_of(v.y, p, stochastic, seed, i + 1)),
                     byte(code_of(v.z, p, stochastic, seed, i + 2)),
                     byte(code_of(v.w, p, stochastic, seed, i + 3)));
}

// 1. Fused: thread t of a tile holds float4s t + 256·k (k < 4); float4s 32w … 32w + 31 of load k
// are warp w's, 128 values inside one group (the group is a multiple of 128 dividing the tile).
template <class Q>
__global__ void __launch_bounds__(kThreads)
    fused_quantize(const float4* x, std::size_t n, std::size_t group, bool symmetric,
                   bool stochastic, std::uint64_t seed, theory::IntQuant* params, Q* q) {
  constexpr int kWarps = kThreads / 32, kParts = kLoadsPerThread * kWarps;
  __shared__ float s_lo[kParts], s_hi[kParts];
  __shared__ Step s_step[kParts];  // ≤ 32 groups per tile
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int parts_per_group = static_cast<int>(group / 128);
  for (std::size_t base = blockIdx.x * kTile; base < n; base += std::size_t{gridDim.x} * kTile) {
    const std::size_t base4 = base / 4, rest4 = (n - base) / 4;
    float4 v[kLoadsPerThread];
#pragma unroll
    for (int k = 0; k < kLoadsPerThread; ++k) {
      const std::size_t j = static_cast<std::size_t>(k) * kThreads + threadIdx.x;
      v[k] = j < rest4 ? x[base4 + j] : make_float4(0, 0, 0, 0);
    }
#pragma unroll
    for (int k = 0; k < kLoadsPerThread; ++k) {
      float lo = fminf(fminf(v[k].x, v[k].y), fminf(v[k].z, v[k].w));
      float hi = fmaxf(fmaxf(v[k].x, v[k].y), fmaxf(v[k].z, v[k].w));
      for (int o = 16; o > 0; o /= 2) {
        lo = fminf(lo, __shfl_xor_sync(kFullMask, lo, o));
        hi = fmaxf(hi, __shfl_xor_sync(kFullMask, hi, o));
      }
      if (lane == 0) s_lo[k * kWarps + warp] = lo, s_hi[k * kWarps + warp] = hi;
    }
    __syncthreads();
    // One thread per group of the tile (a tile's tail holds whole groups: group divides n).
    const int groups_here = static_cast<int>((n - base < kTile ? n - base : kTile) / group);
    if (static_cast<int>(threadIdx.x) < groups_here) {
      const int first = static_cast<int>(threadIdx.x) * parts_per_group;
      float lo = s_lo[first], hi = s_hi[first];
      for (int c = 1; c < parts_per_group; ++c)
        lo = fminf(lo, s_lo[first + c]), hi = fmaxf(hi, s_hi[first + c]);
      const theory::IntQuant p = int_quant_params_device(lo, hi, symmetric);
      params[base / group + threadIdx.x] = p;
      s_step[threadIdx.x] = step_of(p, stochastic);
    }
    __syncthreads();
    auto* q4 = reinterpret_cast<uchar4*>(q + base);
#pragma unroll
    for (int k = 0; k < kLoadsPerThread; ++k) {
      const std::size_t j = static_cast<std::size_t>(k) * kThreads + threadIdx.x;
      if (j >= rest4) continue;
      const Step p = s_step[(k * kWarps + warp) / parts_per_group];
      q4[j] = pack4(v[k], p, stochastic, seed, base + 4 * j);
    }
    __syncthreads();  // s_lo/s_hi/s_step are rewritten by the next tile
  }
}

// 2. The range, then the parameters. A block's threads' ranges into the chunk's.
__device__ void store_block_range(float l, float h, float* lo, float* hi) {
  __shared__ float s_lo[kThreads], s_hi[kThreads];
  s_lo[threadIdx.x] = l, s_hi[threadIdx.x] = h;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) {
      s_lo[threadIdx.x] = fminf(s_lo[threadIdx.x], s_lo[threadIdx.x + s]);
      s_hi[threadIdx.x] = fmaxf(s_hi[threadIdx.x], s_hi[threadIdx.x + s]);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) lo[blockIdx.x] = s_lo[0], hi[blockIdx.x] = s_hi[0];
}

__global__ void __launch_bounds__(kThreads)
    chunk_minmax(const float* x, std::size_t chunk, float* lo, float* hi) {
  const float* p = x + blockIdx.x * chunk;
  float l = INFINITY, h = -INFINITY;
  for (std::size_t i = threadIdx.x; i < chunk; i += blockDim.x)
    l = fminf(l, p[i]), h = fmaxf(h, p[i]);
  store_block_range(l, h, lo, hi);
}

// A thread's share of float4s first, first + stride, … below count, four loads in flight, folded
// into l and h (past the end a load repeats one already counted).
__device__ void minmax_strided4(const float4* p, std::size_t count, std::size_t first,
                                std::size_t stride, float& l, float& h) {
  for (std::size_t i0 = first; i0 < count; i0 += kLoadsPerThread * stride) {
    float4 v[kLoadsPerThread];
#pragma unroll
    for (int k = 0; k < kLoadsPerThread; ++k) {
      const std::size_t i = i0 + k * stride;
      v[k] = p[i < count ? i : i0];
    }
#pragma unroll
    for (int k = 0; k < kLoadsPerThread; ++k) {
      l = fminf(l, fminf(fminf(v[k].x, v[k].y), fminf(v[k].z, v[k].w)));
      h = fmaxf(h, fmaxf(fmaxf(v[k].x, v[k].y), fmaxf(v[k].z, v[k].w)));
    }
  }
}

// Over float4s (the chunk a multiple of 4, x 16-byte aligned), four loads in flight per thread:
// one scalar load per thread left the range pass latency-bound (a simulated RTX 3070 read 8 MB
// at 62 GB/s, its chunks only 32 blocks).
__global__ void __launch_bounds__(kThreads)
    chunk_minmax4(const float4* x, std::size_t chunk4, float* lo, float* hi) {
  float l = INFINITY, h = -INFINITY;
  minmax_strided4(x + blockIdx.x * chunk4, chunk4, threadIdx.x, kThreads, l, h);
  store_block_range(l, h, lo, hi);
}

// The tensor's range (per tensor) over float4s in grid-stride order, four loads in flight per
// thread: the grid sweeps x together, as the copy does (one block per 16 Ki chunk, 128 blocks
// each on its own stretch, took 40–43 K cycles for 8 MB in a simulated RTX 3070's timed samples,
// against 45 K for the copy's 16 MB). Block b's range into lo[b], hi[b].
__global__ void __launch_bounds__(kThreads)
    tensor_minmax4(const float4* x, std::size_t n4, float* lo, float* hi) {
  float l = INFINITY, h = -INFINITY;
  minmax_strided4(x, n4, blockIdx.x * std::size_t{kThreads} + threadIdx.x,
                  std::size_t{gridDim.x} * kThreads, l, h);
  store_block_range(l, h, lo, hi);
}

__global__ void group_params(const float* lo, const float* hi, std::size_t groups,
                             std::size_t per_group, bool symmetric, theory::IntQuant* params) {
  const std::size_t g = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (g >= groups) return;
  float l = lo[g * per_group], h = hi[g * per_group];
  for (std::size_t c = 1; c < per_group; ++c)
    l = fminf(l, lo[g * per_group + c]), h = fmaxf(h, hi[g * per_group + c]);
  params[g] = int_quant_params_device(l, h, symmetric);
}

// The tensor's one group (per tensor): its parameters from the chunks' ranges, by warp 0 of every
// block (block 0 stores them), so they need no launch of their own between the two passes.
__device__ Step tensor_step(const float* chunk_lo, const float* chunk_hi, std::size_t chunks,
                            bool symmetric, bool stochastic, theory::IntQuant* params) {
  __shared__ Step step;
  if (threadIdx.x < 32) {
    float lo = INFINITY, hi = -INFINITY;
    for (std::size_t c = threadIdx.x; c < chunks; c += 32)
      lo = fminf(lo, chunk_lo[c]), hi = fmaxf(hi, chunk_hi[c]);
    for (int o = 16; o > 0; o /= 2) {
      lo = fminf(lo, __shfl_xor_sync(kFullMask, lo, o));
      hi = fmaxf(hi, __shfl_xor_sync(kFullMask, hi, o));
    }
    if (threadIdx.x == 0) {
      const theory::IntQuant p = int_quant_params_device(lo, hi, symmetric);
      if (blockIdx.x == 0) *params = p;
      step = step_of(p, stochastic);
    }
  }
  __syncthreads();
  return step;
}

// The quantize pass over float4s (the group a multiple of 4): four loads in flight per thread.
// kOneGroup (per tensor): the parameters from the range pass's `chunks` partial ranges
// (tensor_step) while the first loads are in flight; otherwise each group's from `params`.
template <bool kOneGroup>
__global__ void __launch_bounds__(kThreads)
    quantize4(const float4* x, std::size_t n4, std::size_t group4, const float* chunk_lo,
              const float* chunk_hi, std::size_t chunks, bool symmetric, theory::IntQuant* params,
              bool stochastic, std::uint64_t seed, uchar4* q4) {
  const std::size_t stride = std::size_t{gridDim.x} * kThreads;
  std::size_t i0 = blockIdx.x * std::size_t{kThreads} + threadIdx.x;
  float4 v[kLoadsPerThread];
  const auto load = [&] {
#pragma unroll
    for (int k = 0; k < kLoadsPerThread; ++k) {
      const std::size_t i = i0 + k * stride;
      if (i < n4) v[k] = x[i];
    }
  };
  load();
  Step one{};
  if constexpr (kOneGroup)
    one = tensor_step(chunk_lo, chunk_hi, chunks, symmetric, stochastic, params);
  for (; i0 < n4; i0 += kLoadsPerThread * stride, load()) {
#pragma unroll
    for (int k = 0; k < kLoadsPerThread; ++k) {
      const std::size_t i = i0 + k * stride;
      if (i < n4)
        q4[i] = pack4(v[k], kOneGroup ? one : step_of(params[i / group4], stochastic), stochastic,
                      seed, 4 * i);
    }
  }
}

template <class Q>
__global__ void quantize1(const float* x, std::size_t n, std::size_t group,
                          const theory::IntQuant* params, bool stochastic, std::uint64_t seed,
                          Q* q) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    q[i] =
        static_cast<Q>(code_of(x[i], step_of(params[i / group], stochastic), stochastic, seed, i));
}

template <class Q>
__global__ void dequantize(const Q* q, std::size_t n, std::size_t group,
                           const theory::IntQuant* params, float* x) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const theory::IntQuant p = params[i / group];
    x[i] = static_cast<float>(p.scale *
                              (static_cast<double>(q[i]) - static_cast<double>(p.zero_point)));
  }
}

// Enough blocks to fill every SM `per_sm` deep, never more than the work has.
unsigned grid_for(std::size_t blocks_of_work, int per_sm = 8) {
  int device = 0, sms = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
             "cudaDeviceGetAttribute");
  return static_cast<unsigned>(
      std::clamp<std::size_t>(blocks_of_work, 1, std::size_t(std::max(sms, 1)) * per_sm));
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

bool quant_cuda_fused(std::size_t group) {
  return group >= 128 && group <= kTile && group % 128 == 0 && kTile % group == 0;
}

template <class Q>
void quantize_cuda(const float* x, std::size_t n, std::size_t group, bool symmetric,
                   bool stochastic, std::uint64_t seed, float* chunk_lo, float* chunk_hi,
                   theory::IntQuant* params, Q* q, CUstream_st* stream) {
  if (group == 0 || n % group != 0)
    throw std::invalid_argument("quantize_cuda: the group size must divide n");
  if (n == 0) return;
  if (quant_cuda_fused(group) && aligned16(x) && aligned16(q)) {
    fused_quantize<Q><<<grid_for((n + kTile - 1) / kTile), kThreads, 0, stream>>>(
        reinterpret_cast<const float4*>(x), n, group, symmetric, stochastic, seed, params, q);
    check_launch("fused_quantize");
    return;
  }
  const std::size_t chunk = quant_chunk_elements(group), chunks = n / chunk;
  if (chunks > 0x7FFFFFFFu)
    throw std::invalid_argument("quantize_cuda: more than 2^31 chunks of the range");
  const std::size_t groups = n / group, n4 = n / 4;
  const bool vector4 = group % 4 == 0 && aligned16(x) && aligned16(q);
  if (groups == 1 && vector4) {
    // Per tensor: the range in grid-stride order by at most `chunks` blocks (the partial ranges
    // fit the workspace), then the quantize pass, each block taking the parameters from them.
    // Four blocks an SM: every block resident at once, so each pays for the parameters once.
    const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>(
        grid_for((n4 + kThreads * kLoadsPerThread - 1) / (kThreads * kLoadsPerThread), 4), chunks));
    tensor_minmax4<<<blocks, kThreads, 0, stream>>>(reinterpret_cast<const float4*>(x), n4,
                                                    chunk_lo, chunk_hi);
    check_launch("tensor_minmax4");
    quantize4<true><<<grid_for((n4 + kThreads - 1) / kThreads, 4), kThreads, 0, stream>>>(
        reinterpret_cast<const float4*>(x), n4, n4, chunk_lo, chunk_hi, blocks, symmetric, params,
        stochastic, seed, reinterpret_cast<uchar4*>(q));
    check_launch("quantize4 (per tensor)");
    return;
  }
  if (chunk % 4 == 0 && aligned16(x)) {
    chunk_minmax4<<<static_cast<unsigned>(chunks), kThreads, 0, stream>>>(
        reinterpret_cast<const float4*>(x), chunk / 4, chunk_lo, chunk_hi);
    check_launch("chunk_minmax4");
  } else {
    chunk_minmax<<<static_cast<unsigned>(chunks), kThreads, 0, stream>>>(x, chunk, chunk_lo,
                                                                         chunk_hi);
    check_launch("chunk_minmax");
  }
  group_params<<<static_cast<unsigned>((groups + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
      chunk_lo, chunk_hi, groups, group / chunk, symmetric, params);
  check_launch("group_params");
  if (vector4) {
    quantize4<false><<<grid_for((n4 + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
        reinterpret_cast<const float4*>(x), n4, group / 4, chunk_lo, chunk_hi, chunks, symmetric,
        params, stochastic, seed, reinterpret_cast<uchar4*>(q));
    check_launch("quantize4");
  } else {
    quantize1<Q><<<grid_for((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
        x, n, group, params, stochastic, seed, q);
    check_launch("quantize1");
  }
}

template <class Q>
void dequantize_cuda(const Q* q, std::size_t n, std::size_t group, const theory::IntQuant* params,
                     float* x, CUstream_st* stream) {
  dequantize<Q>
      <<<grid_for((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(q, n, group, params, x);
  check_launch("dequantize");
}

template void quantize_cuda(const float*, std::size_t, std::size_t, bool, bool, std::uint64_t,
                            float*, float*, theory::IntQuant*, std::int8_t*, CUstream_st*);
template void quantize_cuda(const float*, std::size_t, std::size_t, bool, bool, std::uint64_t,
                            float*, float*, theory::IntQuant*, std::uint8_t*, CUstream_st*);
template void dequantize_cuda(const std::int8_t*, std::size_t, std::size_t, const theory::IntQuant*,
                              float*, CUstream_st*);
template void dequantize_cuda(const std::uint8_t*, std::size_t, std::size_t,
                              const theory::IntQuant*, float*, CUstream_st*);

}  // namespace bb::kernels
