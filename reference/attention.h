// CPU reference of attention: O = softmax(Q·Kᵀ/√d + mask)·V in fp64, naive (every score of a row,
// then the softmax) and tiled with the online softmax (Milakov & Gimelshein, "Online normalizer
// calculation for softmax", 2018), which must agree with it. Layout: Q, O [B][H][n][d]; K, V
// [B][H_kv][n][d]; query head h reads K/V head h / (H / H_kv) (GQA; MQA when H_kv = 1).
// A NaN anywhere in a row's scores makes the whole output row NaN (the row max propagates it),
// so NaN and inf inputs are never turned into plausible numbers.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "reference/random.h"

namespace bb::reference {

struct AttentionDims {
  std::size_t batch = 1, heads = 1, kv_heads = 1, n = 1, d = 64;
  bool causal = false;
  std::size_t q_elements() const { return batch * heads * n * d; }
  std::size_t kv_elements() const { return batch * kv_heads * n * d; }
  // Offsets of the first element of row i of query head h / its K/V head.
  std::size_t q_row(std::size_t b, std::size_t h, std::size_t i) const {
    return ((b * heads + h) * n + i) * d;
  }
  std::size_t kv_row(std::size_t b, std::size_t h, std::size_t j) const {
    return ((b * kv_heads + h / (heads / kv_heads)) * n + j) * d;
  }
  std::size_t keys_seen(std::size_t i) const { return causal ? i + 1 : n; }
};

// max that propagates NaN (std::max and fmax drop it).
inline double nan_max(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? std::numeric_limits<double>::quiet_NaN() : std::max(a, b);
}

// One query vector `qi` (d elements) of head (b, h) against that head's keys [0, keys) in fp64:
// scores, their max, exp, sum, then the weighted sum of V. Decode is this with keys = n.
template <class T, class Q>
void attention_query_fp64(const AttentionDims& s, const Q* qi, std::size_t keys, const T* k,
                          const T* v, std::size_t b, std::size_t h, double* out) {
  const double scale = 1 / std::sqrt(static_cast<double>(s.d));
  std::vector<double> p(keys);
  double m = -std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < keys; ++j) {
    const T* kj = k + s.kv_row(b, h, j);
    double dot = 0;
    for (std::size_t c = 0; c < s.d; ++c)
      dot += static_cast<double>(qi[c]) * static_cast<double>(kj[c]);
    p[j] = dot * scale;
    m = nan_max(m, p[j]);
  }
  double l = 0;
  for (auto& x : p) l += (x = std::exp(x - m));
  std::fill(out, out + s.d, 0.0);
  for (std::size_t j = 0; j < keys; ++j) {
    const T* vj = v + s.kv_row(b, h, j);
    for (std::size_t c = 0; c < s.d; ++c) out[c] += p[j] * static_cast<double>(vj[c]);
  }
  for (std::size_t c = 0; c < s.d; ++c) out[c] /= l;
}

// Output row (b, h, i): query i against the keys it sees.
template <class T>
void attention_row_fp64(const AttentionDims& s, const T* q, const T* k, const T* v, std::size_t b,
                        std::size_t h, std::size_t i, double* out) {
  attention_query_fp64(s, q + s.q_row(b, h, i), s.keys_seen(i), k, v, b, h, out);
}

// The same row with the online softmax over key blocks of `block` keys: a running max m, a running
// sum l and an accumulator rescaled by exp(m_old − m_new) whenever the max grows.
template <class T>
void attention_row_online_fp64(const AttentionDims& s, const T* q, const T* k, const T* v,
                               std::size_t b, std::size_t h, std::size_t i, std::size_t block,
                               double* out) {
  const double scale = 1 / std::sqrt(static_cast<double>(s.d));
  const std::size_t keys = s.keys_seen(i);
  double m = -std::numeric_limits<double>::infinity(), l = 0;
  std::fill(out, out + s.d, 0.0);
  std::vector<double> sc(block);
  const T* qi = q + s.q_row(b, h, i);
  for (std::size_t j0 = 0; j0 < keys; j0 += block) {
    const std::size_t j1 = std::min(keys, j0 + block);
    double m_block = -std::numeric_limits<double>::infinity();
    for (std::size_t j = j0; j < j1; ++j) {
      const T* kj = k + s.kv_row(b, h, j);
      double dot = 0;
      for (std::size_t c = 0; c < s.d; ++c)
        dot += static_cast<double>(qi[c]) * static_cast<double>(kj[c]);
      sc[j - j0] = dot * scale;
      m_block = nan_max(m_block, sc[j - j0]);
    }
    const double m_new = nan_max(m, m_block);
    const double rescale = std::exp(m - m_new);  // exp(−inf) = 0 on the first block
    l *= rescale;
    for (std::size_t c = 0; c < s.d; ++c) out[c] *= rescale;
    for (std::size_t j = j0; j < j1; ++j) {
      const double p = std::exp(sc[j - j0] - m_new);
      l += p;
      const T* vj = v + s.kv_row(b, h, j);
      for (std::size_t c = 0; c < s.d; ++c) out[c] += p * static_cast<double>(vj[c]);
    }
    m = m_new;
  }
  for (std::size_t c = 0; c < s.d; ++c) out[c] /= l;
}

// Test inputs: uniform in [−1, 1), one element in 128 an outlier 4× larger (a few keys then win a
// row's softmax clearly, as trained models' do), never exactly 0.
inline float attention_test_value(std::uint64_t seed, std::uint64_t i) {
  const std::uint64_t r = splitmix64(seed ^ (i * 0xD1B54A32D192ED03ull));
  const double u = static_cast<double>(r >> 11) * 0x1.0p-53;  // [0, 1)
  const double x = (2 * u - 1) * ((r & 127) == 0 ? 4.0 : 1.0);
  return static_cast<float>(x == 0 ? 0x1p-10 : x);
}

// The rows a check compares: the first and last rows of every head and a spread between them.
inline std::vector<std::size_t> checked_rows(std::size_t n, std::size_t spread = 16) {
  std::vector<std::size_t> rows{0, 1, n / 2, n - 2, n - 1};
  for (std::size_t r = 0; r < spread; ++r) rows.push_back((2 * r + 1) * n / (2 * spread));
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  while (!rows.empty() && rows.back() >= n) rows.pop_back();
  return rows;
}

}  // namespace bb::reference
