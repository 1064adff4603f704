// Host int8 quantization, round to nearest, AVX-512 (kernels/quant_host_avx512.h). The reference
// computes v = x / s + z in double and rounds ties away from zero; here v' = fma(x, fl(1/s), z) in
// fp32, clamped to [q_min, q_max] and rounded to nearest even by the conversion. |v' − v| ≤ 2^-15
// for |x / s|, |v| ≤ 256 (two fp32 roundings of 2^-24 relative each, and the reference's own
// double rounding, 2^-44), so the codes agree wherever v' lies farther than 2^-12 from a
// half-integer; a group of 16 with a lane that close is redone with the reference's arithmetic
// (about 1 group in 130 of uniform data).
#include "kernels/quant_host_avx512.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>

// GCC 12 reports the unmasked AVX-512 intrinsics' own "undefined" pass-through operand as maybe
// uninitialized (a false positive inside avx512fintrin.h, at every inlined call).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace bb::kernels::detail {
namespace {

// The reference's arithmetic for one value.
template <class Q>
Q exact_code(float x, const theory::IntQuant& p) {
  const double v = static_cast<double>(x) / p.scale + static_cast<double>(p.zero_point);
  const double r = std::clamp(static_cast<double>(std::llround(v)), static_cast<double>(p.q_min),
                              static_cast<double>(p.q_max));
  return static_cast<Q>(r);
}

template <class Q>
[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq"), gnu::always_inline]] inline void nearest(
    const float* x, std::size_t len, const theory::IntQuant& p, Q* q) {
  std::size_t i = 0;
  // fl(1/s) normal, and |x / s| ≤ 256 where x lies within the range s was made from.
  if (p.scale >= 0x1p-120 && p.scale <= 0x1p120 && p.q_max - p.q_min <= 255) {
    const __m512 inv = _mm512_set1_ps(static_cast<float>(1.0 / p.scale));
    const __m512 z = _mm512_set1_ps(static_cast<float>(p.zero_point));
    const __m512 lo = _mm512_set1_ps(static_cast<float>(p.q_min));
    const __m512 hi = _mm512_set1_ps(static_cast<float>(p.q_max));
    const __m512 half = _mm512_set1_ps(0.5f), margin = _mm512_set1_ps(0x1p-12f);
    for (; i + 16 <= len; i += 16) {
      const __m512 v =
          _mm512_min_ps(_mm512_max_ps(_mm512_fmadd_ps(_mm512_loadu_ps(x + i), inv, z), lo), hi);
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

}  // namespace

[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq")]] void quantize_nearest_intrinsics(
    const float* x, std::size_t len, const theory::IntQuant& p, std::int8_t* q) {
  nearest(x, len, p, q);
}
[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq")]] void quantize_nearest_intrinsics(
    const float* x, std::size_t len, const theory::IntQuant& p, std::uint8_t* q) {
  nearest(x, len, p, q);
}

}  // namespace bb::kernels::detail
