// The fp32 → narrower-format conversion of reference/formats.h, round to nearest even only, in
// integer arithmetic on the bit pattern (a few ns a value instead of ~20): what the exhaustive 2^32
// sweeps use. It must equal `encode` on every input; tests/precision_conformance_test.cpp checks
// that on the dense sample by default and on all 2^32 inputs under the label "exhaustive".
// Targets: every format with ≤ 23 fraction bits and emin ≥ −126 except E8M0 (fp32 → fp32 too).
#pragma once

#include <bit>
#include <cstdint>

#include "reference/formats.h"

namespace bb::reference {

inline std::uint64_t encode_fp32_nearest(const FormatSpec& f, std::uint32_t bits, Overflow o) {
  using namespace detail;
  const bool negative = (bits >> 31) != 0;
  const std::uint32_t e32 = (bits >> 23) & 0xFF, m32 = bits & 0x7FFFFF;
  const std::uint64_t s = negative ? sign_bit(f) : 0;
  if (e32 == 0xFF) {
    if (m32 != 0) return nan_code(f, negative);
    return o == Overflow::non_saturating && f.specials == Specials::ieee
               ? infinity_code(f, negative)
           : o == Overflow::non_saturating && f.specials == Specials::nan_only
               ? nan_code(f, negative)
               : max_finite_code(f, negative);
  }
  if (e32 == 0 && m32 == 0) return s;
  // value = sig · 2^exp exactly, sig < 2^24.
  const std::uint32_t sig = e32 ? (1u << 23) | m32 : m32;
  const int exp = (e32 ? static_cast<int>(e32) : 1) - 127 - 23;
  const int m = f.mantissa_bits, emin = theory::min_exponent(f);
  const int log2 = exp + std::bit_width(sig) - 1;
  int quantum_exp = (log2 > emin ? log2 : emin) - m;
  const int shift = quantum_exp - exp;  // ≥ 0: no target has a finer grid than fp32
  std::uint64_t r = 0;
  if (shift == 0) {
    r = sig;
  } else if (shift <= 25) {
    r = sig >> shift;
    const std::uint32_t rem = sig & ((1u << shift) - 1), half = 1u << (shift - 1);
    r += rem > half || (rem == half && (r & 1));
  }  // shift > 25: below half the smallest quantum: rounds to 0
  if (r == 0) return s;
  if (r == (std::uint64_t{2} << m)) {  // rounded up into the next binade
    r >>= 1;
    ++quantum_exp;
  }
  const std::uint64_t top_field = exponent_mask(f);
  if (r < (std::uint64_t{1} << m)) return s | r;  // subnormal: exponent field 0
  const std::int64_t field = quantum_exp + m + f.bias;
  const std::uint64_t fraction = r - (std::uint64_t{1} << m);
  const bool too_big =
      f.specials == Specials::ieee
          ? field >= static_cast<std::int64_t>(top_field)
          : field > static_cast<std::int64_t>(top_field) ||
                (f.specials == Specials::nan_only &&
                 field == static_cast<std::int64_t>(top_field) && fraction == mantissa_mask(f));
  if (too_big) {
    if (o == Overflow::saturate || f.specials == Specials::none)
      return max_finite_code(f, negative);
    return f.specials == Specials::ieee ? infinity_code(f, negative) : nan_code(f, negative);
  }
  return s | (static_cast<std::uint64_t>(field) << m) | fraction;
}

}  // namespace bb::reference
