// Tests of the intensity references (reference/intensity.h): rounding to a significand and the
// fp16/bf16 encodings against NVIDIA's host conversions (cuda_fp16.h / cuda_bf16.h: headers only,
// no GPU), the exactness of each chain step in double, and the GEMM entry bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "reference/intensity.h"
#include "reference/random.h"

// NVIDIA's half-precision headers are host-callable; tests/CMakeLists.txt puts the toolkit's
// include directory on this test's path when a toolkit is found.
#if __has_include(<cuda_fp16.h>) && __has_include(<cuda_bf16.h>)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif

namespace bb::reference {
namespace {

// Random doubles m·2^e, m in [1, 2) with 53 random bits, e uniform in [lo, hi].
double random_double(std::uint64_t seed, std::uint64_t i, int lo, int hi) {
  const std::uint64_t r = splitmix64(seed ^ (i * 0xD1B54A32D192ED03ull));
  const int e = lo + static_cast<int>(r % static_cast<std::uint64_t>(hi - lo + 1));
  const double sign = (r >> 40) & 1 ? -1.0 : 1.0;
  return sign * std::ldexp(1 + uniform01(seed + 1, i), e);
}

TEST(RoundToSignificand, MatchesTheFloatConversionAt24Bits) {
  for (std::uint64_t i = 0; i < 200000; ++i) {
    const double x = random_double(1, i, -120, 120);
    ASSERT_EQ(round_to_significand(x, 24), static_cast<double>(static_cast<float>(x))) << x;
  }
}

TEST(RoundToSignificand, TiesGoToEven) {
  // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10 (11 bits): even is 1. 1 + 3·2^-11 lies
  // halfway between 1 + 2^-10 (odd) and 1 + 2^-9: even is 1 + 2^-9.
  EXPECT_EQ(round_to_significand(1 + 0x1p-11, 11), 1.0);
  EXPECT_EQ(round_to_significand(1 + 3 * 0x1p-11, 11), 1 + 0x1p-9);
  EXPECT_EQ(round_to_significand(-(1 + 3 * 0x1p-11), 11), -(1 + 0x1p-9));
  EXPECT_EQ(round_to_significand(2 - 0x1p-12, 11), 2.0);  // carries into the next binade
  EXPECT_EQ(round_to_significand(0.0, 11), 0.0);
}

TEST(RoundToSignificand, RefusesWhatItDoesNotModel) {
  EXPECT_THROW(round_to_significand(std::numeric_limits<double>::denorm_min(), 11),
               std::domain_error);
  EXPECT_THROW(round_to_significand(std::numeric_limits<double>::infinity(), 11),
               std::domain_error);
  EXPECT_THROW(round_to_significand(1.0, 0), std::invalid_argument);
  EXPECT_THROW(round_to_significand(1.0, 54), std::invalid_argument);
}

TEST(HalfEncodings, RangeLimits) {
  EXPECT_EQ(fp16_bits(65504), 0x7BFF);
  EXPECT_EQ(fp16_bits(65519.99), 0x7BFF);
  EXPECT_THROW(fp16_bits(65520), std::domain_error);  // the tie rounds to 65536: overflow
  EXPECT_EQ(fp16_bits(0x1p-24), 0x0001);              // smallest subnormal
  EXPECT_EQ(fp16_bits(0x1p-26), 0x0000);              // below half of it: zero
  EXPECT_EQ(fp16_value(0x3C00), 1.0);
  EXPECT_EQ(bf16_bits(1.0), 0x3F80);
  EXPECT_THROW(bf16_bits(0x1p-130), std::domain_error);  // bf16 subnormal: not modelled
}

TEST(StorageFormats, StoreAndLoadRoundTrip) {
  for (StorageFormat f :
       {StorageFormat::fp64, StorageFormat::fp32, StorageFormat::fp16, StorageFormat::bf16})
    for (std::uint64_t i = 0; i < 1000; ++i) {
      const double x = round_to_storage(f, positive_test_value(3, i));
      unsigned char bytes[8] = {};
      store(f, x, bytes);
      ASSERT_EQ(load(f, bytes), x) << static_cast<int>(f);
    }
}

// Each chain step is exact in double for every finite fp16 x (the claim in reference/intensity.h),
// and the long double computation (64-bit significand) agrees.
TEST(ChainStep, ExactInDoubleForEveryFp16Value) {
  const double a = kChainCoefficientsFp16.a, b = kChainCoefficientsFp16.b;
  for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
    const double x = fp16_value(static_cast<std::uint16_t>(bits));
    if (!std::isfinite(x)) continue;
    const double s = exact_multiply_add(x, a, b);
    ASSERT_EQ(static_cast<long double>(s),
              static_cast<long double>(x) * static_cast<long double>(a) + b)
        << bits;
  }
}

TEST(ChainStep, ExactForBf16InItsWindowAndCheckedOutsideIt) {
  const double a = kChainCoefficientsBf16.a, b = kChainCoefficientsBf16.b;
  for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
    const double x = bf16_value(static_cast<std::uint16_t>(bits));
    if (!std::isfinite(x) || x == 0 || std::fabs(x) < 0x1p-40 || std::fabs(x) > 0x1p40) continue;
    ASSERT_NO_THROW(exact_multiply_add(x, a, b)) << bits;
  }
  // Far outside the window x·a + b needs more than 53 bits: the check catches it.
  EXPECT_THROW(exact_multiply_add(0x1p60, a, b), std::domain_error);
}

