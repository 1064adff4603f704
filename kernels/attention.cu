#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <memory>
#include <numbers>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "base/cuda_check.h"
#include "kernels/attention.h"
#include "kernels/attention_decode_plan.h"
#include "kernels/attention_flash.h"
#include "kernels/intensity.h"

namespace bb::kernels {
namespace {

using reference::AttentionDims;
using namespace nvcuda;

template <class T>
struct Io;
template <>
struct Io<__nv_bfloat16> {
  static constexpr cudaDataType_t kCuda = CUDA_R_16BF;
  __device__ static float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
  __device__ static __nv_bfloat16 from_float(float x) { return __float2bfloat16_rn(x); }
  __device__ static __nv_bfloat16 from_bits(unsigned short b) { return __ushort_as_bfloat16(b); }
};
template <>
struct Io<__half> {
  static constexpr cudaDataType_t kCuda = CUDA_R_16F;
  __device__ static float to_float(__half x) { return __half2float(x); }
  __device__ static __half from_float(float x) { return __float2half_rn(x); }
  __device__ static __half from_bits(unsigned short b) { return __ushort_as_half(b); }
};

// max that keeps a NaN (fmaxf drops it).
__device__ inline float nan_max(float a, float b) { return a != a || b != b ? a + b : fmaxf(a, b); }

// __shfl_xor_sync over the whole warp on a float, in PTX that takes the float register as it is
// (shfl's .b32 accepts any 32-bit register): nvcc's own wraps each shuffle in two moves between
// float and integer registers, which ptxas removes on a GPU but a simulator that runs the PTX
// (GPGPU-Sim) issues. The same instruction either way.
__device__ inline float shfl_xor(float x, int lane_mask) {
  float y;
  asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;"
               : "=f"(y)
               : "f"(x), "r"(lane_mask));
  return y;
}

__device__ inline float warp_sum(float x) {
  for (int o = 16; o > 0; o /= 2) x += __shfl_xor_sync(0xffffffffu, x, o);
  return x;
}
__device__ inline float warp_max(float x) {
  for (int o = 16; o > 0; o /= 2) x = nan_max(x, __shfl_xor_sync(0xffffffffu, x, o));
  return x;
}

// Block-wide reductions (blockDim.x a multiple of 32, at most 1024).
template <bool kMax>
__device__ float block_reduce(float x, float* scratch) {
  x = kMax ? warp_max(x) : warp_sum(x);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  __syncthreads();  // scratch free from any earlier use
  if (lane == 0) scratch[warp] = x;
  __syncthreads();
  x = lane < warps ? scratch[lane] : (kMax ? -INFINITY : 0.0f);
  return kMax ? warp_max(x) : warp_sum(x);
}

// Row r of S ([B·H][n] rows of n) → row r of P: softmax over the keys row r may see.
template <class T>
__global__ void softmax_rows(const float* s, T* p, std::size_t n, bool causal) {
  __shared__ float scratch[32];
  const std::size_t r = blockIdx.x, i = r % n, keys = causal ? i + 1 : n;
  const float* in = s + r * n;
  T* out = p + r * n;
  float m = -INFINITY;
  for (std::size_t j = threadIdx.x; j < keys; j += blockDim.x) m = nan_max(m, in[j]);
  m = block_reduce<true>(m, scratch);
  float l = 0;
  for (std::size_t j = threadIdx.x; j < keys; j += blockDim.x) l += expf(in[j] - m);
  l = block_reduce<false>(l, scratch);
  const float inv = 1 / l;
  for (std::size_t j = threadIdx.x; j < n; j += blockDim.x)
    out[j] = Io<T>::from_float(j < keys ? expf(in[j] - m) * inv : 0.0f);
}

template <class T>
void launch_softmax(const AttentionDims& s, const float* scores, T* probs, cudaStream_t stream) {
  softmax_rows<T><<<static_cast<unsigned>(s.batch * s.heads * s.n), 256, 0, stream>>>(
      scores, probs, s.n, s.causal);
  check_launch("softmax_rows");
}

template <class T>
void naive(const AttentionDims& s, const T* q, const T* k, const T* v, float* scores, T* probs,
           float* o, CublasHandle& handle, cudaStream_t stream) {
  const auto group = static_cast<long long>(s.heads / s.kv_heads);
  const auto n = static_cast<long long>(s.n), d = static_cast<long long>(s.d);
  const long long rows = group * n;  // one group's query rows: one matrix
  const int batches = static_cast<int>(s.batch * s.kv_heads);
  const float scale = 1 / std::sqrt(static_cast<float>(s.d)), one = 1, zero = 0;
  handle.bind(stream);  // host calls only when the stream changes
  // Row-major S (rows × n) = Q·Kᵀ is column-major Sᵀ = K·Qᵀ: op(A) = Kᵀ stored d×n, B = Qᵀ d×rows.
  check_cublas(
      cublasGemmStridedBatchedEx(
          handle.get(), CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(rows),
          static_cast<int>(d), &scale, k, Io<T>::kCuda, static_cast<int>(d), n * d, q, Io<T>::kCuda,
          static_cast<int>(d), rows * d, &zero, scores, CUDA_R_32F, static_cast<int>(n), rows * n,
          batches, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
      "cublasGemmStridedBatchedEx (S = Q K^T)");
  launch_softmax(s, scores, probs, stream);
  // Row-major O (rows × d) = P·V is column-major Oᵀ = Vᵀ·Pᵀ: A = Vᵀ stored d×n, B = Pᵀ n×rows.
  check_cublas(
      cublasGemmStridedBatchedEx(
          handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(d), static_cast<int>(rows),
          static_cast<int>(n), &one, v, Io<T>::kCuda, static_cast<int>(d), n * d, probs,
          Io<T>::kCuda, static_cast<int>(n), rows * n, &zero, o, CUDA_R_32F, static_cast<int>(d),
          rows * d, batches, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
      "cublasGemmStridedBatchedEx (O = P V)");
}

struct FusedDims {
  int n, heads, kv_heads;
  bool causal;
  float scale;
};

// Query rows and keys per tile; 16 rows a warp.
constexpr int kRows = static_cast<int>(kFusedWmmaBlockRows), kKeys = 64, kWarps = 4;

template <int D>
constexpr std::size_t fused_smem_bytes() {
  constexpr int width = D > kKeys ? D : kKeys;  // a warp's fp32 scratch: scores, then P·V
  return 2 * (kRows * D + 2 * kKeys * D) + 4 * kWarps * 16 * width + 2 * kWarps * 16 * kKeys;
}

template <class T, int D>
__global__ void __launch_bounds__(32 * kWarps)
    fused_attention(const T* q, const T* k, const T* v, float* o, FusedDims dims) {
  constexpr int kWidth = D > kKeys ? D : kKeys, kHalf = D / 2;
  extern __shared__ __align__(128) unsigned char smem[];
  T* s_q = reinterpret_cast<T*>(smem);
  T* s_k = s_q + kRows * D;
  T* s_v = s_k + kKeys * D;
  float* s_scratch = reinterpret_cast<float*>(s_v + kKeys * D);
  T* s_p = reinterpret_cast<T*>(s_scratch + kWarps * 16 * kWidth);

  const int n = dims.n, bh = blockIdx.y, h = bh % dims.heads, b = bh / dims.heads;
  const int kvh = b * dims.kv_heads + h / (dims.heads / dims.kv_heads);
  const T* qh = q + static_cast<std::size_t>(bh) * n * D;
  const T* kh = k + static_cast<std::size_t>(kvh) * n * D;
  const T* vh = v + static_cast<std::size_t>(kvh) * n * D;
  const int i0 = blockIdx.x * kRows, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const T zero = Io<T>::from_float(0.0f);

  for (int e = threadIdx.x; e < kRows * D; e += blockDim.x) {
    const int r = e / D;
    s_q[e] = i0 + r < n ? qh[static_cast<std::size_t>(i0 + r) * D + e % D] : zero;
  }
  // Each lane owns half of one of its warp's 16 rows: row `rr`, columns [half·…, …).
  const int rr = lane / 2, half = lane % 2, row = i0 + warp * 16 + rr;
  float* w_scratch = s_scratch + warp * 16 * kWidth;
  T* w_p = s_p + warp * 16 * kKeys;
  float m = -INFINITY, l = 0, acc[kHalf];
  for (int c = 0; c < kHalf; ++c) acc[c] = 0;

  const int key_end = dims.causal ? min(n, i0 + kRows) : n;
  for (int j0 = 0; j0 < key_end; j0 += kKeys) {
    __syncthreads();  // every warp is done with the previous K, V tiles
    for (int e = threadIdx.x; e < kKeys * D; e += blockDim.x) {
      const int j = j0 + e / D;
      const std::size_t at = static_cast<std::size_t>(j) * D + e % D;
      s_k[e] = j < n ? kh[at] : zero;
      s_v[e] = j < n ? vh[at] : zero;
    }
    __syncthreads();
    // This warp's scores: (16 × D) · (D × 64) on tensor cores, into its scratch.
    // Causal: 16-key sub-tiles past this warp's last row are masked for all of its rows; they are
    // skipped (their scores are masked below; their V rows never reach a product).
    const int warp_last_row = i0 + warp * 16 + 15;
    const auto masked = [&](int sub) { return dims.causal && j0 + sub * 16 > warp_last_row; };
    for (int nt = 0; nt < kKeys / 16; ++nt) {
      if (masked(nt)) continue;
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
      wmma::fill_fragment(c, 0.0f);
      for (int kt = 0; kt < D / 16; ++kt) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> bk;
        wmma::load_matrix_sync(a, s_q + warp * 16 * D + kt * 16, D);
        wmma::load_matrix_sync(bk, s_k + nt * 16 * D + kt * 16, D);  // Kᵀ: column-major K rows
        wmma::mma_sync(c, a, bk, c);
      }
      wmma::store_matrix_sync(w_scratch + nt * 16, c, kWidth, wmma::mem_row_major);
    }
    __syncwarp();
    // Online softmax over this tile's 64 keys, 32 per lane.
    float sv[kKeys / 2], m_tile = -INFINITY;
    for (int c = 0; c < kKeys / 2; ++c) {
      const int j = j0 + half * (kKeys / 2) + c;
      const bool seen = j < n && (!dims.causal || j <= row);
      sv[c] = seen ? w_scratch[rr * kWidth + half * (kKeys / 2) + c] * dims.scale : -INFINITY;
      m_tile = nan_max(m_tile, sv[c]);
    }
    m_tile = nan_max(m_tile, __shfl_xor_sync(0xffffffffu, m_tile, 1));
    const float m_new = nan_max(m, m_tile);
    const bool none = m_new == -INFINITY;  // a padding row, or no key seen yet
    const float rescale = none ? 1.0f : expf(m - m_new);
    float l_tile = 0;
    for (int c = 0; c < kKeys / 2; ++c) {
      const float p = none ? 0.0f : expf(sv[c] - m_new);
      l_tile += p;
      w_p[rr * kKeys + half * (kKeys / 2) + c] = Io<T>::from_float(p);
    }
    l_tile += __shfl_xor_sync(0xffffffffu, l_tile, 1);
    l = l * rescale + l_tile;
    m = m_new;
    for (int c = 0; c < kHalf; ++c) acc[c] *= rescale;
    __syncwarp();
    // P·V: (16 × 64) · (64 × D) on tensor cores, into the scratch, then added to the accumulator.
    for (int dt = 0; dt < D / 16; ++dt) {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
      wmma::fill_fragment(c, 0.0f);
      for (int kt = 0; kt < kKeys / 16; ++kt) {
        if (masked(kt)) continue;
        wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> bv;
        wmma::load_matrix_sync(a, w_p + kt * 16, kKeys);
        wmma::load_matrix_sync(bv, s_v + kt * 16 * D + dt * 16, D);
        wmma::mma_sync(c, a, bv, c);
      }
      wmma::store_matrix_sync(w_scratch + dt * 16, c, kWidth, wmma::mem_row_major);
    }
    __syncwarp();
    for (int c = 0; c < kHalf; ++c) acc[c] += w_scratch[rr * kWidth + half * kHalf + c];
    __syncwarp();  // the scratch is rewritten by the next tile's scores
  }
  if (row < n) {
    float* out = o + (static_cast<std::size_t>(bh) * n + row) * D + half * kHalf;
    const float inv = 1 / l;
    for (int c = 0; c < kHalf; ++c) out[c] = acc[c] * inv;
  }
}

constexpr int kMaxDevices = 64;

template <class T, int D>
void launch_fused(const AttentionDims& s, const T* q, const T* k, const T* v, float* o,
                  cudaStream_t stream) {
  constexpr std::size_t smem = fused_smem_bytes<D>();
  // cudaFuncSetAttribute applies to the current device only: opt in once per device (not inside
  // every timed launch; a second GPU of the process needs its own).
  static std::array<std::atomic<bool>, kMaxDevices> opted_in{};
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  if (device < 0 || device >= kMaxDevices)
    throw std::runtime_error("fused attention: device index " + std::to_string(device) +
                             " beyond " + std::to_string(kMaxDevices));
  if (!opted_in[static_cast<std::size_t>(device)].load(std::memory_order_acquire)) {
    check_cuda(
        cudaFuncSetAttribute(fused_attention<T, D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(smem)),
        "cudaFuncSetAttribute (fused attention shared memory)");
    opted_in[static_cast<std::size_t>(device)].store(true, std::memory_order_release);
  }
  const FusedDims dims{static_cast<int>(s.n), static_cast<int>(s.heads),
                       static_cast<int>(s.kv_heads), s.causal,
                       1 / std::sqrt(static_cast<float>(D))};
  const dim3 grid(static_cast<unsigned>((s.n + kRows - 1) / kRows),
                  static_cast<unsigned>(s.batch * s.heads));
  fused_attention<T, D><<<grid, 32 * kWarps, smem, stream>>>(q, k, v, o, dims);
  check_launch("fused_attention");
}

// Decode, split-KV. One block serves up to kDecodeMaxHeads query heads of one GQA group (they share
// K and V, so the cache is read once for all of them) over one chunk of the positions (a split);
// with several splits, each block writes its partial softmax state (m, l, Σ p·v) and the last of
// a row's blocks to finish combines them. Each lane loads 16 bytes (8 elements) of a K row and of
// a V row per load, kDecodeLoads of each before the first use: a warp iteration covers
// kDecodeLoads · 32 / (D/8) positions, with one online-softmax rescale per iteration.
// Little's law on an H200: 4.8 TB/s × ~0.65 µs loaded DRAM latency ≈ 3.1 MB in flight, ≈ 24 KB per
// SM. A warp keeps 2 · kDecodeLoads · 512 B = 4 KiB in flight all the time: the next iteration's K
// and V rows are loaded before this one's arithmetic (two register buffers, used in turn), so no
// warp has an arithmetic phase with nothing outstanding. 8 warps a block and ≥ 1 block an SM give
// ≥ 32 KiB per SM. The arithmetic is what an iteration must do and little else: per lane and
// iteration, 2 · G · kDecodeLoads · 8 FMAs (scores, then Σ p·v), the scores' shuffles, one ex2 a
// score; no branch (loads past the chunk's end are clamped, not skipped), every exponential in
// base 2 (q scaled by log2(e) once), the G · kDecodeLoads chains interleaved. Per iteration at
// d 128, 4 heads: 656 PTX instructions, 669 SASS (sm_90), against 1414 and 1071 before (expf's
// range reduction, branches around NaN-aware maxima and clamped loads, one chain at a time).
// decode_plan (attention_decode_plan.h) keeps the device's slots (SMs × resident blocks,
// occupancy API) busiest: one wave where it fills it nearly (a second, partial wave or a short
// chunk per warp leaves the prologue (q loads), the warps' merge and the tail exposed), more
// where there are more rows of blocks than slots. The suite's 256 MiB case (B 8, H 32, H_kv 8,
// n 8192, d 128) on a 132-SM device (4 heads a block: 174-177 registers, 1 block an SM, ptxas
// sm_90): 64 rows × 2 splits of 4096 positions, 64 iterations per warp (the plan before aimed at
// 1024 blocks whatever the device: 3.9 waves of 2 blocks an SM, 8 iterations).
constexpr int kDecodeWarps = 8, kDecodeLoads = 4;

struct DecodeArgs {
  int n, heads, kv_heads, slices, splits, chunk;
  float scale_log2;  // 1/√d · log2(e): scores in base 2
};

// 2^x by the special-function unit (ex2.approx.ftz: 2 ulp; results below 2^-126 flushed to 0,
// weights far below the fp32 sum they join): exp2f's one instruction without its subnormal fix-up.
__device__ inline float exp2_ftz(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// A warp's or a split's weight when states (m, l, Σ p·v) are merged: 2^(m − mm) against the largest
// m, in base 2 as the loop's; 0 for a state that saw only −inf scores. No m is NaN (the loop takes
// its maxima with fmaxf), so the merges' maxima are fmaxf too.
__device__ inline float merge_weight(float m, float mm) {
  return m == -INFINITY ? 0.0f : exp2f(m - mm);
}

// 16 bytes = 8 elements, the lowest address first (little-endian words), exactly. In PTX that
// writes float registers directly (a .b32 instruction takes any 32-bit register), as ptxas would
// on a GPU: nvcc's conversions add a move per element, which a simulator running the PTX issues.
template <class T>
__device__ inline void unpack8(const uint4& w, float* f) {
  const unsigned int words[4] = {w.x, w.y, w.z, w.w};
  for (int i = 0; i < 4; ++i) {
    if constexpr (std::is_same_v<T, __nv_bfloat16>) {  // a bf16 is the top half of its fp32
      asm("shl.b32 %0, %1, 16;" : "=f"(f[2 * i]) : "r"(words[i]));
      asm("and.b32 %0, %1, 0xFFFF0000;" : "=f"(f[2 * i + 1]) : "r"(words[i]));
    } else {  // the word split into its halves once, each converted
      asm("{.reg .b16 lo, hi; mov.b32 {lo, hi}, %2; cvt.f32.f16 %0, lo; cvt.f32.f16 %1, hi;}"
          : "=f"(f[2 * i]), "=f"(f[2 * i + 1])
          : "r"(words[i]));
    }
  }
}

template <class T, int D, int G>
__global__ void __launch_bounds__(32 * kDecodeWarps)
    decode_attention(const T* q, const T* k, const T* v, float* o, float* partial,
                     unsigned int* arrivals, DecodeArgs a) {
  constexpr int kLanesPerRow = D / 8, kRowsPerLoad = 32 / kLanesPerRow;
  constexpr int kStep = kDecodeLoads * kRowsPerLoad;  // positions per warp iteration
  __shared__ float s_m[kDecodeWarps][G], s_l[kDecodeWarps][G], s_acc[kDecodeWarps][G][D];
  const int split = blockIdx.x, slice = blockIdx.y % a.slices, kv_row = blockIdx.y / a.slices;
  const int b = kv_row / a.kv_heads, kvh = kv_row % a.kv_heads;
  const int h0 = kvh * (a.heads / a.kv_heads) + slice * G;  // this block's first query head
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row_in_load = lane / kLanesPerRow, c0 = (lane % kLanesPerRow) * 8;
  const T* kh = k + static_cast<std::size_t>(kv_row) * a.n * D + c0;
  const T* vh = v + static_cast<std::size_t>(kv_row) * a.n * D + c0;
  // Scores in base 2: q is taken times scale·log2(e), so every exponential is one ex2 (exp2_ftz)
  // and m, the partial states and the merges are base 2 too.
  float qv[G][8], acc[G][8], m[G], l[G];
  for (int g = 0; g < G; ++g) {
    const T* qg = q + (static_cast<std::size_t>(b) * a.heads + h0 + g) * D + c0;
    for (int e = 0; e < 8; ++e) qv[g][e] = Io<T>::to_float(qg[e]) * a.scale_log2, acc[g][e] = 0;
    m[g] = -INFINITY, l[g] = 0;
  }
  const int begin = split * a.chunk, end = min(a.n, begin + a.chunk);  // begin < end
  // Rows past `end` load row end − 1 instead (no branch; its scores are masked below and its V
  // words zeroed, so an Inf or NaN there is not counted twice).
  const auto load = [&](int j0, uint4* kr, uint4* vr) {
    for (int u = 0; u < kDecodeLoads; ++u) {
      const int j = min(j0 + u * kRowsPerLoad + row_in_load, end - 1);
      const std::size_t at = static_cast<std::size_t>(j) * D;
      kr[u] = __ldcg(reinterpret_cast<const uint4*>(kh + at));
      vr[u] = __ldcg(reinterpret_cast<const uint4*>(vh + at));
    }
  };
  // One warp iteration: kDecodeLoads rows a lane, every head. The G · kDecodeLoads dot products,
  // their shuffles and exponentials are independent chains, interleaved (the issue order a
  // simulator that runs the PTX in order sees; ptxas schedules the same on a GPU).
  // j0 is the same on every lane of the warp: the shuffles below see all 32 lanes.
  const auto step = [&](int j0, const uint4* kr, const uint4* vr) {
    float kf[kDecodeLoads][8], sc[kDecodeLoads][G];
    bool seen[kDecodeLoads];
    for (int u = 0; u < kDecodeLoads; ++u) {
      unpack8<T>(kr[u], kf[u]);
      seen[u] = j0 + u * kRowsPerLoad + row_in_load < end;
      for (int g = 0; g < G; ++g) sc[u][g] = 0;
    }
    for (int e = 0; e < 8; ++e)
      for (int u = 0; u < kDecodeLoads; ++u)
        for (int g = 0; g < G; ++g) sc[u][g] = fmaf(qv[g][e], kf[u][e], sc[u][g]);
    // Each row's dot over its kLanesPerRow lanes.
    for (int off = kLanesPerRow / 2; off > 0; off /= 2)
      for (int u = 0; u < kDecodeLoads; ++u)
        for (int g = 0; g < G; ++g) sc[u][g] += shfl_xor(sc[u][g], off);
    // Online softmax, one rescale per iteration: the warp's max over its kStep positions. fmaxf
    // drops a NaN score, which still reaches l and the accumulator through its weight exp2(NaN).
    float mt[G];
    for (int g = 0; g < G; ++g) mt[g] = -INFINITY;
    for (int u = 0; u < kDecodeLoads; ++u)
      for (int g = 0; g < G; ++g) {
        sc[u][g] = seen[u] ? sc[u][g] : -INFINITY;
        mt[g] = fmaxf(mt[g], sc[u][g]);
      }
    for (int off = kLanesPerRow; off < 32; off *= 2)
      for (int g = 0; g < G; ++g) mt[g] = fmaxf(mt[g], shfl_xor(mt[g], off));
    for (int g = 0; g < G; ++g) {
      const float m_new = fmaxf(m[g], mt[g]);
      // Only −inf scores so far: subtract 0 instead, so their weights are exp2(−inf) = 0, not
      // NaN (FlashAttention's Check_inf); the scale of an empty state (l = 0, acc = 0) is moot.
      const float m_sub = m_new == -INFINITY ? 0.0f : m_new;
      const float scale_by = exp2_ftz(m[g] - m_sub);
      for (int u = 0; u < kDecodeLoads; ++u) sc[u][g] = exp2_ftz(sc[u][g] - m_sub);
      m[g] = m_new;
      l[g] *= scale_by;
      for (int e = 0; e < 8; ++e) acc[g][e] *= scale_by;
    }
    for (int u = 0; u < kDecodeLoads; ++u) {
      float vf[8];
      unpack8<T>(seen[u] ? vr[u] : make_uint4(0, 0, 0, 0), vf);
      for (int g = 0; g < G; ++g) {
        l[g] += sc[u][g];
        for (int e = 0; e < 8; ++e) acc[g][e] = fmaf(sc[u][g], vf[e], acc[g][e]);
      }
    }
  };
  // Two register buffers, each iteration's loads issued before the other's work (no copies).
  uint4 ka[kDecodeLoads], va[kDecodeLoads], kb[kDecodeLoads], vb[kDecodeLoads];
  constexpr int kStride = kDecodeWarps * kStep;
  int j0 = begin + warp * kStep;
  load(j0, ka, va);
  while (j0 < end) {
    load(j0 + kStride, kb, vb);
    step(j0, ka, va);
    j0 += kStride;
    if (j0 >= end) break;
    load(j0 + kStride, ka, va);
    step(j0, kb, vb);
    j0 += kStride;
  }
  // The rows of a load sit in different lanes: sum l and the accumulator across them (m is
  // already the warp's).
  for (int g = 0; g < G; ++g)
    for (int off = kLanesPerRow; off < 32; off *= 2) {
      l[g] += __shfl_xor_sync(0xffffffffu, l[g], off);
      for (int e = 0; e < 8; ++e) acc[g][e] += __shfl_xor_sync(0xffffffffu, acc[g][e], off);
    }
  if (lane == 0)
    for (int g = 0; g < G; ++g) s_m[warp][g] = m[g], s_l[warp][g] = l[g];
  if (row_in_load == 0)
    for (int g = 0; g < G; ++g)
      for (int e = 0; e < 8; ++e) s_acc[warp][g][c0 + e] = acc[g][e];
  __syncthreads();
  // The block's warps merged; then the output (one split) or this split's partial state.
  for (int i = threadIdx.x; i < G * D; i += blockDim.x) {
    const int g = i / D, c = i % D;
    float mm = -INFINITY;
    for (int w = 0; w < kDecodeWarps; ++w) mm = fmaxf(mm, s_m[w][g]);
    float ll = 0, out = 0;
    for (int w = 0; w < kDecodeWarps; ++w) {
      const float f = merge_weight(s_m[w][g], mm);
      ll += s_l[w][g] * f;
      out += s_acc[w][g][c] * f;
    }
    const std::size_t bh = static_cast<std::size_t>(b) * a.heads + h0 + g;
    if (a.splits == 1) {
      o[bh * D + c] = out / ll;
    } else {
      float* state = partial + (bh * a.splits + split) * (D + 2);  // m, l, Σ p·v
      if (c == 0) state[0] = mm, state[1] = ll;
      state[2 + c] = out;
    }
  }
  if (a.splits == 1) return;
  // The last of a row's splits to finish merges their states (no second launch: CUDA's
  // threadFenceReduction sample). Each block's state is visible device-wide before its arrival
  // counts; the last block reads the others' through L2 (ld.global.cg) and sets the count back to
  // 0 for the next launch.
  __shared__ bool last;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(arrivals + blockIdx.y, 1u) == unsigned(a.splits) - 1;
  __syncthreads();
  if (!last) return;
  __threadfence();
  for (int i = threadIdx.x; i < G * D; i += blockDim.x) {
    const int g = i / D, c = i % D;
    const std::size_t bh = static_cast<std::size_t>(b) * a.heads + h0 + g;
    const float* state = partial + bh * a.splits * (D + 2);
    float mm = -INFINITY;
    for (int sp = 0; sp < a.splits; ++sp) mm = fmaxf(mm, __ldcg(state + sp * (D + 2)));
    float ll = 0, out = 0;
    for (int sp = 0; sp < a.splits; ++sp) {
      const float f = merge_weight(__ldcg(state + sp * (D + 2)), mm);
      ll += __ldcg(state + sp * (D + 2) + 1) * f;
      out += __ldcg(state + sp * (D + 2) + 2 + c) * f;
    }
    o[bh * D + c] = out / ll;
  }
  if (threadIdx.x == 0) arrivals[blockIdx.y] = 0;
}

// The workspace with several splits: one arrival count per row of blocks (kept zero between
// launches), then, 256-byte aligned, every (batch, query head, split)'s state (m, l, Σ p·v).
std::size_t decode_arrivals_bytes(const AttentionDims& s, const DecodePlan& p) {
  const std::size_t rows = s.batch * s.kv_heads * static_cast<std::size_t>(p.slices);
  return (rows * sizeof(unsigned int) + 255) / 256 * 256;
}
std::size_t decode_workspace_bytes(const AttentionDims& s, const DecodePlan& p) {
  if (p.splits == 1) return 0;
  return decode_arrivals_bytes(s, p) +
         s.batch * s.heads * static_cast<std::size_t>(p.splits) * (s.d + 2) * sizeof(float);
}

template <class T, int D, int G>
void launch_decode_heads(const AttentionDims& s, const DecodePlan& p, const T* q, const T* k,
                         const T* v, float* o, void* workspace, cudaStream_t stream) {
  const DecodeArgs a{static_cast<int>(s.n),
                     static_cast<int>(s.heads),
                     static_cast<int>(s.kv_heads),
                     p.slices,
                     p.splits,
                     p.chunk,
                     static_cast<float>(1 / std::sqrt(double{D}) * std::numbers::log2e)};
  const dim3 grid(static_cast<unsigned>(p.splits),
                  static_cast<unsigned>(s.batch * s.kv_heads * p.slices));
  auto* arrivals = static_cast<unsigned int*>(workspace);
  auto* partial =
      workspace == nullptr
          ? nullptr
          : reinterpret_cast<float*>(static_cast<char*>(workspace) + decode_arrivals_bytes(s, p));
  decode_attention<T, D, G>
      <<<grid, 32 * kDecodeWarps, 0, stream>>>(q, k, v, o, partial, arrivals, a);
  check_launch("decode_attention");
}

// Blocks of the decode kernel (the one decode_plan picks for s: G heads a block) the current
// device holds at once.
template <class T, int D>
long long decode_slots(const AttentionDims& s) {
  const int group = static_cast<int>(s.heads / s.kv_heads);
  const auto kernel = group % 4 == 0   ? decode_attention<T, D, 4>
                      : group % 2 == 0 ? decode_attention<T, D, 2>
                                       : decode_attention<T, D, 1>;
  int device = 0, sms = 0, per_sm = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
             "cudaDeviceGetAttribute (SMs)");
  check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 32 * kDecodeWarps, 0),
             "cudaOccupancyMaxActiveBlocksPerMultiprocessor (decode)");
  return static_cast<long long>(std::max(sms, 1)) * std::max(per_sm, 1);
}

