#include "theory/attention.h"

#include <cmath>

namespace bb::theory {

void validate(const AttentionShape& s) {
  for (double v : {s.batch, s.heads, s.kv_heads, s.n, s.d})
    if (!(v >= 1) || v != std::floor(v))
      throw std::invalid_argument("attention sizes must be whole numbers >= 1");
  if (!(s.bytes_per_element > 0)) throw std::invalid_argument("bytes per element must be > 0");
  if (std::fmod(s.heads, s.kv_heads) != 0)
    throw std::invalid_argument("heads (" + std::to_string(static_cast<long long>(s.heads)) +
                                ") must be a multiple of kv heads (" +
                                std::to_string(static_cast<long long>(s.kv_heads)) + ")");
}

double attention_flop(const AttentionShape& s) {
  const double f = 4 * s.batch * s.heads * s.n * s.n * s.d;
  return s.causal ? f / 2 : f;
}

double naive_attention_bytes(const AttentionShape& s) {
  const double per_head = 4 * s.n * s.n + 4 * s.n * s.d;
  return s.batch * s.heads * per_head * s.bytes_per_element;
}

double tiled_attention_bytes(const AttentionShape& s, double block_rows) {
  const double blocks = std::ceil(s.n / block_rows);
  const double kv_passes =
      s.causal ? (blocks + 1) / 2 : blocks;  // mean blocks at or below diagonal
  const double per_head = 2 * s.n * s.d + 2 * s.n * s.d * kv_passes;
  return s.batch * s.heads * per_head * s.bytes_per_element;
}

double naive_extra_bytes(const AttentionShape& s) { return s.batch * s.heads * s.n * s.n * 4; }

double decode_flop(const AttentionShape& s) { return 4 * s.batch * s.heads * s.n * s.d; }

double kv_cache_bytes(double layers, double n, double kv_heads, double d, double bytes_per_element,
                      double batch) {
  return 2 * layers * n * kv_heads * d * bytes_per_element * batch;
}

}  // namespace bb::theory
