#include "theory/formats.h"

#include <cmath>

namespace bb::theory {

const FormatSpec& format_spec(Format f) {
  for (const auto& s : kFormats)
    if (s.format == f) return s;
  return kFormats[0];  // unreachable: every format is in the table
}

std::optional<Format> format_from_name(std::string_view name) {
  for (const auto& s : kFormats)
    if (s.name == name) return s.format;
  return std::nullopt;
}

int precision_bits(const FormatSpec& f) { return f.mantissa_bits + 1; }

double unit_roundoff(const FormatSpec& f) { return std::ldexp(1.0, -precision_bits(f)); }

int min_exponent(const FormatSpec& f) { return 1 - f.bias; }

int max_exponent(const FormatSpec& f) {
  const int top = (1 << f.exponent_bits) - 1;
  return (f.specials == Specials::ieee ? top - 1 : top) - f.bias -
         (f.specials == Specials::scale_nan ? 1 : 0);
}

double max_finite(const FormatSpec& f) {
  const double top_significand = 2.0 - std::ldexp(1.0, -f.mantissa_bits);
  // E4M3: the all-ones mantissa of the top binade is NaN, so the largest significand is 2 −
  // 2^-(m−1).
  const double significand = f.specials == Specials::nan_only
                                 ? 2.0 - std::ldexp(1.0, 1 - f.mantissa_bits)
                             : f.specials == Specials::scale_nan ? 1.0
                                                                 : top_significand;
  return std::ldexp(significand, max_exponent(f));
}

double min_normal(const FormatSpec& f) {
  // E8M0 has no subnormals and no zero: its smallest value is code 0 = 2^-bias.
  return std::ldexp(1.0, f.specials == Specials::scale_nan ? -f.bias : min_exponent(f));
}

double min_subnormal(const FormatSpec& f) {
  if (f.specials == Specials::scale_nan) return min_normal(f);
  return std::ldexp(1.0, min_exponent(f) - f.mantissa_bits);
}

bool has_infinity(const FormatSpec& f) { return f.specials == Specials::ieee; }

bool has_nan(const FormatSpec& f) { return f.specials != Specials::none; }

}  // namespace bb::theory
