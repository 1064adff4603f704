// Host block quantization, AVX-512 (kernels/block_quant_host_avx512.h). Per 16 lanes of fp32:
// - The element rounding (encode16): |q| capped at 2^(emax+1) (it saturates from there), then
//   q + M with M = 2^(qe+23), qe = max(e, emin) − m the target's step at q: the fp32 adder rounds
//   q to a multiple of 2^qe, to nearest even, and the sum's bits minus M's are r = q / 2^qe
//   rounded — encode_small's r, with no shifts or selects per element. code = (qe + m + bias)·2^m
//   + r − 2^m (a carry into the next binade lands on the next code), capped at max finite.
// - MX: 16 blocks' amax in one vector (a max tree over the blocks' lanes), their E8M0 exponents
//   from the bits (mx_exponent's rules), q = x·2^-e (exact), encode16.
// - fp8 per tensor and NVFP4 divide in the reference: here q = x·fl(1/S) (S = s, or the block's
//   E4M3 scale × g, in double exactly; NVFP4 takes fl(1/fl(S)), one fp32 divide for 16 blocks),
//   within 2^-22 of x / S. A 16-lane group with any q within
//   2^-16 half-steps of a rounding tie is redone with the division (x / S in double, rounded to
//   fp32 to odd, as the portable body): x / S itself is never that close to a tie without being on
//   it (x has 24 bits, a tie × S at most 5 + 28), so the codes are the reference's.
#include "kernels/block_quant_host_avx512.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

// GCC 12 reports the unmasked AVX-512 intrinsics' own "undefined" pass-through operand as maybe
// uninitialized (a false positive inside avx512fintrin.h, at every inlined call).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace bb::kernels::detail {
namespace {

struct Enc {
  __m512i cap;         // bits of 2^(emax + 1)
  __m512i emin_field;  // emin + 127
  __m512i magic_add;   // 23 − m
  __m512i m;           // m
  __m512i code_add;    // (bias − 128)·2^m
  __m512i max_code;
  __m512i sign_shift;
};

[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq,avx512cd")]] Enc make_enc(const SmallTarget& t,
                                                                            int emax) {
  const int bias = t.field_base - t.m;
  return {_mm512_set1_epi32((emax + 1 + 127) << 23),
          _mm512_set1_epi32(t.emin + 127),
          _mm512_set1_epi32(23 - t.m),
          _mm512_set1_epi32(t.m),
          _mm512_set1_epi32(static_cast<int>(static_cast<unsigned>(bias - 128) << t.m)),
          _mm512_set1_epi32(static_cast<int>(t.max_code)),
          _mm512_set1_epi32(t.sign_shift)};
}

// The codes of q (one per 32-bit lane); `near_tie`: lanes within 2^-16 half-steps of a tie.
template <bool kTies>
[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq,avx512cd"), gnu::always_inline]] inline __m512i
encode16(const Enc& t, __m512 q, __mmask16* near_tie) {
  const __m512i bits = _mm512_castps_si512(q);
  const __m512i a = _mm512_min_epu32(_mm512_and_si512(bits, _mm512_set1_epi32(0x7FFFFFFF)), t.cap);
  const __m512i em = _mm512_max_epi32(_mm512_srli_epi32(a, 23), t.emin_field);
  const __m512i magic = _mm512_slli_epi32(_mm512_add_epi32(em, t.magic_add), 23);
  const __m512 sum = _mm512_add_ps(_mm512_castsi512_ps(a), _mm512_castsi512_ps(magic));
  const __m512i r = _mm512_sub_epi32(_mm512_castps_si512(sum), magic);
  if constexpr (kTies) {
    // q − rounded (exact; |rem| ≤ half a step, 2^(qe−1)) within half·2^-16 of ±half:
    // |rem| ≥ half·(1 − 2^-16), a product exact in fp32.
    const __m512 rem =
        _mm512_sub_ps(_mm512_castsi512_ps(a), _mm512_sub_ps(sum, _mm512_castsi512_ps(magic)));
    const __m512i half_field = _mm512_sub_epi32(em, _mm512_add_epi32(t.m, _mm512_set1_epi32(1)));
    const __m512 half = _mm512_castsi512_ps(_mm512_slli_epi32(half_field, 23));
    *near_tie = _mm512_cmp_ps_mask(
        _mm512_abs_ps(rem), _mm512_mul_ps(half, _mm512_set1_ps(1.0f - 0x1p-16f)), _CMP_GE_OQ);
  }
  __m512i code = _mm512_add_epi32(_mm512_sllv_epi32(em, t.m), _mm512_add_epi32(r, t.code_add));
  code = _mm512_min_epu32(code, t.max_code);
  return _mm512_or_si512(code, _mm512_sllv_epi32(_mm512_srli_epi32(bits, 31), t.sign_shift));
}

// 16 codes to memory: one byte each, or two per byte (element 2i in the low nibble).
[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq,avx512cd"), gnu::always_inline]] inline void
store16(__m512i code, bool four, std::uint8_t* out) {
  if (four) {
    const __m512i pair = _mm512_or_si512(code, _mm512_srli_epi64(code, 28));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out), _mm512_cvtepi64_epi8(pair));
  } else {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm512_cvtepi32_epi8(code));
  }
}