template <class T, int D>
DecodePlan decode_plan_here(const AttentionDims& s) {
  return decode_plan(s, decode_slots<T, D>(s));
}

template <class T, int D>
void launch_decode(const AttentionDims& s, const T* q, const T* k, const T* v, float* o,
                   void* workspace, cudaStream_t stream) {
  const DecodePlan p = decode_plan_here<T, D>(s);
  if (decode_workspace_bytes(s, p) > 0 && workspace == nullptr)
    throw std::invalid_argument(
        "decode attention: no workspace (attention_decode_workspace_bytes)");
  const auto launch = p.heads_per_block == 4   ? launch_decode_heads<T, D, 4>
                      : p.heads_per_block == 2 ? launch_decode_heads<T, D, 2>
                                               : launch_decode_heads<T, D, 1>;
  launch(s, p, q, k, v, o, workspace, stream);
}

void check_dims(const AttentionDims& s) {
  if (s.kv_heads == 0 || s.heads % s.kv_heads != 0)
    throw std::invalid_argument("attention: heads must be a multiple of kv heads");
  // Grid limits: fused puts B·H on grid.y (≤ 65535); the softmax one block per row (< 2^31).
  if (s.n > (1u << 30) || s.batch * s.heads > 65535u || s.batch * s.heads * s.n >= (1ull << 31))
    throw std::invalid_argument("attention: B x H or B x H x n too large for one launch");
}

