// Floating-point quantization x ≈ S·P (theory/block_quant.h) on the host (OpenMP) and the GPU:
// fp8 per tensor from the amax, OCP MX blocks of 32 with E8M0 scales (either scale rule) and
// NVFP4 (blocks of 16 FP4 with E4M3 scales under an fp32 tensor scale). Bit-exact with
// reference/mx.h, without its division per element where it can be avoided:
// - MX: x·2^-e in fp32 is exact (a result below 2^-126 may round, but every such value is far
//   under half the element's smallest subnormal: ±0 either way), then fp32 → element, RNE.
// - fp8 per tensor, NVFP4: x / S in double (S exact), rounded to fp32 *to odd* — with ≥ p + 2 bits,
//   rounding to odd and then to nearest equals rounding the double once (Boldo & Melquiond, IEEE
//   TC 2008) — then fp32 → element, RNE, saturating.
// - NVFP4 block scale: the E4M3 nearest to v = amax_b / (6·g), one code up when below v.
// Codes: one byte per 8-bit or 6-bit element (FP6 is not packed: MX packs four into three bytes,
// so FP6 here moves 4/3 of the code bytes MX storage would); 4-bit elements two per byte, element
// 2i in the low nibble.
// Finite inputs only, as the reference: the host throws std::invalid_argument on a non-finite
// element; the GPU counts them (BlockQuantState::nonfinite), and its outputs mean nothing then.
#pragma once

#include <math.h>  // fabs, NAN, INFINITY: host and device alike (CUDA's math API)

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "base/host_device.h"
#include "reference/formats_fast.h"
#include "theory/block_quant.h"

struct CUstream_st;  // cudaStream_t

namespace bb::kernels {

enum class BlockScheme { fp8_tensor, mx_floor, mx_round_up, nvfp4 };

struct BlockQuantSpec {
  theory::Format element;  // fp8_tensor: e4m3/e5m2; MX: e4m3/e5m2/e2m3/e3m2/e2m1; nvfp4: e2m1
  BlockScheme scheme;
  int margin = 0;  // fp8_tensor: binades of headroom

