// Tests for harness/compare: the tolerance boundary, NaN and inf handling, the trivial-reference
// guard, the mismatch list and the error maxima.
#include "harness/compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace bb {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
const double kNan = std::numeric_limits<double>::quiet_NaN();

Comparison cmp(const std::vector<double>& out, const std::vector<double>& ref, Tolerance tol) {
  return compare<double, double>(std::span<const double>(out), std::span<const double>(ref), tol);
}

Comparison cmp_float(const std::vector<float>& out, const std::vector<double>& ref, Tolerance tol) {
  return compare<float, double>(std::span<const float>(out), std::span<const double>(ref), tol);
}

TEST(Compare, ExactMatch) {
  const Comparison c = cmp({1, 2, 3}, {1, 2, 3}, {0, 0});
  EXPECT_TRUE(c.ok()) << c.describe();
  EXPECT_EQ(c.checked, 3u);
  EXPECT_EQ(c.mismatches, 0u);
  EXPECT_FALSE(c.reference_trivial);
  EXPECT_EQ(c.max_abs_error, 0.0);
  EXPECT_EQ(c.max_rel_error, 0.0);
  EXPECT_TRUE(c.first_mismatches.empty());
}

TEST(Compare, ToleranceBoundary) {
  // atol 0.25 + rtol 0.125 × |8| = 1.25: an error of exactly 1.25 matches, one ulp more does not.
  const Tolerance tol{0.25, 0.125};
  EXPECT_TRUE(cmp({9.25, 16}, {8, 16}, tol).ok());
  EXPECT_TRUE(cmp({6.75, 16}, {8, 16}, tol).ok());
  const Comparison above = cmp({std::nextafter(9.25, kInf), 16}, {8, 16}, tol);
  EXPECT_FALSE(above.ok());
  EXPECT_EQ(above.mismatches, 1u);
  const Comparison below = cmp({std::nextafter(6.75, -kInf), 16}, {8, 16}, tol);
  EXPECT_FALSE(below.ok());
  EXPECT_EQ(below.mismatches, 1u);
  // The relative part scales with |ref|, not |out|: ref −8 allows the same 1.25.
  EXPECT_TRUE(cmp({-9.25, 16}, {-8, 16}, tol).ok());
  EXPECT_FALSE(cmp({-9.5, 16}, {-8, 16}, tol).ok());
}

TEST(Compare, NanIsAlwaysAMismatch) {
  const Tolerance huge{1e300, 1e300};
  const Comparison nan_out = cmp({kNan, 2}, {1, 2}, huge);
  EXPECT_FALSE(nan_out.ok());
  EXPECT_EQ(nan_out.mismatches, 1u);
  EXPECT_EQ(nan_out.max_abs_error, 0.0);  // NaN errors do not poison the maxima
  const Comparison nan_ref = cmp({1, 2}, {kNan, 2}, huge);
  EXPECT_FALSE(nan_ref.ok());
  EXPECT_EQ(nan_ref.mismatches, 1u);
  const Comparison both = cmp({kNan, 2}, {kNan, 3}, huge);
  EXPECT_EQ(both.mismatches, 1u);
  ASSERT_FALSE(both.first_mismatches.empty());
  EXPECT_NE(both.first_mismatches[0].find("i=0"), std::string::npos);
}

TEST(Compare, InfinityAgainstFiniteIsAMismatch) {
  // An infinite error exceeds any finite tolerance, and is reported as the maximum.
  const Comparison inf_out = cmp({kInf, 3}, {1, 3}, {1e300, 0.5});
  EXPECT_EQ(inf_out.mismatches, 1u);
  EXPECT_EQ(inf_out.max_abs_error, kInf);
  EXPECT_EQ(inf_out.max_rel_error, kInf);
  const Comparison inf_ref = cmp({1, 3}, {kInf, 3}, {1e300, 0});
  EXPECT_EQ(inf_ref.mismatches, 1u);
  EXPECT_EQ(inf_ref.max_abs_error, kInf);
}

