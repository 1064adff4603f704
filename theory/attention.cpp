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
  const double b = s.bytes_per_element;
  return naive_attention_work(s, {b, b, b, false}).bytes();
}

double tiled_attention_bytes(const AttentionShape& s, double block_rows) {
  const double blocks = std::ceil(s.n / block_rows);
  const double kv_passes =
      s.causal ? (blocks + 1) / 2 : blocks;  // mean blocks at or below diagonal
  const double per_head = 2 * s.n * s.d + 2 * s.n * s.d * kv_passes;
  return s.batch * s.heads * per_head * s.bytes_per_element;
}

WorkCount naive_attention_work(const AttentionShape& s, const NaiveAttentionLayout& l) {
  const double heads = s.batch * s.heads, n = s.n, d = s.d, in = s.bytes_per_element;
  return {heads * (2 * n * d * in + n * n * l.score_bytes + n * n * l.prob_bytes + n * d * in),
          heads * (n * n * l.score_bytes + n * n * l.prob_bytes + n * d * l.output_bytes),
          attention_flop(s), heads * n * d};
}

WorkCount tiled_attention_work(const AttentionShape& s, double block_rows, double output_bytes) {
  const double o_elements = s.batch * s.heads * s.n * s.d;
  return {tiled_attention_bytes(s, block_rows) - o_elements * s.bytes_per_element,
          o_elements * output_bytes, attention_flop(s), o_elements};
}

double compulsory_attention_bytes(const AttentionShape& s) {
  return attention_io_bytes(s, s.n, s.bytes_per_element);
}

WorkCount compulsory_attention_work(const AttentionShape& s, double output_bytes) {
  const double o_elements = s.batch * s.heads * s.n * s.d;
  return {attention_io_bytes(s, s.n, 0), o_elements * output_bytes, attention_flop(s), o_elements};
}

double naive_extra_bytes(const AttentionShape& s, const NaiveAttentionLayout& l) {
  return s.batch * s.heads * s.n * s.n * (l.score_bytes + (l.prob_in_place ? 0 : l.prob_bytes));
}

double attention_io_bytes(const AttentionShape& s, double queries, double output_bytes) {
  return s.batch * s.heads * queries * s.d * (s.bytes_per_element + output_bytes) +
         2 * s.batch * s.kv_heads * s.n * s.d * s.bytes_per_element;
}

double decode_flop(const AttentionShape& s) { return 4 * s.batch * s.heads * s.n * s.d; }

WorkCount decode_work(const AttentionShape& s, double output_bytes) {
  const double q_elements = s.batch * s.heads * s.d;
  return {kv_cache_bytes(1, s.n, s.kv_heads, s.d, s.bytes_per_element, s.batch) +
              q_elements * s.bytes_per_element,
          q_elements * output_bytes, decode_flop(s), q_elements};
}

double kv_cache_bytes(double layers, double n, double kv_heads, double d, double bytes_per_element,
                      double batch) {
  return 2 * layers * n * kv_heads * d * bytes_per_element * batch;
}

}  // namespace bb::theory