// |x|'s bits: finite floats order as their bits.
[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq,avx512cd"), gnu::always_inline]] inline __m512i
abs_bits(const float* p) {
  return _mm512_and_si512(_mm512_loadu_si512(p), _mm512_set1_epi32(0x7FFFFFFF));
}

// Lanes 0–7 the pairwise max of a's lanes, 8–15 of b's.
[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq,avx512cd"), gnu::always_inline]] inline __m512i
fold(__m512i a, __m512i b) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  return _mm512_max_epu32(_mm512_permutex2var_epi32(a, even, b),
                          _mm512_permutex2var_epi32(a, odd, b));
}

// p[i]: 16 lanes of block i's partial maxima; lane i of the result: block i's max.
[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq,avx512cd"), gnu::always_inline]] inline __m512i
max_tree(__m512i* p) {
  for (int i = 0; i < 8; ++i) p[i] = fold(p[2 * i], p[2 * i + 1]);
  for (int i = 0; i < 4; ++i) p[i] = fold(p[2 * i], p[2 * i + 1]);
  for (int i = 0; i < 2; ++i) p[i] = fold(p[2 * i], p[2 * i + 1]);
  return fold(p[0], p[1]);
}

// mx_exponent of 16 amax bit patterns at once (finite; the non-finite are refused later).
[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq,avx512cd")]] __m512i mx_exponents(
    __m512i amax, int emax, double element_max, bool floor_rule) {
  const __m512i field = _mm512_srli_epi32(amax, 23);
  const __m512i lz = _mm512_lzcnt_epi32(amax);
  const __mmask16 normal = _mm512_cmpgt_epi32_mask(field, _mm512_setzero_si512());
  // ⌊log2 amax⌋: field − 127, or (31 − lz) − 149 for a subnormal.
  __m512i k = _mm512_mask_sub_epi32(_mm512_sub_epi32(_mm512_set1_epi32(-118), lz), normal, field,
                                    _mm512_set1_epi32(127));
  __m512i e = _mm512_sub_epi32(k, _mm512_set1_epi32(emax));
  if (!floor_rule) {
    // One binade up where amax's significand exceeds element_max's (= M·2^emax).
    const float m32 = static_cast<float>(element_max);
    std::uint32_t mbits;
    std::memcpy(&mbits, &m32, 4);
    const __m512i sub_sig = _mm512_sllv_epi32(amax, _mm512_sub_epi32(lz, _mm512_set1_epi32(8)));
    const __m512i sig =
        _mm512_and_si512(_mm512_mask_mov_epi32(sub_sig, normal, amax), _mm512_set1_epi32(0x7FFFFF));
    const __mmask16 up = _mm512_cmpgt_epu32_mask(sig, _mm512_set1_epi32(mbits & 0x7FFFFF));
    e = _mm512_mask_add_epi32(e, up, e, _mm512_set1_epi32(1));
  }
  e = _mm512_max_epi32(_mm512_min_epi32(e, _mm512_set1_epi32(127)), _mm512_set1_epi32(-127));
  const __mmask16 zero = _mm512_cmpeq_epi32_mask(amax, _mm512_setzero_si512());
  return _mm512_mask_mov_epi32(e, zero, _mm512_set1_epi32(-127));
}

// E4M3 codes c in [0, 0x7E] as fp32 values (exact): (8 + m)·2^(e − 10), or m·2^-9 for e = 0.
[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq,avx512cd"), gnu::always_inline]] inline __m512
decode_e4m3(__m512i c) {
  const __m512i e = _mm512_srli_epi32(c, 3), m = _mm512_and_si512(c, _mm512_set1_epi32(7));
  const __m512i normal = _mm512_or_si512(
      _mm512_slli_epi32(_mm512_add_epi32(e, _mm512_set1_epi32(120)), 23), _mm512_slli_epi32(m, 20));
  const __m512 sub = _mm512_mul_ps(_mm512_cvtepi32_ps(m), _mm512_set1_ps(0x1p-9f));
  return _mm512_mask_mov_ps(sub, _mm512_cmpgt_epi32_mask(e, _mm512_setzero_si512()),
                            _mm512_castsi512_ps(normal));
}

// NVFP4 block scales of 16 blocks (e4m3_code_up of amax / (6g), 6g = `six_g`): the least code
// c ≥ 1 with dec(c)·6g ≥ amax, 0x7E at most. The nearest code to amax·fl(1/(6g)) (within 2^-22
// of the quotient) is at most one above the answer and two below it; from one below it, up to
// three steps, each tested exactly in double (dec(c)·6g has at most 4 + 26 bits).
[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq,avx512cd"), gnu::always_inline]] inline __m512i
nvfp4_scale_codes(const Enc& e4m3, __m512i amax_bits, double six_g, float inv_six_g) {
  const __m512 amax = _mm512_castsi512_ps(amax_bits);
  const __m512i nearest =
      encode16<false>(e4m3, _mm512_mul_ps(amax, _mm512_set1_ps(inv_six_g)), nullptr);
  __m512i c =
      _mm512_max_epi32(_mm512_sub_epi32(nearest, _mm512_set1_epi32(1)), _mm512_set1_epi32(1));
  const __m512d a_lo = _mm512_cvtps_pd(_mm512_castps512_ps256(amax));
  const __m512d a_hi = _mm512_cvtps_pd(_mm512_extractf32x8_ps(amax, 1));
  const __m512d sg = _mm512_set1_pd(six_g);
  for (int step = 0; step < 3; ++step) {
    const __m512 d = decode_e4m3(c);
    const __mmask8 lo = _mm512_cmp_pd_mask(
        _mm512_mul_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(d)), sg), a_lo, _CMP_LT_OQ);
    const __mmask8 hi = _mm512_cmp_pd_mask(
        _mm512_mul_pd(_mm512_cvtps_pd(_mm512_extractf32x8_ps(d, 1)), sg), a_hi, _CMP_LT_OQ);
    const __mmask16 below = static_cast<__mmask16>(lo | (hi << 8)) &
                            _mm512_cmplt_epi32_mask(c, _mm512_set1_epi32(0x7E));
    c = _mm512_mask_add_epi32(c, below, c, _mm512_set1_epi32(1));
  }
  return c;
}

// x / S rounded as the portable body does (exact division, fp32 to odd, then nearest even).
inline std::uint8_t exact_code(const SmallTarget& t, float x, double scale) {
  return static_cast<std::uint8_t>(
      encode_small(t, fp32_round_to_odd_bits(static_cast<double>(x) / scale)));
}

// 16 elements x / scale by the division, to memory.
[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq,avx512cd"), gnu::always_inline]] inline void
exact16(const SmallTarget& t, const float* x, double scale, bool four, std::uint8_t* out) {
  alignas(64) std::uint32_t c[16];
  for (int i = 0; i < 16; ++i) c[i] = exact_code(t, x[i], scale);
  store16(_mm512_load_si512(c), four, out);
}

// 16 elements x·inv, or x / scale where a lane comes near a tie.
[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq,avx512cd"), gnu::always_inline]] inline void
divide16(const Enc& enc, const SmallTarget& t, const float* x, __m512 inv, double scale, bool four,
         std::uint8_t* out) {
  __mmask16 near_tie;
  const __m512i code = encode16<true>(enc, _mm512_mul_ps(_mm512_loadu_ps(x), inv), &near_tie);
  if (near_tie == 0) return store16(code, four, out);
  exact16(t, x, scale, four, out);
}

// S as an fp32 whose reciprocal is normal too, or false.
inline bool fp32_reciprocal(double scale, float* inv) {
  if (!(scale >= 0x1p-120 && scale <= 0x1p120)) return false;
  *inv = static_cast<float>(1.0 / scale);
  return true;
}

// NVFP4, 16 blocks of 16 at once: their amax (into `worst`), E4M3 scale codes (stored), each
// block's S = dec(c)·g (exact in double) and fl(1/fl(S)) in fp32, within 2^-23 of 1/S, and
// which of them are normal.
struct NvfpBatch {
  alignas(64) double scale[16];
  alignas(64) float inv[16];
  __mmask16 normal;
};
[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq,avx512cd"), gnu::always_inline]] inline void
nvfp4_batch(const float* xb, const Enc& e4m3_enc, double g, float inv6g, std::uint8_t* scale_codes,
            __m512i& worst, NvfpBatch& out) {
  __m512i part[16];
  for (int i = 0; i < 16; ++i) part[i] = abs_bits(xb + i * 16);
  const __m512i amax = max_tree(part);
  worst = _mm512_max_epu32(worst, amax);
  const __m512i c = nvfp4_scale_codes(e4m3_enc, amax, 6.0 * g, inv6g);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(scale_codes), _mm512_cvtepi32_epi8(c));
  const __m512 d = decode_e4m3(c);
  const __m512d s_lo = _mm512_mul_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(d)), _mm512_set1_pd(g));
  const __m512d s_hi =
      _mm512_mul_pd(_mm512_cvtps_pd(_mm512_extractf32x8_ps(d, 1)), _mm512_set1_pd(g));
  _mm512_store_pd(out.scale, s_lo);
  _mm512_store_pd(out.scale + 8, s_hi);
  const __m512 s32 =
      _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(s_lo)), _mm512_cvtpd_ps(s_hi), 1);
  _mm512_store_ps(out.inv, _mm512_div_ps(_mm512_set1_ps(1.0f), s32));
  out.normal = _mm512_cmp_ps_mask(s32, _mm512_set1_ps(0x1p-120f), _CMP_GE_OQ) &
               _mm512_cmp_ps_mask(s32, _mm512_set1_ps(0x1p120f), _CMP_LE_OQ);
}

}  // namespace

