// The fp32 → narrower-format conversion of reference/formats.h, round to nearest even only, in
// integer arithmetic on the bit pattern (a few ns a value instead of ~20): what the exhaustive 2^32
// sweeps use, on the host and — the same code, compiled by nvcc — on the GPU. It must equal
// `encode` on every input; tests/precision_conformance_test.cpp checks that on the dense sample by
// default and on all 2^32 inputs under the label "exhaustive".
// Targets: every format with ≤ 23 fraction bits and emin ≥ −126 except E8M0.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "base/host_device.h"
#include "theory/formats.h"

namespace bb::reference {

enum class Overflow;  // reference/formats.h: saturate, non_saturating

// A target format as plain numbers, copyable into a kernel's arguments.
struct Fp32Target {
  int bits, exponent_bits, mantissa_bits, bias;
  theory::Specials specials;
  bool saturate;
};

inline Fp32Target fp32_target(const theory::FormatSpec& f, bool saturate) {
  if (f.mantissa_bits > 23 || 1 - f.bias < -126 || f.specials == theory::Specials::scale_nan)
    throw std::invalid_argument("fp32_target: " + std::string(f.name) +
                                " is not a target of the fp32 fast path");
  return {f.bits, f.exponent_bits, f.mantissa_bits, f.bias, f.specials, saturate};
}

BB_HOST_DEVICE inline int bit_width32(std::uint32_t v) {
#if defined(__CUDA_ARCH__)
  return 32 - __clz(static_cast<int>(v));
#else
  return v ? 32 - __builtin_clz(v) : 0;
#endif
}

// The largest finite magnitude code of the target (E4M3: 0x7E, below its NaN).
BB_HOST_DEVICE inline std::uint32_t max_finite_magnitude(const Fp32Target& t) {
  const std::uint32_t top = (1u << t.exponent_bits) - 1, mmask = (1u << t.mantissa_bits) - 1;
  return t.specials == theory::Specials::ieee       ? ((top - 1) << t.mantissa_bits) | mmask
         : t.specials == theory::Specials::nan_only ? (top << t.mantissa_bits) | (mmask - 1)
                                                    : (top << t.mantissa_bits) | mmask;
}

BB_HOST_DEVICE inline std::uint32_t encode_fp32_nearest(const Fp32Target& t, std::uint32_t bits) {
  const std::uint32_t sign = t.bits - 1 < 32 ? ((bits >> 31) << (t.bits - 1)) : 0;
  const std::uint32_t top = (1u << t.exponent_bits) - 1, mmask = (1u << t.mantissa_bits) - 1;
  const std::uint32_t max_finite = max_finite_magnitude(t);
  const std::uint32_t nan =
      t.specials == theory::Specials::none
          ? (top << t.mantissa_bits) | mmask  // no NaN: +max, unsigned
          : sign | (top << t.mantissa_bits) |
                (t.specials == theory::Specials::nan_only ? mmask : 1u << (t.mantissa_bits - 1));
  const std::uint32_t infinity = sign | (top << t.mantissa_bits);
  const auto overflow = [&]() -> std::uint32_t {
    if (t.saturate || t.specials == theory::Specials::none) return sign | max_finite;
    return t.specials == theory::Specials::ieee ? infinity : nan;
  };
  const std::uint32_t e32 = (bits >> 23) & 0xFF, m32 = bits & 0x7FFFFF;
  if (e32 == 0xFF) return m32 != 0 ? nan : overflow();  // NaN; ±inf (kept, saturated or NaN)
  if (e32 == 0 && m32 == 0) return sign;
  // value = sig · 2^exp exactly, sig < 2^24.
  const std::uint32_t sig = e32 ? (1u << 23) | m32 : m32;
  const int exp = (e32 ? static_cast<int>(e32) : 1) - 127 - 23;
  const int m = t.mantissa_bits, emin = 1 - t.bias;
  const int log2 = exp + bit_width32(sig) - 1;
  int quantum_exp = (log2 > emin ? log2 : emin) - m;
  const int shift = quantum_exp - exp;  // ≥ 0: no target has a finer grid than fp32
  std::uint32_t r = 0;
  if (shift == 0) {
    r = sig;
  } else if (shift <= 25) {
    r = sig >> shift;
    const std::uint32_t rem = sig & ((1u << shift) - 1), half = 1u << (shift - 1);
    r += (rem > half || (rem == half && (r & 1))) ? 1 : 0;
  }  // shift > 25: below half the smallest quantum: rounds to 0
  if (r == 0) return sign;
  if (r == (2u << m)) {  // rounded up into the next binade
    r >>= 1;
    ++quantum_exp;
  }
  if (r < (1u << m)) return sign | r;  // subnormal: exponent field 0
  const int field = quantum_exp + m + t.bias;
  const std::uint32_t fraction = r - (1u << m);
  const bool too_big =
      t.specials == theory::Specials::ieee
          ? field >= static_cast<int>(top)
          : field > static_cast<int>(top) || (t.specials == theory::Specials::nan_only &&
                                              field == static_cast<int>(top) && fraction == mmask);
  if (too_big) return overflow();
  return sign | (static_cast<std::uint32_t>(field) << m) | fraction;
}

// True when `code` is a NaN of the target (formats without NaN have none).
BB_HOST_DEVICE inline bool is_nan_code(const Fp32Target& t, std::uint32_t code) {
  const std::uint32_t top = (1u << t.exponent_bits) - 1, mmask = (1u << t.mantissa_bits) - 1;
  const std::uint32_t e = (code >> t.mantissa_bits) & top, m = code & mmask;
  if (t.specials == theory::Specials::ieee) return e == top && m != 0;
  if (t.specials == theory::Specials::nan_only) return e == top && m == mmask;
  return false;
}

}  // namespace bb::reference

#if !defined(__CUDACC__) || !defined(__CUDA_ARCH__)
#include "reference/formats.h"

namespace bb::reference {
// Host convenience: the same rounding for a FormatSpec and an overflow mode.
inline std::uint64_t encode_fp32_nearest(const FormatSpec& f, std::uint32_t bits, Overflow o) {
  return encode_fp32_nearest(fp32_target(f, o == Overflow::saturate), bits);
}
}  // namespace bb::reference
#endif