// After 1024 steps the fp16 and bf16 chains from the scaled inputs still move at every step (a
// stalled chain would hide skipped steps) and take many values (not a trivial reference).
TEST(FmaChain, StillMovingAfter1024Steps) {
  for (const HalfFormat* f : {&kFp16, &kBf16}) {
    const ChainCoefficients c = f == &kFp16 ? kChainCoefficientsFp16 : kChainCoefficientsBf16;
    const StorageFormat s = f == &kFp16 ? StorageFormat::fp16 : StorageFormat::bf16;
    std::vector<double> out;
    int moving = 0;
    for (std::uint64_t i = 0; i < 1000; ++i) {
      const double x = round_to_storage(s, c.input_scale * positive_test_value(5, i));
      const double y = fma_chain_rounded(x, 1024, c.a, c.b, *f);
      if (fma_chain_rounded(y, 1, c.a, c.b, *f) != y) ++moving;
      out.push_back(y);
    }
    std::sort(out.begin(), out.end());
    const auto distinct = std::unique(out.begin(), out.end()) - out.begin();
    EXPECT_GE(distinct, 100) << f->name;
    EXPECT_GE(moving, 970) << f->name;  // all but the low outliers (inputs · 2^-12), 1 in 64
  }
}

// A GEMM entry summed in fp32 (a legitimate order) lies within the bound; the same sum with one
// term dropped does not: the bound is tight enough to catch a missing k.
TEST(GemmEntryReference, Fp32SumWithinTheBoundAndADroppedTermOutside) {
  const std::size_t n = 256;
  int dropped_caught = 0;
  for (std::uint64_t trial = 0; trial < 64; ++trial) {
    std::vector<double> a(n), b(n);
    for (std::size_t k = 0; k < n; ++k) {
      a[k] = static_cast<float>(2 * uniform01(100 + trial, k) - 1);
      b[k] = static_cast<float>(2 * uniform01(200 + trial, k) - 1);
    }
    const GemmEntry e = gemm_entry_reference(a, b, 0, 0x1p-24, 0x1p-24);
    float sum = 0, sum_dropped = 0;
    for (std::size_t k = 0; k < n; ++k) {
      sum = std::fma(static_cast<float>(a[k]), static_cast<float>(b[k]), sum);
      if (k != n / 2)
        sum_dropped = std::fma(static_cast<float>(a[k]), static_cast<float>(b[k]), sum_dropped);
    }
    EXPECT_LE(std::fabs(sum - e.value), e.bound) << trial;
    if (std::fabs(sum_dropped - e.value) > e.bound) ++dropped_caught;
  }
  EXPECT_GE(dropped_caught, 60);  // the few misses are terms smaller than the bound
}

TEST(GemmEntryReference, RefusesMismatchedOperands) {
  const std::vector<double> a(3, 1.0), b(2, 1.0);
  EXPECT_THROW(gemm_entry_reference(a, b, 0, 0x1p-24, 0), std::invalid_argument);
  EXPECT_THROW(gamma_bound(std::size_t{1} << 25, 0x1p-24), std::domain_error);
}

#if __has_include(<cuda_fp16.h>) && __has_include(<cuda_bf16.h>)

