#include <algorithm>
#include <cmath>
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
  constexpr std::size_t br = kHostBlockRows, bc = kHostBlockKeys;
  const float scale = 1 / std::sqrt(static_cast<float>(s.d));
  const std::size_t n = s.n, d = s.d, heads = s.batch * s.heads, blocks = (n + br - 1) / br;
#pragma omp parallel
  {
    std::vector<float> acc(br * d), sc(br * bc), m(br), l(br);
#pragma omp for collapse(2) schedule(dynamic)
    for (std::size_t bh = 0; bh < heads; ++bh)
      for (std::size_t blk = 0; blk < blocks; ++blk) {
        const std::size_t b = bh / s.heads, h = bh % s.heads;
        const std::size_t i0 = blk * br, rows = std::min(br, n - i0);
        std::fill(acc.begin(), acc.end(), 0.0f);
        std::fill(m.begin(), m.end(), kMinusInf);
        std::fill(l.begin(), l.end(), 0.0f);
        const std::size_t key_end = s.causal ? i0 + rows : n;  // keys past the block's last row
        for (std::size_t j0 = 0; j0 < key_end; j0 += bc) {
          const std::size_t cols = std::min(bc, key_end - j0);
          for (std::size_t r = 0; r < rows; ++r) {
            const std::size_t i = i0 + r, keys = s.keys_seen(i);
            const float* qi = q + s.q_row(b, h, i);
            float* srow = sc.data() + r * bc;
            const std::size_t seen = std::min(cols, keys > j0 ? keys - j0 : 0);
            scores_row(s, qi, k, b, h, j0, j0 + seen, scale, srow);
            for (std::size_t c = seen; c < cols; ++c) srow[c] = kMinusInf;
            float m_block = kMinusInf;
            for (std::size_t c = 0; c < cols; ++c) m_block = nan_max(m_block, srow[c]);
            const float m_new = nan_max(m[r], m_block);
            if (m_new == kMinusInf) continue;  // every key of this block is masked for this row
            const float rescale = std::exp(m[r] - m_new);
            float* a = acc.data() + r * d;
            float lr = l[r] * rescale;
#pragma omp simd
            for (std::size_t c = 0; c < d; ++c) a[c] *= rescale;
            for (std::size_t c = 0; c < seen; ++c) {  // masked keys: weight 0, V never read
              const float p = std::exp(srow[c] - m_new);
              lr += p;
              const float* vj = v + s.kv_row(b, h, j0 + c);
#pragma omp simd
              for (std::size_t e = 0; e < d; ++e) a[e] += p * vj[e];
            }
            l[r] = lr;
            m[r] = m_new;
          }
        }
        for (std::size_t r = 0; r < rows; ++r) {
          float* oi = o + s.q_row(b, h, i0 + r);
          const float inv = 1 / l[r];
          for (std::size_t c = 0; c < d; ++c) oi[c] = acc[r * d + c] * inv;
        }
      }
  }
}

}  // namespace bb::kernels
