// Host int8 quantization, round to nearest, AVX-512 (kernels/quant_host_avx512.h). The reference
// computes v = x / s + z in double and rounds ties away from zero; here v' = fma(x, fl(1/s), z) in
// fp32, clamped to [q_min, q_max] and rounded to nearest even by the conversion. |v' − v| ≤ 2^-15
// for |x / s|, |v| ≤ 256 (two fp32 roundings of 2^-24 relative each, and the reference's own
// double rounding, 2^-44), so the codes agree wherever v' lies farther than 2^-12 from a
// half-integer; a group of 16 with a lane that close is redone with the reference's arithmetic
// (about 1 group in 130 of uniform data).
// Stochastic: the reference rounds v up when its draw u = (splitmix64(seed·G + i) >> 11)·2^-53 is
// below frac(v). Here the same splitmix64 runs on 8 64-bit lanes (vpmullq), u' = (… >> 40)·2^-24
// (u' ≤ u < u' + 2^-24), and v' is rounded up when u' < frac(v'). The code agrees wherever
// 2^-12 ≤ |u' − frac(v')| ≤ 1 − 2^-11: the first bound covers the errors of both (2^-15 +
// 2^-24) where v and v' share a floor; where they do not (v' within 2^-15 of an integer), the
// codes differ only for a draw at the far end of [0, 1) from frac(v'), which the second excludes.
// A group of 16 with a lane outside is redone with the reference's arithmetic (16 lanes × 2^-11:
// about 1 group in 128 of uniform data).
#include "kernels/quant_host_avx512.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>

#include "reference/quant.h"

// GCC 12 reports the unmasked AVX-512 intrinsics' own "undefined" pass-through operand as maybe
// uninitialized (a false positive inside avx512fintrin.h, at every inlined call).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace bb::kernels::detail {
namespace {

// Where the fp32 bodies' error bound holds: fl(1/s) normal, at most 256 codes, and the zero point
// among them (then |v| ≤ 256 and |x / s| ≤ 512 for x within the range s was made from, and z is
// exact in fp32). Caller-given parameters outside this take the reference's arithmetic.
inline bool fp32_body_applies(const theory::IntQuant& p) {
  return p.scale >= 0x1p-120 && p.scale <= 0x1p120 && p.q_max - p.q_min <= 255 &&
         p.zero_point >= p.q_min && p.zero_point <= p.q_max;
}

// The reference's arithmetic: v = x / s + z in double, and a rounding of it clamped to the codes.
// Inlined into the AVX-512 bodies, so compiled for them: a call out to SSE code with the vector
// registers' upper halves in use costs a state transition per value (4x the whole stochastic run).
[[gnu::always_inline]] inline double exact_scaled(float x, const theory::IntQuant& p) {
  return static_cast<double>(x) / p.scale + static_cast<double>(p.zero_point);
}
template <class Q>
[[gnu::always_inline]] inline Q exact_clamped(double r, const theory::IntQuant& p) {
  return static_cast<Q>(std::clamp(r, static_cast<double>(p.q_min), static_cast<double>(p.q_max)));
}
template <class Q>
[[gnu::always_inline]] inline Q exact_code(float x, const theory::IntQuant& p) {
  return exact_clamped<Q>(static_cast<double>(std::llround(exact_scaled(x, p))), p);
}
// The same, rounded stochastically with element i's draw.
template <class Q>
[[gnu::always_inline]] inline Q exact_stochastic_code(float x, const theory::IntQuant& p,
                                                      std::uint64_t seed, std::uint64_t i) {
  return exact_clamped<Q>(reference::round_stochastic(exact_scaled(x, p), seed, i), p);
}

// The fp32 bodies' v' = clamp(fma(x, fl(1/s), z), q_min, q_max), 16 lanes.
struct Scaling {
  __m512 inv, z, lo, hi;
  [[gnu::target("avx512f"), gnu::always_inline]] explicit Scaling(const theory::IntQuant& p)
      : inv(_mm512_set1_ps(static_cast<float>(1.0 / p.scale))),
        z(_mm512_set1_ps(static_cast<float>(p.zero_point))),
        lo(_mm512_set1_ps(static_cast<float>(p.q_min))),
        hi(_mm512_set1_ps(static_cast<float>(p.q_max))) {}
  [[gnu::target("avx512f"), gnu::always_inline]] __m512 operator()(const float* x) const {
    return _mm512_min_ps(_mm512_max_ps(_mm512_fmadd_ps(_mm512_loadu_ps(x), inv, z), lo), hi);
  }
};

template <class Q>
[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq"), gnu::always_inline]] inline void nearest(
    const float* x, std::size_t len, const theory::IntQuant& p, Q* q) {
  std::size_t i = 0;
  // fl(1/s) normal, and |x / s| ≤ 256 where x lies within the range s was made from.
  if (fp32_body_applies(p)) {
    const Scaling scaled(p);
    const __m512 half = _mm512_set1_ps(0.5f), margin = _mm512_set1_ps(0x1p-12f);
    for (; i + 16 <= len; i += 16) {
      const __m512 v = scaled(x + i);
      const __m512i code =
          _mm512_cvt_roundps_epi32(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
      const __m512 frac = _mm512_abs_ps(_mm512_sub_ps(v, _mm512_cvtepi32_ps(code)));  // exact
      if (_mm512_cmp_ps_mask(_mm512_abs_ps(_mm512_sub_ps(frac, half)), margin, _CMP_LE_OQ) != 0) {
        for (std::size_t k = i; k < i + 16; ++k) q[k] = exact_code<Q>(x[k], p);
        continue;
      }
      _mm_storeu_si128(reinterpret_cast<__m128i*>(q + i), _mm512_cvtepi32_epi8(code));
    }
  }
  for (; i < len; ++i) q[i] = exact_code<Q>(x[i], p);
}

// splitmix64 of 8 lanes (reference/random.h; the lanes already hold x + 0x9E3779B97F4A7C15) up to
// its last step, z ^ (z >> 31), which leaves bits 33–63 as they are: the draws use bits 40–63.
[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq"), gnu::always_inline]] inline __m512i
splitmix64_high(__m512i z) {
  z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 30)),
                         _mm512_set1_epi64(static_cast<long long>(0xBF58476D1CE4E5B9ull)));
  return _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 27)),
                            _mm512_set1_epi64(static_cast<long long>(0x94D049BB133111EBull)));
}