  std::size_t block() const {  // elements per scale: 32 (MX), 16 (NVFP4), 0 (whole tensor)
    return scheme == BlockScheme::fp8_tensor ? 0 : scheme == BlockScheme::nvfp4 ? 16 : 32;
  }
  bool four_bit() const { return element == theory::Format::e2m1; }
  std::size_t code_bytes(std::size_t n) const { return four_bit() ? n / 2 : n; }
  // Element i's code in packed storage (4-bit: element 2j in byte j's low nibble).
  std::uint32_t code_at(const std::uint8_t* codes, std::size_t i) const {
    if (!four_bit()) return codes[i];
    return i % 2 == 0 ? codes[i / 2] & 0x0Fu : codes[i / 2] >> 4u;
  }
  std::size_t scale_count(std::size_t n) const { return block() ? n / block() : 0; }
  // Throws std::invalid_argument for an element the scheme does not take, or n not a multiple of
  // the block (and of 4, the vector width of the kernels).
  void validate(std::size_t n) const {
    using theory::Format;
    const bool fp8 = element == Format::e4m3 || element == Format::e5m2;
    const bool ok =
        scheme == BlockScheme::fp8_tensor ? fp8 && margin >= 0
        : scheme == BlockScheme::nvfp4
            ? element == Format::e2m1
            : fp8 || element == Format::e2m3 || element == Format::e3m2 || element == Format::e2m1;
    if (!ok)
      throw std::invalid_argument("block quantization: element " +
                                  std::string(theory::format_spec(element).name) +
                                  " (or the margin) does not fit the scheme");
    const std::size_t unit = block() > 4 ? block() : 4;
    if (n % unit != 0)
      throw std::invalid_argument("block quantization: the length " + std::to_string(n) +
                                  " is not a multiple of " + std::to_string(unit));
  }
};

// GPU scratch and results: the tensor's amax (fp32 bits), the count of non-finite elements and the
// fp32 tensor scale (s or g; 1 for MX). block_quantize_cuda resets it first.
struct BlockQuantState {
  std::uint32_t amax_bits;
  unsigned long long nonfinite;
  float tensor_scale;
};

// Host. `scale_codes`: scale_count(n) codes (E8M0 or E4M3); `tensor_scale`: the fp32 scale.
// The body is vectorized for AVX-512, AVX2 or baseline x86-64, whichever the CPU has:
// block_quantize_host_isa() names it.
void block_quantize_host(const BlockQuantSpec& spec, const float* x, std::size_t n,
                         std::uint8_t* codes, std::uint8_t* scale_codes, float* tensor_scale);
// x = P·X·g, computed in double (exact) and rounded to fp32 once.
const char* block_quantize_host_isa();
void block_dequantize_host(const BlockQuantSpec& spec, const std::uint8_t* codes,
                           const std::uint8_t* scale_codes, float tensor_scale, std::size_t n,
                           float* x);

// CUDA (block_quant.cu): a tensor amax pass where the scheme has a tensor scale, then one pass.
void block_quantize_cuda(const BlockQuantSpec& spec, const float* x, std::size_t n,
                         BlockQuantState* state, std::uint8_t* codes, std::uint8_t* scale_codes,
                         CUstream_st* stream);
void block_dequantize_cuda(const BlockQuantSpec& spec, const std::uint8_t* codes,
                           const std::uint8_t* scale_codes, const BlockQuantState* state,
                           std::size_t n, float* x, CUstream_st* stream);

// --- The element arithmetic, shared by the host and the device kernels ---

// 2^k as an fp32, exactly, for k in [−127, 127] (2^-127 is subnormal).
BB_HOST_DEVICE inline float exp2_float(int k) {
  const std::uint32_t bits = k >= -126 ? static_cast<std::uint32_t>(k + 127) << 23 : 0x00400000u;
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

BB_HOST_DEVICE inline std::uint32_t float_bits(float f) {
  std::uint32_t b;
  memcpy(&b, &f, 4);
  return b;
}

// 2^k as a double, exactly, for k in [−1022, 1023] (no library call: ldexp is one on the host).
BB_HOST_DEVICE inline double pow2(int k) {
  const std::uint64_t bits = static_cast<std::uint64_t>(k + 1023) << 52;
  double d;
  memcpy(&d, &bits, 8);
  return d;
}

// ⌊log2 a⌋ of a finite a > 0 (fp32 subnormals included), from its bits.
BB_HOST_DEVICE inline int ilog2_float(float a) {
  const std::uint32_t b = float_bits(a);
  const int e = static_cast<int>(b >> 23);
  return e ? e - 127 : reference::bit_width32(b) - 1 - 149;
}

// v rounded to fp32 toward zero, with the last bit set when inexact ("round to odd").
BB_HOST_DEVICE inline std::uint32_t fp32_round_to_odd_bits(double v) {
#if defined(__CUDA_ARCH__)
  const float f = __double2float_rz(v);
  return float_bits(f) | (static_cast<double>(f) != v ? 1u : 0u);
#else
  const float f = static_cast<float>(v);  // to nearest; one step toward 0 if it went outward
  const std::uint32_t bits = float_bits(f) - (fabs(static_cast<double>(f)) > fabs(v) ? 1u : 0u);
  float rz;
  memcpy(&rz, &bits, 4);
  return bits | (static_cast<double>(rz) != v ? 1u : 0u);
#endif
}

// A signed target of ≤ 8 bits (FP8, FP6, FP4), saturating, as the integers encode_small needs.
struct SmallTarget {
  int m;                   // stored mantissa bits
  int emin;                // 1 − bias
  int field_base;          // m + bias
  std::uint32_t max_code;  // the largest finite magnitude code (E4M3: 0x7E, below its NaN)
  int sign_shift;          // bits − 1
};
inline SmallTarget small_target(const reference::Fp32Target& t) {
  if (t.bits > 8) throw std::invalid_argument("small_target: formats of at most 8 bits");
  return {t.mantissa_bits, 1 - t.bias, t.mantissa_bits + t.bias, reference::max_finite_magnitude(t),
          t.bits - 1};
}

// A finite fp32 (its bits) rounded to nearest even into the target, saturating: equal to
// reference::encode_fp32_nearest with saturation on every finite input (tests: a dense sample,
// all 2^32 under the label "exhaustive"). Branch-free — integer arithmetic and selects — so that
// it vectorizes. x = sig·2^(e−23); the target's step at x is 2^qe, qe = max(e, emin) − m; r = x
// rounded to a multiple of it; the code is (qe + m + bias)·2^m + r − 2^m for normal and subnormal
// r alike (a carry into the next binade lands on the next code).
BB_HOST_DEVICE inline std::uint32_t encode_small(const SmallTarget& t, std::uint32_t bits) {
  const std::uint32_t a = bits & 0x7FFFFFFFu;
  const int e32 = static_cast<int>(a >> 23);
  const std::uint32_t sig = (a & 0x7FFFFFu) | (e32 > 0 ? 0x800000u : 0u);
  const int e = (e32 > 0 ? e32 : 1) - 127;
  const int qe = (e > t.emin ? e : t.emin) - t.m;
  const int raw_shift = qe - e + 23;  // ≥ 23 − m ≥ 20: bits of sig below the step
  const int shift = raw_shift < 31 ? raw_shift : 31;
  const std::uint32_t r0 = sig >> shift, rem = sig & ((1u << shift) - 1u), half = 1u << (shift - 1);
  const std::uint32_t r = r0 + ((rem > half || (rem == half && (r0 & 1u))) ? 1u : 0u);
  // qe + m + bias is 1 … 127 + m + bias: the code fits (and is ≥ 0) before it saturates.
  const std::uint32_t code =
      (static_cast<std::uint32_t>(qe + t.field_base) << t.m) + r - (1u << t.m);
  const std::uint32_t mag = code < t.max_code ? code : t.max_code;
  return ((bits >> 31) << t.sign_shift) | mag;
}

// The value of a code of a signed format with ≤ 8 bits (NaN and ±inf codes decode to them).
BB_HOST_DEVICE inline double decode_small(const reference::Fp32Target& t, std::uint32_t code) {
  const std::uint32_t top = (1u << t.exponent_bits) - 1, mmask = (1u << t.mantissa_bits) - 1;
  const std::uint32_t e = (code >> t.mantissa_bits) & top, m = code & mmask;
  const bool negative = (code >> (t.bits - 1)) & 1;
  double v;
  if (reference::is_nan_code(t, code)) {
    v = NAN;
  } else if (t.specials == theory::Specials::ieee && e == top) {
    v = INFINITY;
  } else if (e == 0) {
    v = static_cast<double>(m) * pow2(1 - t.bias - t.mantissa_bits);
  } else {
    v = static_cast<double>(m | (1u << t.mantissa_bits)) *
        pow2(static_cast<int>(e) - t.bias - t.mantissa_bits);
  }
  return negative ? -v : v;
}

// E8M0: 2^(code − 127); 0xFF is NaN.
BB_HOST_DEVICE inline double decode_e8m0(std::uint32_t code) {
  return code == 0xFF ? NAN : pow2(static_cast<int>(code) - 127);
}

// The MX scale exponent from the block's fp32 amax: theory::mx_scale_exponent.
BB_HOST_DEVICE inline int mx_exponent(float amax, int element_emax, double element_max,
                                      bool floor_rule) {
  if (!(amax > 0)) return -127;
  if (!(amax <= 0x1.fffffep127f)) return 127;  // ±inf (counted as non-finite): ilogb is INT_MAX
  int e = ilog2_float(amax);
  if (floor_rule) {
    e -= element_emax;
  } else {
    // Within one of the answer (element_max < 2^16 is normal): the least e, amax ≤ max·2^e.
    std::uint64_t max_bits;
    memcpy(&max_bits, &element_max, 8);
    e -= static_cast<int>(max_bits >> 52) - 1023;
    while (element_max * pow2(e) < amax) ++e;
    while (element_max * pow2(e - 1) >= amax) --e;
  }
  return e < -127 ? -127 : e > 127 ? 127 : e;
}

// The least E4M3 code ≥ v (v ≥ 0): theory::nvfp4_block_scale's code; at least the smallest
// subnormal, at most 448.
BB_HOST_DEVICE inline std::uint32_t e4m3_code_up(const SmallTarget& e4m3_small,
                                                 const reference::Fp32Target& e4m3, double v) {
  std::uint32_t c = encode_small(e4m3_small, fp32_round_to_odd_bits(v));
  if (c < 0x7E && decode_small(e4m3, c) < v) ++c;
  return c == 0 ? 1 : c;
}

}  // namespace bb::kernels
