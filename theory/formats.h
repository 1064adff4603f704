// Number formats of ML systems: IEEE fp64/fp32/fp16, tf32, bf16, the OCP 8-bit formats E4M3 and
// E5M2, the OCP MX element types FP6 E2M3/E3M2 and FP4 E2M1, and the E8M0 scale. Descriptors and
// the quantities derived from their bit layout. Sources: IEEE 754-2019; OCP 8-bit Floating Point
// Specification (OFP8) rev. 1.0 (2023); OCP Microscaling Formats (MX) Specification v1.0 (2023);
// NVIDIA A100 whitepaper (TF32). Derivations: theory/README.md, "Number formats".
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "theory/work.h"

namespace bb::theory {

enum class Format { fp64, fp32, tf32, fp16, bf16, e4m3, e5m2, e2m3, e3m2, e2m1, e8m0 };

// How a format spends its top exponent code.
enum class Specials {
  ieee,       // exponent all ones: infinity (mantissa 0) or NaN (mantissa ≠ 0)
  nan_only,   // E4M3: no infinity; only S.1111.111 is NaN, the rest of the top binade is finite
  none,       // FP6, FP4: every code is a finite number
  scale_nan,  // E8M0: unsigned, no zero, no mantissa; 0xFF is NaN
};

struct FormatSpec {
  Format format;
  std::string_view name;
  int bits;  // storage width (tf32: the 19 significant bits; it is stored in 32)
  int exponent_bits;
  int mantissa_bits;  // stored fraction bits
  int bias;
  bool has_sign;
  Specials specials;
  std::string_view source;
};

inline constexpr std::array<FormatSpec, 11> kFormats = {{
    {Format::fp64, "fp64", 64, 11, 52, 1023, true, Specials::ieee, "IEEE 754 binary64"},
    {Format::fp32, "fp32", 32, 8, 23, 127, true, Specials::ieee, "IEEE 754 binary32"},
    {Format::tf32, "tf32", 19, 8, 10, 127, true, Specials::ieee, "NVIDIA A100 whitepaper"},
    {Format::fp16, "fp16", 16, 5, 10, 15, true, Specials::ieee, "IEEE 754 binary16"},
    {Format::bf16, "bf16", 16, 8, 7, 127, true, Specials::ieee, "bfloat16 (Google; Intel BF16)"},
    {Format::e4m3, "e4m3", 8, 4, 3, 7, true, Specials::nan_only, "OCP OFP8 rev 1.0"},
    {Format::e5m2, "e5m2", 8, 5, 2, 15, true, Specials::ieee, "OCP OFP8 rev 1.0"},
    {Format::e2m3, "e2m3", 6, 2, 3, 1, true, Specials::none, "OCP MX v1.0 (FP6)"},
    {Format::e3m2, "e3m2", 6, 3, 2, 3, true, Specials::none, "OCP MX v1.0 (FP6)"},
    {Format::e2m1, "e2m1", 4, 2, 1, 1, true, Specials::none, "OCP MX v1.0 (FP4)"},
    {Format::e8m0, "e8m0", 8, 8, 0, 127, false, Specials::scale_nan, "OCP MX v1.0 (scale)"},
}};

const FormatSpec& format_spec(Format f);
std::optional<Format> format_from_name(std::string_view name);

// Precision p = stored fraction bits + 1 (the implicit bit); unit roundoff u = 2^-p for rounding
// to nearest (Higham 2002, §2.1).
int precision_bits(const FormatSpec& f);
double unit_roundoff(const FormatSpec& f);
// Exponents of the normal range: emin = 1 − bias; emax = the largest exponent a finite number has
// (IEEE: 2^e − 2 − bias; E4M3, FP6, FP4, E8M0 use the top exponent code for finite numbers too).
int min_exponent(const FormatSpec& f);
int max_exponent(const FormatSpec& f);
// Largest finite value: (2 − 2^-m)·2^emax; E4M3 loses its top mantissa code to NaN: 1.75·2^8 = 448.
double max_finite(const FormatSpec& f);
double min_normal(const FormatSpec& f);     // 2^emin (E8M0: 2^-127)
double min_subnormal(const FormatSpec& f);  // 2^(emin − m); E8M0 has none: its min normal
bool has_infinity(const FormatSpec& f);
bool has_nan(const FormatSpec& f);

// Converting n values stored in `from_bytes` each to `to_bytes` each: n × from_bytes read,
// n × to_bytes written, n elements (no flop counted: the rounding is integer work).
inline WorkCount conversion_work(double elements, double from_bytes, double to_bytes) {
  return {elements * from_bytes, elements * to_bytes, 0, elements};
}

// Converting every one of `inputs` bit patterns made in registers, counting disagreements on the
// device: no memory traffic, `inputs` elements.
inline WorkCount conversion_sweep_work(double inputs) { return {0, 0, 0, inputs}; }

}  // namespace bb::theory
