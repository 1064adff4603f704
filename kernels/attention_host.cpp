#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "kernels/attention.h"

namespace bb::kernels {
namespace {

using reference::AttentionDims;
constexpr float kMinusInf = -std::numeric_limits<float>::infinity();

inline float dot(const float* a, const float* b, std::size_t d) {
  float acc = 0;
#pragma omp simd reduction(+ : acc)
  for (std::size_t c = 0; c < d; ++c) acc += a[c] * b[c];
  return acc;
}

// Four dot products of one query with four keys: four independent accumulators (the loads of q are
// shared, the FMA latency hidden).
inline void dot4(const float* q, const float* k0, const float* k1, const float* k2, const float* k3,
                 std::size_t d, float* out) {
  float a0 = 0, a1 = 0, a2 = 0, a3 = 0;
#pragma omp simd reduction(+ : a0, a1, a2, a3)
  for (std::size_t c = 0; c < d; ++c) {
    a0 += q[c] * k0[c];
    a1 += q[c] * k1[c];
    a2 += q[c] * k2[c];
    a3 += q[c] * k3[c];
  }
  out[0] = a0, out[1] = a1, out[2] = a2, out[3] = a3;
}

// Scores of query row qi against keys [j0, j1) of head (b, h), scaled, into out[0 … j1 − j0).
inline void scores_row(const AttentionDims& s, const float* qi, const float* k, std::size_t b,
                       std::size_t h, std::size_t j0, std::size_t j1, float scale, float* out) {
  std::size_t j = j0;
  for (; j + 4 <= j1; j += 4) {
    dot4(qi, k + s.kv_row(b, h, j), k + s.kv_row(b, h, j + 1), k + s.kv_row(b, h, j + 2),
         k + s.kv_row(b, h, j + 3), s.d, out + (j - j0));
    for (std::size_t c = 0; c < 4; ++c) out[j - j0 + c] *= scale;
  }
  for (; j < j1; ++j) out[j - j0] = dot(qi, k + s.kv_row(b, h, j), s.d) * scale;
}

// max that keeps a NaN (std::max would drop it depending on the order).
inline float nan_max(float a, float b) { return a != a || b != b ? a + b : (a > b ? a : b); }

// --- Tiled kernel: a block of kHostBlockRows query rows against blocks of kHostBlockKeys keys ---
// S = Q·Kᵀ for the tile by a register-blocked micro-kernel (4 rows × 64 keys of accumulators, K
// packed transposed once per call so that the keys are the vector lanes), the online softmax per
// row with a vectorised exp, then O += P·V by a second micro-kernel (4 rows × 64 columns of d). A
// block is FMAs over data in L1/L2: the n×n scores never leave the tile.
constexpr std::size_t kBr = kHostBlockRows, kBc = kHostBlockKeys, kMr = 4;
// A row's softmax sum is kept in kLanes partial sums (one per vector lane, each rescaled with the
// row), added across only at the end: a horizontal sum per row and key block cost 16 dependent
// scalar adds, ~12% of the kernel's time by perf.
constexpr std::size_t kLanes = 16;
static_assert(kBc % kLanes == 0);

struct TileScratch {
  explicit TileScratch(std::size_t d)
      : p((kBr + kMr) * kBc), acc(kBr * d), m(kBr), l(kBr * kLanes) {}
  std::vector<float> p, acc, m, l;  // P tile (+ spare rows), O, max, sums (kLanes a row)
};

// K of every (batch, KV head) packed in blocks of kBc keys, each block d × kBc with the keys
// contiguous (zeros past the last key): kt_block(bkv, jb) is block jb of KV head bkv.
struct PackedKeys {
  std::size_t d = 0, blocks = 0;
  std::vector<float> kt;
  const float* block(std::size_t bkv, std::size_t jb) const {
    return kt.data() + (bkv * blocks + jb) * d * kBc;
  }
};

PackedKeys pack_keys(const AttentionDims& s, const float* k) {
  PackedKeys pk{s.d, (s.n + kBc - 1) / kBc, {}};
  const std::size_t heads = s.batch * s.kv_heads;
  pk.kt.resize(heads * pk.blocks * s.d * kBc);
#pragma omp parallel for collapse(2) schedule(static)
  for (std::size_t bkv = 0; bkv < heads; ++bkv)
    for (std::size_t jb = 0; jb < pk.blocks; ++jb) {
      float* out = pk.kt.data() + (bkv * pk.blocks + jb) * s.d * kBc;
      for (std::size_t j = 0; j < kBc; ++j) {
        const std::size_t key = jb * kBc + j;
        if (key >= s.n) {
          for (std::size_t c = 0; c < s.d; ++c) out[c * kBc + j] = 0.0f;
          continue;
        }
        const float* kj = k + (bkv * s.n + key) * s.d;
        for (std::size_t c = 0; c < s.d; ++c) out[c * kBc + j] = kj[c];
      }
    }
  return pk;
}

// a·b + c, fused where the ISA has FMA (the baseline build has none: a library call otherwise).
template <bool kFma>
[[gnu::always_inline]] inline float madd(float a, float b, float c) {
  if constexpr (kFma) return __builtin_fmaf(a, b, c);
  return a * b + c;
}

// e^x for x ≤ 0 as the softmax needs it (NaN stays NaN, −inf gives 0, large x gives +inf):
// 2^k·e^r with k = round(x·log2 e), r = x − k·ln 2 in two parts (Cody–Waite), e^r by its Taylor
// polynomial of degree 7 (|r| ≤ ln2/2: truncation < 6e-9 relative). Within a few ulps of expf;
// branch-free, so that it vectorises.
template <bool kFma>
[[gnu::always_inline]] inline float exp_softmax(float x) {
  const float xc = x < -87.0f ? -87.0f : (x > 88.0f ? 88.0f : x);   // NaN passes through
  const float kf = (xc * 1.44269504f + 12582912.0f) - 12582912.0f;  // round to nearest (2^23·1.5)
  float r = madd<kFma>(kf, -0.693359375f, xc);                      // ln2 high part: exact product
  r = madd<kFma>(kf, 2.12194440e-4f, r);                            // − ln2 low part
  float e = 1.0f / 5040;
  e = madd<kFma>(e, r, 1.0f / 720);
  e = madd<kFma>(e, r, 1.0f / 120);
  e = madd<kFma>(e, r, 1.0f / 24);
  e = madd<kFma>(e, r, 1.0f / 6);
  e = madd<kFma>(e, r, 0.5f);
  e = madd<kFma>(e, r, 1.0f);
  e = madd<kFma>(e, r, 1.0f);
  const float scale =
      std::bit_cast<float>(static_cast<std::uint32_t>(static_cast<int>(kf) + 127) << 23);
  const float y = e * scale;
  return x < -87.0f ? 0.0f : (x > 88.5f ? std::numeric_limits<float>::infinity() : y);
}

// S[r][0 … kBc) = Q row r · K-block (kt: d × kBc, keys contiguous) for kMr rows at once.
template <bool kFma>
[[gnu::always_inline]] inline void scores_micro(const float* const* qr, const float* kt,
                                                std::size_t d, float* const* sr) {
  float acc[kMr][kBc] = {};
  for (std::size_t c = 0; c < d; ++c) {
    const float* ktc = kt + c * kBc;
    for (std::size_t x = 0; x < kMr; ++x) {
      const float qv = qr[x][c];
#pragma omp simd
      for (std::size_t j = 0; j < kBc; ++j) acc[x][j] = madd<kFma>(qv, ktc[j], acc[x][j]);
    }
  }
  for (std::size_t x = 0; x < kMr; ++x)
    for (std::size_t j = 0; j < kBc; ++j) sr[x][j] = acc[x][j];
}

// O rows += P rows · V[0 … keys) for kMr rows at once, over columns [c0, c0 + kW) of d.
template <bool kFma, std::size_t kW>
[[gnu::always_inline]] inline void pv_micro(const float* const* pr, const float* v0, std::size_t d,
                                            std::size_t keys, std::size_t c0, float* const* ar) {
  float acc[kMr][kW];
  for (std::size_t x = 0; x < kMr; ++x)
    for (std::size_t c = 0; c < kW; ++c) acc[x][c] = ar[x][c0 + c];
  for (std::size_t j = 0; j < keys; ++j) {
    const float* vj = v0 + j * d + c0;
    for (std::size_t x = 0; x < kMr; ++x) {
      const float pv = pr[x][j];
#pragma omp simd
      for (std::size_t c = 0; c < kW; ++c) acc[x][c] = madd<kFma>(pv, vj[c], acc[x][c]);
    }
  }
  for (std::size_t x = 0; x < kMr; ++x)
    for (std::size_t c = 0; c < kW; ++c) ar[x][c0 + c] = acc[x][c];
}

// One row's O += P · V[0 … keys), scalar over keys, vector over d (ragged ends of the tile).
template <bool kFma>
[[gnu::always_inline]] inline void pv_row(const float* p, const float* v0, std::size_t d,
                                          std::size_t k0, std::size_t k1, float* a) {
  for (std::size_t j = k0; j < k1; ++j) {
    const float* vj = v0 + j * d;
    const float pj = p[j];
#pragma omp simd
    for (std::size_t c = 0; c < d; ++c) a[c] = madd<kFma>(pj, vj[c], a[c]);
  }
}

// Rows [i0, i0 + kBr) of head bh.
template <bool kFma>
[[gnu::always_inline]] inline void tile_rows(const AttentionDims& s, const float* q,
                                             const PackedKeys& pk, const float* v, float* o,
                                             std::size_t bh, std::size_t i0, TileScratch& t) {
  const std::size_t n = s.n, d = s.d, b = bh / s.heads, h = bh % s.heads;
  const std::size_t rows = std::min(kBr, n - i0);
  const float scale = 1 / std::sqrt(static_cast<float>(d));
  float* const acc = t.acc.data();
  std::fill(acc, acc + rows * d, 0.0f);
  std::fill(t.m.begin(), t.m.end(), kMinusInf);
  std::fill(t.l.begin(), t.l.end(), 0.0f);
  const float* const qb = q + s.q_row(b, h, i0);
  const std::size_t bkv = b * s.kv_heads + h / (s.heads / s.kv_heads);
  const float* const vb = v + s.kv_row(b, h, 0);
  const std::size_t key_end = s.causal ? i0 + rows : n;  // keys past the block's last row
  for (std::size_t j0 = 0; j0 < key_end; j0 += kBc) {
    const std::size_t cols = std::min(kBc, key_end - j0);
    const float* const kt = pk.block(bkv, j0 / kBc);
    // S tile, kMr rows at a time (spare rows past the block's end read row 0 of Q and write the
    // spare P rows past kBr).
    for (std::size_t r0 = 0; r0 < rows; r0 += kMr) {
      const float* qr[kMr];
      float* sr[kMr];
      for (std::size_t x = 0; x < kMr; ++x) {
        qr[x] = qb + (r0 + x < rows ? r0 + x : 0) * d;
        sr[x] = t.p.data() + (r0 + x) * kBc;
      }
      scores_micro<kFma>(qr, kt, d, sr);
    }
    // The online softmax per row: P over the seen keys, 0 past them.
    std::size_t seen[kBr];
    for (std::size_t r = 0; r < rows; ++r) {
      const std::size_t i = i0 + r, keys = s.keys_seen(i);
      seen[r] = std::min(cols, keys > j0 ? keys - j0 : 0);
      float* pr = t.p.data() + r * kBc;
      float m_block = kMinusInf;
      int nan = 0;
#pragma omp simd reduction(| : nan) reduction(max : m_block)
      for (std::size_t c = 0; c < seen[r]; ++c) {
        pr[c] *= scale;
        nan |= pr[c] != pr[c];
        m_block = pr[c] > m_block ? pr[c] : m_block;
      }
      if (nan) m_block = std::numeric_limits<float>::quiet_NaN();
      const float m_new = nan_max(t.m[r], m_block);
      if (m_new == kMinusInf) {  // every key of this block is masked for this row
        seen[r] = 0;
        continue;
      }
      const float rescale = exp_softmax<kFma>(t.m[r] - m_new);  // ≤ 0, or −inf: 0
      float* const lr = t.l.data() + r * kLanes;
#pragma omp simd
      for (std::size_t x = 0; x < kLanes; ++x) lr[x] *= rescale;
      // kBc is a multiple of kLanes: the keys past seen[r] get 0 (never read by P·V).
      for (std::size_t c0 = 0; c0 < seen[r]; c0 += kLanes) {
#pragma omp simd
        for (std::size_t x = 0; x < kLanes; ++x) {
          const float e = c0 + x < seen[r] ? exp_softmax<kFma>(pr[c0 + x] - m_new) : 0.0f;
          pr[c0 + x] = e;
          lr[x] += e;
        }
      }
      t.m[r] = m_new;
      float* a = acc + r * d;
#pragma omp simd
      for (std::size_t c = 0; c < d; ++c) a[c] *= rescale;
    }
    // O += P·V: kMr rows over the keys all of them see, each row's further keys alone.
    const float* v0 = vb + j0 * d;
    std::size_t r0 = 0;
    for (; r0 + kMr <= rows; r0 += kMr) {
      std::size_t common = seen[r0];
      for (std::size_t x = 1; x < kMr; ++x) common = std::min(common, seen[r0 + x]);
      const float* pr[kMr];
      float* ar[kMr];
      for (std::size_t x = 0; x < kMr; ++x) {
        pr[x] = t.p.data() + (r0 + x) * kBc;
        ar[x] = acc + (r0 + x) * d;
      }
      std::size_t c0 = 0;
      if (common > 0) {
        for (; c0 + 64 <= d; c0 += 64) pv_micro<kFma, 64>(pr, v0, d, common, c0, ar);
        for (; c0 + 16 <= d; c0 += 16) pv_micro<kFma, 16>(pr, v0, d, common, c0, ar);
        for (std::size_t x = 0; x < kMr && c0 < d; ++x)
          for (std::size_t j = 0; j < common; ++j)
            for (std::size_t c = c0; c < d; ++c)
              ar[x][c] = madd<kFma>(pr[x][j], v0[j * d + c], ar[x][c]);
      }
      for (std::size_t x = 0; x < kMr; ++x) pv_row<kFma>(pr[x], v0, d, common, seen[r0 + x], ar[x]);
    }
    for (; r0 < rows; ++r0) pv_row<kFma>(t.p.data() + r0 * kBc, v0, d, 0, seen[r0], acc + r0 * d);
  }
  for (std::size_t r = 0; r < rows; ++r) {
    float* oi = o + s.q_row(b, h, i0 + r);
    float l = 0;
    for (std::size_t x = 0; x < kLanes; ++x) l += t.l[r * kLanes + x];
    const float inv = 1 / l;
    for (std::size_t c = 0; c < d; ++c) oi[c] = acc[r * d + c] * inv;
  }
}

[[gnu::target("avx512f,avx512vl,fma,prefer-vector-width=512")]] void tile_rows_avx512(
    const AttentionDims& s, const float* q, const PackedKeys& k, const float* v, float* o,
    std::size_t bh, std::size_t i0, TileScratch& t) {
  tile_rows<true>(s, q, k, v, o, bh, i0, t);
}
[[gnu::target("avx2,fma")]] void tile_rows_avx2(const AttentionDims& s, const float* q,
                                                const PackedKeys& k, const float* v, float* o,
                                                std::size_t bh, std::size_t i0, TileScratch& t) {
  tile_rows<true>(s, q, k, v, o, bh, i0, t);
}
void tile_rows_baseline(const AttentionDims& s, const float* q, const PackedKeys& k, const float* v,
                        float* o, std::size_t bh, std::size_t i0, TileScratch& t) {
  tile_rows<false>(s, q, k, v, o, bh, i0, t);
}

}  // namespace

void attention_naive_host(const AttentionDims& s, const float* q, const float* k, const float* v,
                          float* scores, float* o) {
  const float scale = 1 / std::sqrt(static_cast<float>(s.d));
  const std::size_t n = s.n, d = s.d, heads = s.batch * s.heads;
  // Pass 1: S = Q·Kᵀ / √d.
#pragma omp parallel for collapse(2) schedule(static)
  for (std::size_t bh = 0; bh < heads; ++bh)
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t b = bh / s.heads, h = bh % s.heads;
      float* row = scores + (bh * n + i) * n;
      const float* qi = q + s.q_row(b, h, i);
      const std::size_t keys = s.keys_seen(i);
      scores_row(s, qi, k, b, h, 0, keys, scale, row);
      for (std::size_t j = keys; j < n; ++j) row[j] = kMinusInf;
    }
    // Pass 2: P = softmax(S), row by row, in place.
#pragma omp parallel for schedule(static)
  for (std::size_t r = 0; r < heads * n; ++r) {
    float* row = scores + r * n;
    float m = kMinusInf, l = 0;
    for (std::size_t j = 0; j < n; ++j) m = nan_max(m, row[j]);
    for (std::size_t j = 0; j < n; ++j) l += (row[j] = std::exp(row[j] - m));
    const float inv = 1 / l;
#pragma omp simd
    for (std::size_t j = 0; j < n; ++j) row[j] *= inv;
  }
  // Pass 3: O = P·V.
#pragma omp parallel for collapse(2) schedule(static)
  for (std::size_t bh = 0; bh < heads; ++bh)
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t b = bh / s.heads, h = bh % s.heads;
      const float* p = scores + (bh * n + i) * n;
      float* oi = o + s.q_row(b, h, i);
      for (std::size_t c = 0; c < d; ++c) oi[c] = 0;
      const std::size_t keys = s.keys_seen(i);
      for (std::size_t j = 0; j < keys; ++j) {
        const float* vj = v + s.kv_row(b, h, j);
        const float pj = p[j];
#pragma omp simd
        for (std::size_t c = 0; c < d; ++c) oi[c] += pj * vj[c];
      }
    }
}

void attention_tiled_host(const AttentionDims& s, const float* q, const float* k, const float* v,
                          float* o) {
  if (s.d > kHostMaxHeadDim) throw std::invalid_argument("tiled host attention: d > 256");
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const std::size_t heads = s.batch * s.heads, blocks = (s.n + kHostBlockRows - 1) / kHostBlockRows;
  const PackedKeys pk = pack_keys(s, k);
#pragma omp parallel
  {
    TileScratch t(s.d);
#pragma omp for collapse(2) schedule(dynamic)
    for (std::size_t bh = 0; bh < heads; ++bh)
      for (std::size_t blk = 0; blk < blocks; ++blk) {
        if (avx512)
          tile_rows_avx512(s, q, pk, v, o, bh, blk * kHostBlockRows, t);
        else if (avx2)
          tile_rows_avx2(s, q, pk, v, o, bh, blk * kHostBlockRows, t);
        else
          tile_rows_baseline(s, q, pk, v, o, bh, blk * kHostBlockRows, t);
      }
  }
}

}  // namespace bb::kernels