// Random floats over fp16's range (subnormals included), and exact ties between neighbours.
std::vector<float> fp16_test_floats() {
  std::vector<float> v;
  for (std::uint64_t i = 0; i < 200000; ++i)
    v.push_back(static_cast<float>(random_double(7, i, -26, 14)));
  for (std::uint32_t bits = 0; bits < 0x7BFF; bits += 3) {
    const double lo = fp16_value(static_cast<std::uint16_t>(bits));
    const double hi = fp16_value(static_cast<std::uint16_t>(bits + 1));
    v.push_back(static_cast<float>((lo + hi) / 2));  // exact in float: 12 significant bits
    v.push_back(static_cast<float>(-(lo + hi) / 2));
  }
  return v;
}

TEST(HalfEncodingsVsCuda, Fp16BitsMatchFloat2HalfRn) {
  for (float f : fp16_test_floats())
    ASSERT_EQ(fp16_bits(f), __half_as_ushort(__float2half_rn(f))) << f;
}

TEST(HalfEncodingsVsCuda, Fp16BitsMatchDouble2Half) {
  for (std::uint64_t i = 0; i < 200000; ++i) {
    const double x = random_double(8, i, -26, 14);
    ASSERT_EQ(fp16_bits(x), __half_as_ushort(__double2half(x))) << x;
  }
}

TEST(HalfEncodingsVsCuda, Fp16ValueDecodesEveryPattern) {
  for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
    const auto b = static_cast<std::uint16_t>(bits);
    const double cuda = __half2float(__ushort_as_half(b));
    if (std::isnan(cuda))
      ASSERT_TRUE(std::isnan(fp16_value(b))) << bits;
    else
      ASSERT_EQ(fp16_value(b), cuda) << bits;
  }
}

TEST(HalfEncodingsVsCuda, Bf16BitsMatchFloat2Bfloat16Rn) {
  for (std::uint64_t i = 0; i < 200000; ++i) {
    const auto f = static_cast<float>(random_double(9, i, -126, 126));
    ASSERT_EQ(bf16_bits(f), __bfloat16_as_ushort(__float2bfloat16_rn(f))) << f;
  }
  for (std::uint32_t bits = 0x0080; bits < 0x7F7F; bits += 5) {  // ties between neighbours
    const double lo = bf16_value(static_cast<std::uint16_t>(bits));
    const double hi = bf16_value(static_cast<std::uint16_t>(bits + 1));
    const auto tie = static_cast<float>((lo + hi) / 2);
    ASSERT_EQ(bf16_bits(tie), __bfloat16_as_ushort(__float2bfloat16_rn(tie))) << tie;
  }
}

TEST(HalfEncodingsVsCuda, Bf16ValueDecodesEveryPattern) {
  for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
    const auto b = static_cast<std::uint16_t>(bits);
    const double cuda = __bfloat162float(__ushort_as_bfloat16(b));
    if (std::isnan(cuda))
      ASSERT_TRUE(std::isnan(bf16_value(b))) << bits;
    else
      ASSERT_EQ(bf16_value(b), cuda) << bits;
  }
}

// The chain against the same steps rounded by NVIDIA's correctly rounded double → fp16 / bf16
// conversions (the double x·a + b being exact, one rounding each, as __hfma2).
TEST(HalfEncodingsVsCuda, FmaChainRoundedMatchesCudaConversions) {
  for (std::uint64_t i = 0; i < 2000; ++i) {
    const double x16 = round_to_storage(
        StorageFormat::fp16, kChainCoefficientsFp16.input_scale * positive_test_value(11, i));
    const double xb = round_to_storage(
        StorageFormat::bf16, kChainCoefficientsBf16.input_scale * positive_test_value(11, i));
    double y16 = x16, yb = xb;
    for (int k = 1; k <= 300; ++k) {
      y16 = __half2float(__double2half(y16 * kChainCoefficientsFp16.a + kChainCoefficientsFp16.b));
      yb = __bfloat162float(
          __double2bfloat16(yb * kChainCoefficientsBf16.a + kChainCoefficientsBf16.b));
    }
    ASSERT_EQ(
        fma_chain_rounded(x16, 300, kChainCoefficientsFp16.a, kChainCoefficientsFp16.b, kFp16),
        y16);
    ASSERT_EQ(fma_chain_rounded(xb, 300, kChainCoefficientsBf16.a, kChainCoefficientsBf16.b, kBf16),
              yb);
  }
}

#else

TEST(HalfEncodingsVsCuda, NeedsTheCudaHeaders) {
  GTEST_SKIP() << "built without cuda_fp16.h / cuda_bf16.h on the include path: the encodings "
                  "are not cross-checked against NVIDIA's conversions";
}

#endif

}  // namespace
}  // namespace bb::reference
