// Fused attention forward of the FlashAttention-2 class (Dao 2023, arXiv:2307.08691): one block
// per kFlashRows = 128 query rows of one head, 8 warps of 16 rows. Per key tile of 64:
// S = Q·Kᵀ and O += P·V on mma.sync m16n8k16 with fp32 accumulation; S stays in registers, and its
// accumulator fragments are the A fragments of P·V once rounded to the input type (both are
// (g, 2t..2t+1), (g+8, ...) per 8 columns), so neither S nor P touches shared memory. Q (once) and
// the K, V tiles arrive by 16-byte cp.async into two stages (tile j+1 in flight while tile j is
// used); fragments come by ldmatrix .x4 (.trans for V) from rows of D elements whose 16-byte chunks
// are XOR-swizzled (chunk c of row r at c ^ (r mod 8)): the 8 rows an 8×8 matrix reads, and the 8
// chunks a quarter-warp's cp.async writes, fall into 8 distinct groups of 4 banks — no conflicts
// without padding. Online softmax in the base-2 domain with the scale folded (one FFMA and one
// MUFU.EX2 per score); causal: tiles past a block's last row are not loaded, tiles past a warp's
// last row not computed, and heavy (late) row blocks start first. GQA: a query head reads its
// group's K/V head.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <array>
#include <atomic>
#include <cmath>
#include <stdexcept>
#include <string>

#include "base/cuda_check.h"
#include "kernels/attention_flash.h"
#include "kernels/attention_flash_ops.cuh"

namespace bb::kernels::flash {
namespace {

constexpr int kRows = static_cast<int>(kFlashRows), kKeys = 64, kWarps = kRows / 16;
constexpr int kThreads = 32 * kWarps;

struct Dims {
  int n, heads, kv_heads;
  bool causal;
  float scale_log2;  // log2(e) / √d: exp(x/√d − m) = 2^(x·scale_log2 − m') with m' = m·log2(e)
};

// max that keeps a NaN (fmaxf drops it).
__device__ inline float nan_max(float a, float b) { return a != a || b != b ? a + b : fmaxf(a, b); }

// Element offset of (row r, 16-byte chunk c) in a tile of rows of D elements.
template <int D>
__device__ inline int swizzle(int r, int c) {
  return r * D + ((c ^ (r & 7)) << 3);
}

template <int D>
constexpr std::size_t smem_bytes() {
  return 2 * (static_cast<std::size_t>(kRows) * D + 4 * static_cast<std::size_t>(kKeys) * D);
}

// rows × D elements of `src` from row `row0` on into the tile `dst`; rows at or past `limit` read
// as zeros.
template <class T, int D>
__device__ inline void load_tile(T* dst, const T* src, int row0, int rows, int limit) {
  constexpr int kChunks = D / 8;
  for (int e = static_cast<int>(threadIdx.x); e < rows * kChunks; e += kThreads) {
    const int r = e / kChunks, c = e % kChunks;
    const bool in = row0 + r < limit;
    cp_async16(dst + swizzle<D>(r, c),
               src + static_cast<std::size_t>(in ? row0 + r : 0) * D + c * 8, in);
  }
}

template <class T, int D>
__global__ void __launch_bounds__(kThreads, 1)
    flash_attention(const T* q, const T* k, const T* v, float* o, Dims dims) {
  extern __shared__ __align__(128) unsigned char smem[];
  T* s_q = reinterpret_cast<T*>(smem);
  T* s_kv = s_q + kRows * D;  // stage s: K at s_kv + 2·s·kKeys·D, V after it
  const auto stage_k = [&](int s) { return s_kv + 2 * s * kKeys * D; };
  const auto stage_v = [&](int s) { return s_kv + (2 * s + 1) * kKeys * D; };

  const int n = dims.n, bh = static_cast<int>(blockIdx.y), h = bh % dims.heads, b = bh / dims.heads;
  const int kvh = b * dims.kv_heads + h / (dims.heads / dims.kv_heads);
  const T* qh = q + static_cast<std::size_t>(bh) * n * D;
  const T* kh = k + static_cast<std::size_t>(kvh) * n * D;
  const T* vh = v + static_cast<std::size_t>(kvh) * n * D;
  // Causal: the last row blocks have the most key tiles; they go first.
  const int block =
      dims.causal ? static_cast<int>(gridDim.x - 1 - blockIdx.x) : static_cast<int>(blockIdx.x);
  const int i0 = block * kRows;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int g = lane / 4, t = lane % 4;
  const int warp_first = i0 + warp * 16, row_a = warp_first + g;  // rows g and g + 8
  const int key_end = dims.causal ? min(n, i0 + kRows) : n;
  const int tiles = (key_end + kKeys - 1) / kKeys;

  load_tile<T, D>(s_q, qh, i0, kRows, n);
  load_tile<T, D>(stage_k(0), kh, 0, kKeys, n);
  load_tile<T, D>(stage_v(0), vh, 0, kKeys, n);
  cp_async_commit();

  std::uint32_t qf[D / 16][4];  // this warp's 16 rows of Q as A fragments, for every tile
  float acc[D / 8][4];          // O: 16 rows × D, fp32
  for (auto& a : acc) a[0] = a[1] = a[2] = a[3] = 0;
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0, 0};  // rows g and g + 8, base-2 max