// Calls launch(std::type_identity<T>{}) with T the input type (bf16 or fp16).
template <class Launch>
void by_type(AttentionDtype t, Launch&& launch) {
  if (t == AttentionDtype::bf16)
    launch(std::type_identity<__nv_bfloat16>{});
  else
    launch(std::type_identity<__half>{});
}
// The head dimensions the fused and decode kernels are compiled for: `launch` is called with
// std::integral_constant<int, d>.
template <class Launch>
void for_head_dim(std::size_t d, const char* kernel, Launch&& launch) {
  if (d == 64) return launch(std::integral_constant<int, 64>{});
  if (d == 128) return launch(std::integral_constant<int, 128>{});
  throw std::invalid_argument(std::string(kernel) + " attention: d must be 64 or 128");
}

void check_decode_dims(const AttentionDims& s) {
  check_dims(s);
  if (s.n == 0) throw std::invalid_argument("decode attention: n must be >= 1");
  if (s.d != 64 && s.d != 128) throw std::invalid_argument("decode attention: d must be 64 or 128");
}

// Frees a convenience call's scratch (cudaFree synchronises the device). Destructors do not throw;
// the kernel's errors were checked.
struct CudaFree {
  void operator()(void* p) const { (void)cudaFree(p); }
};

}  // namespace

