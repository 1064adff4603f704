// The number formats (theory/formats.h) and the reference conversions (reference/formats.h): the
// derived constants against the standards' tables, every code decoding and re-encoding to itself,
// the named boundary cases, every rounding mode bracketing the value, and no double rounding.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>

#include "reference/formats.h"

namespace bb::reference {
namespace {

using theory::Format;
using theory::format_spec;

const FormatSpec& F(Format f) { return format_spec(f); }

TEST(Formats, ConstantsMatchTheStandards) {
  struct Row {
    Format f;
    double max, min_normal, min_subnormal, u;
  };
  const Row rows[] = {
      {Format::fp64, DBL_MAX, DBL_MIN, 0x1p-1074, 0x1p-53},
      {Format::fp32, FLT_MAX, FLT_MIN, 0x1p-149, 0x1p-24},
      {Format::tf32, 0x1.ffcp127, 0x1p-126, 0x1p-136, 0x1p-11},
      {Format::fp16, 65504, 0x1p-14, 0x1p-24, 0x1p-11},
      {Format::bf16, 0x1.fep127, 0x1p-126, 0x1p-133, 0x1p-8},
      {Format::e4m3, 448, 0x1p-6, 0x1p-9, 0x1p-4},
      {Format::e5m2, 57344, 0x1p-14, 0x1p-16, 0x1p-3},
      {Format::e2m3, 7.5, 1, 0.125, 0x1p-4},
      {Format::e3m2, 28, 0.25, 0.0625, 0x1p-3},
      {Format::e2m1, 6, 1, 0.5, 0x1p-2},
      {Format::e8m0, 0x1p127, 0x1p-127, 0x1p-127, 0.5},
  };
  for (const Row& r : rows) {
    const FormatSpec& f = F(r.f);
    EXPECT_EQ(theory::max_finite(f), r.max) << f.name;
    EXPECT_EQ(theory::min_normal(f), r.min_normal) << f.name;
    EXPECT_EQ(theory::min_subnormal(f), r.min_subnormal) << f.name;
    EXPECT_EQ(theory::unit_roundoff(f), r.u) << f.name;
  }
  EXPECT_TRUE(theory::has_infinity(F(Format::e5m2)));
  EXPECT_FALSE(theory::has_infinity(F(Format::e4m3)));
  EXPECT_TRUE(theory::has_nan(F(Format::e4m3)));
  EXPECT_FALSE(theory::has_nan(F(Format::e2m1)));
  EXPECT_EQ(theory::format_from_name("e4m3"), Format::e4m3);
  EXPECT_FALSE(theory::format_from_name("fp7"));
}

TEST(Formats, EverySmallCodeDecodesAndReencodesToItself) {
  for (const auto& f : theory::kFormats) {
    if (f.bits > 19) continue;
    std::uint64_t finite = 0;
    for (std::uint64_t c = 0; c < (std::uint64_t{1} << f.bits); ++c) {
      const double v = decode(f, c);
      if (std::isnan(v)) {
        EXPECT_TRUE(std::isnan(decode(f, encode(f, v)))) << f.name << " " << c;
        continue;
      }
      ++finite;
      EXPECT_EQ(encode(f, v, Rounding::nearest_even, Overflow::non_saturating), c)
          << f.name << " code " << c << " value " << v;
      for (Rounding r : {Rounding::toward_zero, Rounding::toward_positive,
                         Rounding::toward_negative}) {  // exact values never move
        EXPECT_EQ(encode(f, v, r, Overflow::non_saturating), c) << f.name << " " << c;
      }
    }
    EXPECT_GT(finite, 0u) << f.name;
  }
  // Code counts: E4M3 has 2 NaN codes and 254 numbers, E5M2 6 NaNs and 2 infinities, FP4 16
  // numbers.
  auto count_nan = [](const FormatSpec& f) {
    int n = 0;
    for (std::uint64_t c = 0; c < (std::uint64_t{1} << f.bits); ++c) n += std::isnan(decode(f, c));
    return n;
  };
  EXPECT_EQ(count_nan(F(Format::e4m3)), 2);
  EXPECT_EQ(count_nan(F(Format::e5m2)), 6);
  EXPECT_EQ(count_nan(F(Format::e2m1)), 0);
  EXPECT_EQ(count_nan(F(Format::e8m0)), 1);
}

TEST(Formats, NamedBoundaries) {
  const auto rn = Rounding::nearest_even;
  const auto sat = Overflow::saturate, nosat = Overflow::non_saturating;
  const FormatSpec &h = F(Format::fp16), &e4 = F(Format::e4m3), &e5 = F(Format::e5m2);
  // fp16: 65519 rounds down to the max, 65520 (the midpoint to 2^16, ties to even) overflows.
  EXPECT_EQ(encode(h, 65519, rn, nosat), 0x7BFFu);
  EXPECT_EQ(encode(h, 65520, rn, nosat), 0x7C00u);
  EXPECT_EQ(encode(h, 65520, rn, sat), 0x7BFFu);
  EXPECT_EQ(encode(h, -65520, rn, nosat), 0xFC00u);
  // E4M3: 464 (the midpoint of 448 and the NaN-taken 480) ties to 448; 465 overflows.
  EXPECT_EQ(encode(e4, 464, rn, nosat), 0x7Eu);
  EXPECT_EQ(encode(e4, 465, rn, nosat), 0x7Fu);  // NaN: E4M3 has no infinity
  EXPECT_EQ(encode(e4, 465, rn, sat), 0x7Eu);
  EXPECT_EQ(encode(e4, -1e9, rn, sat), 0xFEu);
  // E5M2: 61439 rounds to 57344, 61440 overflows to infinity.
  EXPECT_EQ(encode(e5, 61439, rn, nosat), 0x7Bu);
  EXPECT_EQ(encode(e5, 61440, rn, nosat), 0x7Cu);
  // Subnormal ties to even: fp16 half of the smallest subnormal → 0; 3/2 of it → 2 quanta.
  EXPECT_EQ(encode(h, 0x1p-25, rn, nosat), 0x0000u);
  EXPECT_EQ(encode(h, 0x1.8p-24, rn, nosat), 0x0002u);
  EXPECT_EQ(encode(h, 0x1.0000000000001p-25, rn, nosat), 0x0001u);
  // Negative underflow keeps its sign.
  EXPECT_EQ(encode(h, -0x1p-30, rn, nosat), 0x8000u);
  EXPECT_EQ(encode(e4, -0x1p-12, rn, nosat), 0x80u);
  // NaN in each mode: the format's NaN with the sign; FP6/FP4 (no NaN) +max; E8M0 0xFF.
  EXPECT_EQ(encode(e4, NAN, rn, sat), 0x7Fu);
  EXPECT_EQ(encode(e4, -NAN, rn, nosat), 0xFFu);
  EXPECT_EQ(encode(e5, NAN, rn, sat), 0x7Eu);
  EXPECT_EQ(encode(F(Format::e2m1), -NAN, rn, sat), 0x07u);
  EXPECT_EQ(encode(F(Format::e3m2), NAN, rn, nosat), 0x1Fu);
  EXPECT_EQ(encode(F(Format::e8m0), NAN), 0xFFu);
  // Infinity: saturated to max, or kept (E5M2), or NaN (E4M3).
  EXPECT_EQ(encode(e5, INFINITY, rn, sat), 0x7Bu);
  EXPECT_EQ(encode(e5, -INFINITY, rn, nosat), 0xFCu);
  EXPECT_EQ(encode(e4, INFINITY, rn, nosat), 0x7Fu);
  // Round toward zero never overflows past max finite.
  EXPECT_EQ(encode(h, 1e6, Rounding::toward_zero, nosat), 0x7BFFu);
  EXPECT_EQ(encode(h, -1e6, Rounding::toward_positive, nosat), 0xFBFFu);
  EXPECT_EQ(encode(h, -1e6, Rounding::toward_negative, nosat), 0xFC00u);
  // E8M0: 2^k codes k + 127; toward zero floors the exponent, upward ceils it.
  const FormatSpec& s = F(Format::e8m0);
  EXPECT_EQ(encode(s, 1.0), 127u);
  EXPECT_EQ(encode(s, 1.5, Rounding::toward_zero), 127u);
  EXPECT_EQ(encode(s, 1.5, Rounding::toward_positive), 128u);
  EXPECT_EQ(encode(s, 1.5, Rounding::nearest_even), 128u);  // tie: 2^0 (odd code) vs 2^1 (even)
  EXPECT_EQ(encode(s, 1.4, Rounding::nearest_even), 127u);
  EXPECT_EQ(encode(s, 0.0), 0u);  // no zero: the smallest scale
  EXPECT_EQ(encode(s, 0x1p200, Rounding::toward_zero, nosat), 0xFFu);
  EXPECT_EQ(encode(s, 0x1p200, Rounding::toward_zero, sat), 0xFEu);
}

TEST(Formats, RoundingModesBracketTheValue) {
  // For many values of every format: RTZ ≤ |x|, RD ≤ x ≤ RU, RN one of RD and RU and no farther.
  for (const auto& f : theory::kFormats) {
    if (f.specials == Specials::scale_nan || f.bits > 19) continue;
    const double top = theory::max_finite(f);
    for (int i = 1; i < 4000; ++i) {
      const double x = (i % 2 ? 1 : -1) * top * std::pow(static_cast<double>(i) / 4000.0, 9);
      const auto dec = [&](Rounding r) {
        return decode(f, encode(f, x, r, Overflow::non_saturating));
      };
      const double down = dec(Rounding::toward_negative), up = dec(Rounding::toward_positive);
      const double near = dec(Rounding::nearest_even), zero = dec(Rounding::toward_zero);
      ASSERT_LE(down, x) << f.name << " " << x;
      ASSERT_GE(up, x) << f.name << " " << x;
      ASSERT_TRUE(near == down || near == up) << f.name << " " << x;
      ASSERT_LE(std::fabs(near - x), std::fabs((near == down ? up : down) - x)) << f.name << x;
      ASSERT_LE(std::fabs(zero), std::fabs(x)) << f.name << " " << x;
      // Relative error of rounding to nearest in the normal range: at most u (Higham Thm 2.2).
      const bool normal = std::fabs(x) >= theory::min_normal(f);
      ASSERT_TRUE(!normal || std::fabs(near - x) <= theory::unit_roundoff(f) * std::fabs(x))
          << f.name << " " << x;
    }
  }
}

TEST(Formats, NoDoubleRounding) {
  // 1 + 2^-11 + 2^-40 lies just above the midpoint of fp16's 1 and 1 + 2^-10: directly it rounds
  // up; through fp32 (which drops the 2^-40) it becomes the midpoint and ties down to 1.
  const double x = 1 + 0x1p-11 + 0x1p-40;
  const FormatSpec& h = F(Format::fp16);
  EXPECT_EQ(encode(h, x), 0x3C01u);
  EXPECT_EQ(encode(h, static_cast<float>(x)), 0x3C00u);
}

}  // namespace
}  // namespace bb::reference