[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq,avx512cd")]] bool quantize_range_intrinsics(
    const BlockJob& j, std::size_t b0, std::size_t b1, RangeFn portable) {
  const SmallTarget t = j.element;
  const float* const x = j.x;
  std::uint8_t* const codes = j.codes;
  const Enc enc = make_enc(t, j.emax);
  const bool four = j.spec.four_bit();
  if (j.spec.scheme == BlockScheme::fp8_tensor) {
    const double s = j.tensor_scale;
    float inv32;
    const std::size_t end = std::min(j.n, b1 * kRangeBlock);
    if (!fp32_reciprocal(s, &inv32)) return portable(j, b0, b1);
    const __m512 inv = _mm512_set1_ps(inv32);
    std::size_t i = b0 * kRangeBlock;
    for (; i + 16 <= end; i += 16) divide16(enc, t, x + i, inv, s, false, codes + i);
    for (; i < end; ++i) codes[i] = exact_code(t, x[i], s);
    return false;
  }
  const std::size_t block = j.spec.block();
  const bool nvfp4 = j.spec.scheme == BlockScheme::nvfp4;
  const std::size_t vectors = block / 16;  // per block: 2 (MX), 1 (NVFP4)
  __m512i worst = _mm512_setzero_si512();
  bool non_finite = false;
  // NVFP4: the block scales 16 at a time where fl(1/(6g)) is a normal fp32.
  const Enc e4m3_enc = make_enc(j.e4m3_small, 8);
  float inv6g = 0;
  const bool vector_scales = nvfp4 && fp32_reciprocal(6.0 * j.tensor_scale, &inv6g);
  std::size_t b = b0;
  if (vector_scales && b + 16 <= b1) {
    // Batch b + 16's scales are taken before batch b's codes: their chain (the max tree, three
    // exact steps per code, a divide) then overlaps the codes instead of waiting for them.
    NvfpBatch batch[2];
    nvfp4_batch(x + b * 16, e4m3_enc, j.tensor_scale, inv6g, j.scale_codes + b, worst, batch[0]);
    for (int k = 0; b + 16 <= b1; b += 16, k ^= 1) {
      if (b + 32 <= b1)
        nvfp4_batch(x + (b + 16) * 16, e4m3_enc, j.tensor_scale, inv6g, j.scale_codes + b + 16,
                    worst, batch[k ^ 1]);
      const NvfpBatch& cur = batch[k];
      const float* xb = x + b * 16;
      std::uint8_t* out = codes + b * 8;  // NVFP4's elements are 4-bit
      for (int i = 0; i < 16; ++i) {
        if ((cur.normal >> i) & 1) {
          divide16(enc, t, xb + i * 16, _mm512_set1_ps(cur.inv[i]), cur.scale[i], true,
                   out + i * 8);
        } else {
          exact16(t, xb + i * 16, cur.scale[i], true, out + i * 8);
        }
      }
    }
  }
  for (; b + 16 <= b1; b += 16) {
    const float* xb = x + b * block;
    __m512i part[16];
    for (int i = 0; i < 16; ++i) {
      part[i] = abs_bits(xb + i * block);
      if (vectors == 2) part[i] = _mm512_max_epu32(part[i], abs_bits(xb + i * block + 16));
    }
    const __m512i amax = max_tree(part);
    worst = _mm512_max_epu32(worst, amax);
    std::uint8_t* out = codes + b * block / (four ? 2 : 1);
    if (nvfp4) {
      const double g = j.tensor_scale;
      alignas(64) std::uint32_t sc[16];
      {
        alignas(64) std::uint32_t ab[16];
        _mm512_store_si512(ab, amax);
        for (int i = 0; i < 16; ++i) {
          float a;
          std::memcpy(&a, &ab[i], 4);
          sc[i] = e4m3_code_up(j.e4m3_small, j.e4m3, a / (6.0 * g));
        }
      }
      for (int i = 0; i < 16; ++i) {
        j.scale_codes[b + i] = static_cast<std::uint8_t>(sc[i]);
        const double scale = decode_small(j.e4m3, sc[i]) * g;  // exact: 4 × 24 bits
        float inv32;
        const float* xe = xb + i * 16;
        std::uint8_t* oe = out + i * 16 / (four ? 2 : 1);
        if (fp32_reciprocal(scale, &inv32)) {
          divide16(enc, t, xe, _mm512_set1_ps(inv32), scale, four, oe);
        } else {
          exact16(t, xe, scale, four, oe);
        }
      }
      continue;
    }
    const __m512i e = mx_exponents(amax, j.emax, j.top, j.spec.scheme == BlockScheme::mx_floor);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(j.scale_codes + b),
                     _mm512_cvtepi32_epi8(_mm512_add_epi32(e, _mm512_set1_epi32(127))));
    // 2^-e: (127 − e)·2^23, or 2^-127 (subnormal) for e = 127.
    const __m512i inv_bits = _mm512_mask_mov_epi32(
        _mm512_slli_epi32(_mm512_sub_epi32(_mm512_set1_epi32(127), e), 23),
        _mm512_cmpeq_epi32_mask(e, _mm512_set1_epi32(127)), _mm512_set1_epi32(0x00400000));
    alignas(64) float inv[16];
    _mm512_store_si512(inv, inv_bits);
    for (int i = 0; i < 16; ++i) {
      const __m512 s = _mm512_set1_ps(inv[i]);
      for (std::size_t v = 0; v < 2; ++v) {
        const __m512i code =
            encode16<false>(enc, _mm512_mul_ps(_mm512_loadu_ps(xb + i * 32 + v * 16), s), nullptr);
        store16(code, four, out + (i * 32 + v * 16) / (four ? 2 : 1));
      }
    }
  }
  non_finite = _mm512_reduce_max_epu32(worst) > 0x7F7FFFFFu;
  if (b < b1 && portable(j, b, b1)) non_finite = true;
  return non_finite;
}

}  // namespace bb::kernels::detail