void attention_naive_cuda(AttentionDtype t, const AttentionDims& s, const void* q, const void* k,
                          const void* v, float* scores, void* probs, float* o, CublasHandle& handle,
                          CUstream_st* stream) {
  check_dims(s);
  by_type(t, [&](auto type) {
    using T = typename decltype(type)::type;
    naive<T>(s, static_cast<const T*>(q), static_cast<const T*>(k), static_cast<const T*>(v),
             scores, static_cast<T*>(probs), o, handle, stream);
  });
}

void attention_softmax_cuda(AttentionDtype t, const AttentionDims& s, const float* scores,
                            void* probs, CUstream_st* stream) {
  check_dims(s);
  by_type(t, [&](auto type) {
    using T = typename decltype(type)::type;
    launch_softmax(s, scores, static_cast<T*>(probs), stream);
  });
}

bool attention_fused_supported(std::size_t d) { return d == 64 || d == 128; }

void attention_fused_cuda(AttentionDtype t, const AttentionDims& s, const void* q, const void* k,
                          const void* v, float* o, CUstream_st* stream) {
  check_dims(s);
  by_type(t, [&](auto type) {
    using T = typename decltype(type)::type;
    for_head_dim(s.d, "fused", [&](auto d) {
      flash::launch<T, decltype(d)::value>(s, static_cast<const T*>(q), static_cast<const T*>(k),
                                           static_cast<const T*>(v), o, stream);
    });
  });
}