  for (int tile = 0; tile < tiles; ++tile) {
    const int j0 = tile * kKeys, stage = tile & 1;
    if (tile + 1 < tiles) {  // the next tile into the other stage, freed by the last barrier
      load_tile<T, D>(stage_k(stage ^ 1), kh, j0 + kKeys, kKeys, n);
      load_tile<T, D>(stage_v(stage ^ 1), vh, j0 + kKeys, kKeys, n);
      cp_async_commit();
      cp_async_wait<1>();  // this tile's group (and Q) landed; the next may be in flight
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();  // every thread's copies of this tile are visible
    if (tile == 0)
      for (int kk = 0; kk < D / 16; ++kk)  // matrices: rows 0-7 | 8-15 × columns 16kk | +8
        ldmatrix_x4<false>(qf[kk], s_q + swizzle<D>(warp * 16 + (lane & 7) + 8 * ((lane >> 3) & 1),
                                                    2 * kk + (lane >> 4)));
    // Warp-uniform: the warp has a row, and (causal) some key of the tile is seen by one.
    if (warp_first < n && (!dims.causal || j0 <= warp_first + 15)) {
      const T* sk = stage_k(stage);
      const T* sv = stage_v(stage);
      float s[kKeys / 8][4];  // scores, 16 rows × 64 keys: C fragments per 8 keys
      for (auto& x : s) x[0] = x[1] = x[2] = x[3] = 0;
      for (int kk = 0; kk < D / 16; ++kk)
        for (int nb = 0; nb < kKeys / 16; ++nb) {  // keys 16nb..+7 | +8..+15, d chunks 2kk | +1
          std::uint32_t kf[4];
          ldmatrix_x4<false>(kf, sk + swizzle<D>(16 * nb + (lane & 7) + 8 * (lane >> 4),
                                                 2 * kk + ((lane >> 3) & 1)));
          mma<T>(s[2 * nb], qf[kk], kf[0], kf[1]);
          mma<T>(s[2 * nb + 1], qf[kk], kf[2], kf[3]);
        }
      // Masks: keys past n (the last tile) and, causal, keys past the row (diagonal tiles).
      if (j0 + kKeys > n || (dims.causal && j0 + kKeys - 1 > warp_first))
        for (int nb = 0; nb < kKeys / 8; ++nb)
          for (int e = 0; e < 4; ++e) {
            const int key = j0 + 8 * nb + 2 * t + (e & 1), row = row_a + 8 * (e >> 1);
            if (key >= n || (dims.causal && key > row)) s[nb][e] = -INFINITY;
          }
      // Online softmax per row (a row's 64 scores sit in the 4 lanes of a quad).
      for (int r = 0; r < 2; ++r) {
        float mx = -INFINITY;
        for (int nb = 0; nb < kKeys / 8; ++nb)
          mx = nan_max(mx, nan_max(s[nb][2 * r], s[nb][2 * r + 1]));
        mx = nan_max(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
        mx = nan_max(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
        const float m_new = nan_max(m[r], mx * dims.scale_log2);
        const float base = m_new == -INFINITY ? 0.0f : m_new;  // no key seen yet: weights 0
        const float rescale = exp2f(m[r] - base);
        m[r] = m_new;
        l[r] *= rescale;
        for (auto& a : acc) a[2 * r] *= rescale, a[2 * r + 1] *= rescale;
        for (int nb = 0; nb < kKeys / 8; ++nb)
          for (int e = 2 * r; e < 2 * r + 2; ++e) {
            s[nb][e] = exp2f(fmaf(s[nb][e], dims.scale_log2, -base));
            l[r] += s[nb][e];  // this lane's part of the row sum; the quad's summed at the end
          }
      }
      // O += P·V: P's A fragment for keys 16kk..+15 is the C fragments of 8-key blocks 2kk, 2kk+1.
      for (int kk = 0; kk < kKeys / 16; ++kk) {
        const std::uint32_t pf[4] = {pack<T>(s[2 * kk][0], s[2 * kk][1]),
                                     pack<T>(s[2 * kk][2], s[2 * kk][3]),
                                     pack<T>(s[2 * kk + 1][0], s[2 * kk + 1][1]),
                                     pack<T>(s[2 * kk + 1][2], s[2 * kk + 1][3])};
        for (int db = 0; db < D / 16; ++db) {  // keys 16kk..+7 | +8..+15 × d chunks 2db | +1
          std::uint32_t vf[4];
          ldmatrix_x4<true>(vf, sv + swizzle<D>(16 * kk + (lane & 7) + 8 * ((lane >> 3) & 1),
                                                2 * db + (lane >> 4)));
          mma<T>(acc[2 * db], pf, vf[0], vf[1]);
          mma<T>(acc[2 * db + 1], pf, vf[2], vf[3]);
        }
      }
    }
    __syncthreads();  // every warp is done with this stage before the next prefetch refills it
  }
  for (int r = 0; r < 2; ++r) {
    l[r] += __shfl_xor_sync(0xffffffffu, l[r], 1);
    l[r] += __shfl_xor_sync(0xffffffffu, l[r], 2);
    const int row = row_a + 8 * r;
    if (row >= n) continue;
    const float inv = 1 / l[r];
    float* out = o + (static_cast<std::size_t>(bh) * n + row) * D + 2 * t;
    for (int db = 0; db < D / 8; ++db)
      *reinterpret_cast<float2*>(out + 8 * db) =
          make_float2(acc[db][2 * r] * inv, acc[db][2 * r + 1] * inv);
  }
}

constexpr int kMaxDevices = 64;

}  // namespace

template <class T, int D>
void launch(const reference::AttentionDims& s, const T* q, const T* k, const T* v, float* o,
            cudaStream_t stream) {
  constexpr std::size_t smem = smem_bytes<D>();
  // The shared-memory opt-in applies to the current device: once per device, not per launch.
  static std::array<std::atomic<bool>, kMaxDevices> opted_in{};
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  if (device < 0 || device >= kMaxDevices)
    throw std::runtime_error("flash attention: device index " + std::to_string(device) +
                             " beyond " + std::to_string(kMaxDevices));
  if (!opted_in[static_cast<std::size_t>(device)].load(std::memory_order_acquire)) {
    check_cuda(
        cudaFuncSetAttribute(flash_attention<T, D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(smem)),
        "cudaFuncSetAttribute (flash attention shared memory)");
    opted_in[static_cast<std::size_t>(device)].store(true, std::memory_order_release);
  }
  const Dims dims{static_cast<int>(s.n), static_cast<int>(s.heads), static_cast<int>(s.kv_heads),
                  s.causal,
                  static_cast<float>(1.4426950408889634 / std::sqrt(static_cast<double>(D)))};
  const dim3 grid(static_cast<unsigned>((s.n + kRows - 1) / kRows),
                  static_cast<unsigned>(s.batch * s.heads));
  flash_attention<T, D><<<grid, kThreads, smem, stream>>>(q, k, v, o, dims);
  check_launch("flash_attention");
}

template void launch<__half, 64>(const reference::AttentionDims&, const __half*, const __half*,
                                 const __half*, float*, cudaStream_t);
template void launch<__half, 128>(const reference::AttentionDims&, const __half*, const __half*,
                                  const __half*, float*, cudaStream_t);
template void launch<__nv_bfloat16, 64>(const reference::AttentionDims&, const __nv_bfloat16*,
                                        const __nv_bfloat16*, const __nv_bfloat16*, float*,
                                        cudaStream_t);
template void launch<__nv_bfloat16, 128>(const reference::AttentionDims&, const __nv_bfloat16*,
                                         const __nv_bfloat16*, const __nv_bfloat16*, float*,
                                         cudaStream_t);

}  // namespace bb::kernels::flash