TEST(Compare, TrivialReferenceIsNotOk) {
  const Comparison c = cmp({5, 5, 5}, {5, 5, 5}, {0, 0});
  EXPECT_EQ(c.mismatches, 0u);
  EXPECT_TRUE(c.reference_trivial);
  EXPECT_FALSE(c.ok());
  EXPECT_NE(c.describe().find("trivial"), std::string::npos) << c.describe();
  // A single element is trivially "all equal"; an empty comparison checks nothing.
  EXPECT_FALSE(cmp({1}, {1}, {0, 0}).ok());
  EXPECT_FALSE(cmp({}, {}, {0, 0}).ok());
}

TEST(Compare, AtMostTenMismatchesKeptButAllCounted) {
  std::vector<double> out(25), ref(25);
  for (std::size_t i = 0; i < ref.size(); ++i) {
    ref[i] = static_cast<double>(i);
    out[i] = ref[i] + 1;
  }
  const Comparison c = cmp(out, ref, {0.5, 0});
  EXPECT_EQ(c.mismatches, 25u);
  EXPECT_EQ(c.checked, 25u);
  ASSERT_EQ(c.first_mismatches.size(), kMaxMismatchesShown);
  EXPECT_EQ(c.first_mismatches.front(), "i=0: out=1 ref=0");
  EXPECT_EQ(c.first_mismatches.back(), "i=9: out=10 ref=9");
  EXPECT_NE(c.describe().find("25/25 mismatches"), std::string::npos) << c.describe();
}

TEST(Compare, DescribeMismatchRoundTripsDoubles) {
  EXPECT_EQ(describe_mismatch(12, 1.5, 2), "i=12: out=1.5 ref=2");
  EXPECT_EQ(describe_mismatch(0, 0.1, -3), "i=0: out=0.10000000000000001 ref=-3");
}

TEST(Compare, SizeMismatchCounted) {
  const Comparison c = cmp({1, 2, 3, 4, 5}, {1, 2, 3}, {0, 0});
  EXPECT_EQ(c.checked, 3u);
  EXPECT_EQ(c.mismatches, 2u);
  EXPECT_FALSE(c.ok());
  ASSERT_EQ(c.first_mismatches.size(), 1u);
  EXPECT_EQ(c.first_mismatches[0], "size: out 5 vs ref 3");
  const Comparison shorter = cmp({1}, {1, 2, 3, 4}, {0, 0});
  EXPECT_EQ(shorter.mismatches, 3u);
}

TEST(Compare, MaxErrors) {
  // |err| = 0.5, 1, 0.75; relative 0.5, 0.125 and (ref 0) not counted.
  const Comparison c = cmp({1.5, 9, 0.75}, {1, 8, 0}, {10, 0});
  EXPECT_TRUE(c.ok());
  EXPECT_EQ(c.max_abs_error, 1.0);
  EXPECT_EQ(c.max_rel_error, 0.5);
}

TEST(Compare, MixedTypes) {
  // float output against a double reference: 0.1f differs from 0.1 by about 1.5e-9.
  const Comparison c = cmp_float({0.1f, 2.0f}, {0.1, 2.0}, {0, 1e-7});
  EXPECT_TRUE(c.ok()) << c.describe();
  EXPECT_GT(c.max_abs_error, 1e-9);
  EXPECT_FALSE(cmp_float({0.1f, 2.0f}, {0.1, 2.0}, {0, 1e-9}).ok());
}

}  // namespace
}  // namespace bb

namespace bb {
namespace {

TEST(CompareInfinity, SameInfinityMatchesOtherNever) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> ref = {inf, -inf, 2.0};
  const std::vector<double> same = {inf, -inf, 2.0};
  const auto cmp_d = [](const std::vector<double>& o, const std::vector<double>& r, Tolerance t) {
    return compare<double, double>(o, r, t);
  };
  EXPECT_EQ(cmp_d(same, ref, Tolerance{0, 1e-6}).mismatches, 0u);
  // A relative tolerance around an infinite reference must not accept finite or opposite values.
  const std::vector<double> finite = {1.0, -inf, 2.0};
  EXPECT_EQ(cmp_d(finite, ref, Tolerance{0, 1e-6}).mismatches, 1u);
  const std::vector<double> flipped = {-inf, -inf, 2.0};
  EXPECT_EQ(cmp_d(flipped, ref, Tolerance{1e300, 1.0}).mismatches, 1u);
}

}  // namespace
}  // namespace bb