void attention_fused_wmma_cuda(AttentionDtype t, const AttentionDims& s, const void* q,
                               const void* k, const void* v, float* o, CUstream_st* stream) {
  check_dims(s);
  by_type(t, [&](auto type) {
    using T = typename decltype(type)::type;
    for_head_dim(s.d, "fused", [&](auto d) {
      launch_fused<T, decltype(d)::value>(s, static_cast<const T*>(q), static_cast<const T*>(k),
                                          static_cast<const T*>(v), o, stream);
    });
  });
}

std::size_t attention_decode_workspace_bytes(const AttentionDims& s) {
  check_decode_dims(s);
  std::size_t bytes = 0;
  for (AttentionDtype t :
       {AttentionDtype::bf16, AttentionDtype::fp16})  // the larger plan of the two
    by_type(t, [&](auto type) {
      using T = typename decltype(type)::type;
      for_head_dim(s.d, "decode", [&](auto d) {
        bytes =
            std::max(bytes, decode_workspace_bytes(s, decode_plan_here<T, decltype(d)::value>(s)));
      });
    });
  return bytes;
}

void attention_decode_cuda(AttentionDtype t, const AttentionDims& s, const void* q, const void* k,
                           const void* v, float* o, void* workspace, CUstream_st* stream) {
  check_decode_dims(s);
  by_type(t, [&](auto type) {
    using T = typename decltype(type)::type;
    for_head_dim(s.d, "decode", [&](auto d) {
      launch_decode<T, decltype(d)::value>(s, static_cast<const T*>(q), static_cast<const T*>(k),
                                           static_cast<const T*>(v), o, workspace, stream);
    });
  });
}

void attention_decode_cuda(AttentionDtype t, const AttentionDims& s, const void* q, const void* k,
                           const void* v, float* o, CUstream_st* stream) {
  void* ptr = nullptr;
  const std::size_t bytes = attention_decode_workspace_bytes(s);
  if (bytes > 0) check_cuda(cudaMalloc(&ptr, bytes), "cudaMalloc (decode workspace)");
  const std::unique_ptr<void, CudaFree> scratch(ptr);
  if (bytes > 0) check_cuda(cudaMemsetAsync(ptr, 0, bytes, stream), "cudaMemsetAsync (decode)");
  attention_decode_cuda(t, s, q, k, v, o, ptr, stream);
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize (decode)");
}

}  // namespace bb::kernels