template <class Q>
[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq"), gnu::always_inline]] inline void stochastic(
    const float* x, std::size_t len, const theory::IntQuant& p, std::uint64_t seed,
    std::uint64_t first, Q* q) {
  std::size_t i = 0;
  if (fp32_body_applies(p)) {
    const Scaling scaled(p);
    const __m512 one = _mm512_set1_ps(1.0f), margin = _mm512_set1_ps(0x1p-12f);
    const __m512 far = _mm512_set1_ps(1.0f - 0x1p-11f), to_unit = _mm512_set1_ps(0x1p-24f);
    // The splitmix64 inputs of elements first + i + 0..15: seed·G + (first + i) + G.
    const std::uint64_t g = 0x9E3779B97F4A7C15ull, base = seed * g + first + g;
    const __m512i lane = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    const __m512i step = _mm512_set1_epi64(16), eight = _mm512_set1_epi64(8);
    // The high 32 bits of each 64-bit lane of two vectors, in lane order.
    const __m512i high_halves =
        _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
    __m512i idx = _mm512_add_epi64(_mm512_set1_epi64(static_cast<long long>(base)), lane);
    for (; i + 16 <= len; i += 16, idx = _mm512_add_epi64(idx, step)) {
      const __m512i bits = _mm512_srli_epi32(
          _mm512_permutex2var_epi32(splitmix64_high(idx), high_halves,
                                    splitmix64_high(_mm512_add_epi64(idx, eight))),
          8);  // bits 40–63 of each draw
      const __m512 u = _mm512_mul_ps(_mm512_cvtepi32_ps(bits), to_unit);  // exact
      const __m512 v = scaled(x + i);
      const __m512 f = _mm512_roundscale_ps(v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
      // Exact, except for v' in (−2^-24, 0), where it rounds to 1 (an error under 2^-24, within
      // the margins below).
      const __m512 frac = _mm512_sub_ps(v, f);
      // Near the draw, or the draw and v' at opposite ends of [0, 1) (v' near an integer).
      const __m512 apart = _mm512_abs_ps(_mm512_sub_ps(frac, u));
      if ((_mm512_cmp_ps_mask(apart, margin, _CMP_LT_OQ) |
           _mm512_cmp_ps_mask(apart, far, _CMP_GT_OQ)) != 0) {
        for (std::size_t k = i; k < i + 16; ++k)
          q[k] = exact_stochastic_code<Q>(x[k], p, seed, first + k);
        continue;
      }
      const __m512 r = _mm512_mask_add_ps(f, _mm512_cmp_ps_mask(u, frac, _CMP_LT_OQ), f, one);
      const __m512i code =
          _mm512_cvt_roundps_epi32(r, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(q + i), _mm512_cvtepi32_epi8(code));
    }
  }
  for (; i < len; ++i) q[i] = exact_stochastic_code<Q>(x[i], p, seed, first + i);
}

// Min and max of x[0, len), len ≥ 1: 16 lanes, folded in halves (a group's codes wait on it),
// then the tail. Kept beside quant_host.cpp's minmax_run on purpose: that one (GCC vector
// extensions) inlined here measured 2–6% slower on the per-group cases (2026-12-06, 4 interleaved
// single-thread rounds on the 2-core Xeon: stochastic slower in 4 of 4).
[[gnu::target("avx512f"), gnu::always_inline]] inline void minmax(const float* x, std::size_t len,
                                                                  float& lo, float& hi) {
  float l = x[0], h = x[0];
  std::size_t i = 0;
  if (len >= 16) {
    __m512 vl = _mm512_loadu_ps(x), vh = vl;
    for (i = 16; i + 16 <= len; i += 16) {
      const __m512 v = _mm512_loadu_ps(x + i);
      vl = _mm512_min_ps(vl, v), vh = _mm512_max_ps(vh, v);
    }
    l = _mm512_reduce_min_ps(vl), h = _mm512_reduce_max_ps(vh);
  }
  for (; i < len; ++i) l = std::min(l, x[i]), h = std::max(h, x[i]);
  lo = l, hi = h;
}

// A group's parameters, from its range.
[[gnu::target("avx512f"), gnu::always_inline]] inline theory::IntQuant range_params(
    const float* x, std::size_t group, theory::QuantScheme scheme) {
  float lo, hi;
  minmax(x, group, lo, hi);
  return theory::int_quant_params(lo, hi, 8, scheme);
}

// Groups [g0, g1), fused: each group's range, its parameters, its codes while it is in cache.
// Group g + 1's parameters are taken before group g's codes: a chain of about 130 cycles (loads,
// min/max, their fold, a divide), which then overlaps the codes instead of waiting for them.
template <class Q>
[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq"), gnu::always_inline]] inline void groups(
    const float* x, std::size_t group, theory::QuantScheme scheme, bool stochastic_rounding,
    std::uint64_t seed, std::size_t g0, std::size_t g1, Q* q, theory::IntQuant* params) {
  if (g0 >= g1) return;
  theory::IntQuant next = range_params(x + g0 * group, group, scheme);
  for (std::size_t g = g0; g < g1; ++g) {
    const std::size_t first = g * group;
    params[g] = next;
    if (g + 1 < g1) next = range_params(x + first + group, group, scheme);
    if (stochastic_rounding)
      stochastic(x + first, group, params[g], seed, first, q + first);
    else
      nearest(x + first, group, params[g], q + first);
  }
}

}  // namespace

