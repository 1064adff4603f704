// Conversions to and from every format of theory/formats.h, written from the bit layout: a value
// is rounded once, from a double (fp32 inputs are exact in double; no double rounding), to the
// format's grid: quantum 2^(max(E, emin) − m) for |x| in [2^E, 2^(E+1)). Decoders for every code.
//
// Conventions where the formats leave a choice (each as NVIDIA's cuda_fp8/6/4.h host conversions):
// - NaN: the format's NaN with the input's sign (E4M3, E5M2: S.1111.111; IEEE: quiet, top fraction
//   bit); formats without NaN (FP6, FP4) get +max finite, whatever the sign.
// - Overflow (|rounded| > max finite): `saturate` gives ±max finite; `non_saturating` gives ±inf
//   where the format has it, NaN where it has only NaN (E4M3), ±max finite where it has neither.
//   Rounding toward zero (or away from the overflow's side) never overflows past ±max finite.
// - E8M0 (scale 2^(code − 127), no sign, no zero): the magnitude of x; zero and anything below
//   2^-127 give 2^-127 (or 2^-126 rounding up); beyond 2^127, NaN (non-saturating) or 2^127.
#pragma once

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "theory/formats.h"

namespace bb::reference {

using theory::FormatSpec;
using theory::Specials;

enum class Rounding { nearest_even, toward_zero, toward_positive, toward_negative };
enum class Overflow { saturate, non_saturating };

namespace detail {

inline std::uint64_t sign_bit(const FormatSpec& f) { return std::uint64_t{1} << (f.bits - 1); }
inline std::uint64_t exponent_mask(const FormatSpec& f) {
  return (std::uint64_t{1} << f.exponent_bits) - 1;
}
inline std::uint64_t mantissa_mask(const FormatSpec& f) {
  return (std::uint64_t{1} << f.mantissa_bits) - 1;
}

inline std::uint64_t nan_code(const FormatSpec& f, bool negative) {
  if (f.specials == Specials::scale_nan) return 0xFF;
  if (f.specials == Specials::none)  // no NaN: +max finite
    return (exponent_mask(f) << f.mantissa_bits) | mantissa_mask(f);
  const std::uint64_t top = exponent_mask(f) << f.mantissa_bits;
  const std::uint64_t fraction = f.specials == Specials::nan_only
                                     ? mantissa_mask(f)
                                     : std::uint64_t{1} << (f.mantissa_bits - 1);  // quiet NaN
  return (negative ? sign_bit(f) : 0) | top | fraction;
}

inline std::uint64_t max_finite_code(const FormatSpec& f, bool negative) {
  const std::uint64_t s = negative ? sign_bit(f) : 0;
  switch (f.specials) {
    case Specials::ieee: return s | ((exponent_mask(f) - 1) << f.mantissa_bits) | mantissa_mask(f);
    case Specials::nan_only:
      return s | (exponent_mask(f) << f.mantissa_bits) | (mantissa_mask(f) - 1);
    case Specials::none: return s | (exponent_mask(f) << f.mantissa_bits) | mantissa_mask(f);
    case Specials::scale_nan: return 0xFE;
  }
  return 0;
}

inline std::uint64_t infinity_code(const FormatSpec& f, bool negative) {
  return (negative ? sign_bit(f) : 0) | (exponent_mask(f) << f.mantissa_bits);
}

// q rounded to an integer in the direction the mode gives for a number of sign `negative`.
inline double round_integer(double q, Rounding r, bool negative) {
  switch (r) {
    case Rounding::nearest_even: return std::nearbyint(q);  // needs FE_TONEAREST (checked)
    case Rounding::toward_zero: return std::trunc(q);
    case Rounding::toward_positive: return negative ? std::trunc(q) : std::ceil(q);
    case Rounding::toward_negative: return negative ? std::ceil(q) : std::trunc(q);
  }
  return q;
}

// True when rounding in mode r leaves a value of this sign at max finite instead of beyond it.
inline bool overflow_stays_finite(Rounding r, bool negative) {
  return r == Rounding::toward_zero || (r == Rounding::toward_positive && negative) ||
         (r == Rounding::toward_negative && !negative);
}

inline std::uint64_t encode_scale(const FormatSpec& f, double x, Rounding r, Overflow o) {
  if (std::isnan(x)) return 0xFF;
  const double a = std::fabs(x);
  if (std::isinf(a)) return o == Overflow::saturate ? 0xFE : 0xFF;
  // a = 2^k · s with s in [1, 2): toward zero (and down) keeps k; up takes k + 1 unless s = 1;
  // nearest compares the value with the midpoint 1.5·2^k of 2^k and 2^(k+1), ties to the even code.
  int e = 0;
  const double s = a == 0 ? 0 : 2 * std::frexp(a, &e);
  long k = a == 0 ? -127 : e - 1;
  if (a != 0) {
    switch (r) {
      case Rounding::toward_zero:
      case Rounding::toward_negative: break;
      case Rounding::toward_positive: k += s > 1; break;
      case Rounding::nearest_even: k += s > 1.5 || (s == 1.5 && ((k + f.bias) & 1) != 0); break;
    }
  }
  if (k < -f.bias) k = -f.bias;  // no zero: everything small is the smallest scale
  if (k > theory::max_exponent(f)) return o == Overflow::saturate ? 0xFE : 0xFF;
  return static_cast<std::uint64_t>(k + f.bias);
}

}  // namespace detail

// The code of x in format f (sign, exponent, mantissa from the top bit down; tf32 as 19 bits).
inline std::uint64_t encode(const FormatSpec& f, double x, Rounding r = Rounding::nearest_even,
                            Overflow o = Overflow::saturate) {
  using namespace detail;
  if (r == Rounding::nearest_even && std::fegetround() != FE_TONEAREST)
    throw std::logic_error("encode: the FPU rounding mode is not round-to-nearest");
  if (f.specials == Specials::scale_nan) return encode_scale(f, x, r, o);
  const bool negative = std::signbit(x);
  if (std::isnan(x)) return nan_code(f, negative);
  const double a = std::fabs(x);
  const std::uint64_t s = negative ? sign_bit(f) : 0;
  const auto overflow = [&]() -> std::uint64_t {
    if (o == Overflow::saturate || overflow_stays_finite(r, negative) ||
        f.specials == Specials::none)
      return max_finite_code(f, negative);
    return f.specials == Specials::ieee ? infinity_code(f, negative) : nan_code(f, negative);
  };
  if (std::isinf(a))  // exact, not an overflow: kept where the format has it, whatever the rounding
    return o == Overflow::non_saturating && f.specials == Specials::ieee
               ? infinity_code(f, negative)
           : f.specials == Specials::nan_only && o == Overflow::non_saturating
               ? nan_code(f, negative)
               : max_finite_code(f, negative);
  if (a == 0) return s;
  const int m = f.mantissa_bits, emin = theory::min_exponent(f);
  int e = 0;
  std::frexp(a, &e);
  const int quantum_exp = std::max(e - 1, emin) - m;
  const double rounded = round_integer(std::ldexp(a, -quantum_exp), r, negative);
  const double value = std::ldexp(rounded, quantum_exp);
  if (value > theory::max_finite(f)) return overflow();
  if (value == 0) return s;
  std::frexp(value, &e);
  if (e - 1 < emin)  // subnormal: exponent field 0, the mantissa counts quanta of 2^(emin − m)
    return s | static_cast<std::uint64_t>(std::ldexp(value, m - emin));
  const auto fraction = static_cast<std::uint64_t>(std::ldexp(value, m - (e - 1))) - (1ull << m);
  return s | (static_cast<std::uint64_t>(e - 1 + f.bias) << m) | fraction;
}

// The value of a code (NaN for NaN codes, ±inf for infinities).
inline double decode(const FormatSpec& f, std::uint64_t code) {
  using namespace detail;
  if (f.specials == Specials::scale_nan)
    return code == 0xFF ? NAN : std::ldexp(1.0, static_cast<int>(code) - f.bias);
  const bool negative = f.has_sign && (code & sign_bit(f)) != 0;
  const std::uint64_t exponent = (code >> f.mantissa_bits) & exponent_mask(f);
  const std::uint64_t fraction = code & mantissa_mask(f);
  const int m = f.mantissa_bits;
  double value = 0;
  if (f.specials == Specials::ieee && exponent == exponent_mask(f))
    value = fraction == 0 ? INFINITY : NAN;
  else if (f.specials == Specials::nan_only && exponent == exponent_mask(f) &&
           fraction == mantissa_mask(f))
    value = NAN;
  else if (exponent == 0)
    value = std::ldexp(static_cast<double>(fraction), theory::min_exponent(f) - m);
  else
    value = std::ldexp(static_cast<double>(fraction + (1ull << m)),
                       static_cast<int>(exponent) - f.bias - m);
  return negative ? -value : value;
}

// Codes a format has: 2^bits (fp64 and fp32 excepted: too many to list).
inline std::uint64_t code_count(const FormatSpec& f) {
  if (f.bits > 32) throw std::invalid_argument("code_count: too many codes to list");
  return std::uint64_t{1} << f.bits;
}

}  // namespace bb::reference