[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq")]] void quantize_stochastic_intrinsics(
    const float* x, std::size_t len, const theory::IntQuant& p, std::uint64_t seed,
    std::uint64_t first, std::int8_t* q) {
  stochastic(x, len, p, seed, first, q);
}
[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq")]] void quantize_stochastic_intrinsics(
    const float* x, std::size_t len, const theory::IntQuant& p, std::uint64_t seed,
    std::uint64_t first, std::uint8_t* q) {
  stochastic(x, len, p, seed, first, q);
}

[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq")]] void quantize_nearest_intrinsics(
    const float* x, std::size_t len, const theory::IntQuant& p, std::int8_t* q) {
  nearest(x, len, p, q);
}
[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq")]] void quantize_nearest_intrinsics(
    const float* x, std::size_t len, const theory::IntQuant& p, std::uint8_t* q) {
  nearest(x, len, p, q);
}

[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq")]] void quantize_groups_intrinsics(
    const float* x, std::size_t group, theory::QuantScheme scheme, bool stochastic,
    std::uint64_t seed, std::size_t g0, std::size_t g1, std::int8_t* q, theory::IntQuant* params) {
  groups(x, group, scheme, stochastic, seed, g0, g1, q, params);
}
[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq")]] void quantize_groups_intrinsics(
    const float* x, std::size_t group, theory::QuantScheme scheme, bool stochastic,
    std::uint64_t seed, std::size_t g0, std::size_t g1, std::uint8_t* q, theory::IntQuant* params) {
  groups(x, group, scheme, stochastic, seed, g0, g1, q, params);
}

}  // namespace bb::kernels::detail
