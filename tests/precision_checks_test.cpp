// The precision suite's checks on synthetic summation results, and its host conversion kernel
// against the reference on every fp32 pattern class.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/convert.h"
#include "kernels/quant.h"
#include "reference/formats_fast.h"
#include "reference/quant.h"
#include "reference/random.h"
#include "suites/precision/precision_suite.h"

namespace bb::suites {
namespace {

std::vector<CaseResult> series(const char* alg, double exponent, double worst) {
  std::vector<CaseResult> rs;
  for (double n : {256.0, 2048.0, 16384.0, 131072.0}) {
    CaseResult r;
    r.name = std::string("summation/") + alg;
    r.params = {{"algorithm", alg}, {"n", n}};
    r.observations = {{"median_relative_error", 1e-9 * std::pow(n, exponent)},
                      {"worst_error_over_bound", worst}};
    rs.push_back(r);
  }
  return rs;
}

const Check* find(const std::vector<Check>& cs, const std::string& name) {
  for (const auto& c : cs)
    if (c.name == name) return &c;
  return nullptr;
}

TEST(PrecisionChecks, GrowthLawsAndBounds) {
  auto rs = series("recursive", 0.5, 0.01);
  for (auto& r : series("pairwise", 0.1, 0.02)) rs.push_back(r);
  for (auto& r : series("kahan", 0.0, 0.03)) rs.push_back(r);
  const auto ok = precision_suite_checks(rs);
  for (const char* n : {"summation/recursive/growth", "summation/pairwise/growth",
                        "summation/recursive/bound", "summation/kahan/flat"})
    EXPECT_EQ(find(ok, n)->verdict, Verdict::pass) << n;
  // Pairwise growing as fast as recursive, an error past its bound: failures.
  auto bad = series("recursive", 0.5, 1.5);
  for (auto& r : series("pairwise", 0.5, 0.02)) bad.push_back(r);
  const auto fails = precision_suite_checks(bad);
  EXPECT_EQ(find(fails, "summation/recursive/bound")->verdict, Verdict::fail);
  EXPECT_EQ(find(fails, "summation/pairwise/growth")->verdict, Verdict::fail);
  // Recursive error flat in n: not the √n law.
  EXPECT_EQ(
      find(precision_suite_checks(series("recursive", 0.0, 0.1)), "summation/recursive/growth")
          ->verdict,
      Verdict::fail);
}

TEST(PrecisionChecks, JustOutsideAndJustInsideTheirBands) {
  // The bound: worst error / bound ≤ 1 (closed): 1.0001 FAILs, 1 and 0.9999 PASS.
  for (const double worst : {1.0001, 1.0, 0.9999})
    EXPECT_EQ(
        find(precision_suite_checks(series("recursive", 0.5, worst)), "summation/recursive/bound")
            ->verdict,
        worst > 1 ? Verdict::fail : Verdict::pass)
        << worst;
  // The √n growth law, 0.5 ± 0.2 (an exact power law: the fit is the exponent): 0.71 and 0.29
  // FAIL, 0.69 and 0.31 PASS.
  for (const double e : {0.71, 0.69, 0.31, 0.29}) {
    const Check* c =
        find(precision_suite_checks(series("recursive", e, 0.01)), "summation/recursive/growth");
    ASSERT_NE(c, nullptr);
    EXPECT_NEAR(c->measured, e, 1e-9);
    EXPECT_EQ(c->verdict, std::fabs(e - 0.5) > 0.2 ? Verdict::fail : Verdict::pass) << e;
  }
}

TEST(PrecisionChecks, GpuTreeFittedWhereItIsATreeAndCubBounded) {
  // A GPU-only run: the tree's flat growth up to 2^20 passes against the law's ½ − 0.25; its sizes
  // past 2^20 (lanes of > 4 values, √ growth) are not fitted but their bound still counts.
  auto rs = series("tree", 0.05, 0.1);
  for (double n : {0x1p23, 0x1p26}) {
    CaseResult r;
    r.params = {{"algorithm", "tree"}, {"n", n}, {"growth_fit", false}};
    r.observations = {{"median_relative_error", 1e-3 * std::sqrt(n)},
                      {"worst_error_over_bound", 0.2}};
    rs.push_back(r);
  }
  for (auto& r : series("cub", 0.1, 0.3)) rs.push_back(r);
  const auto checks = precision_suite_checks(rs);
  EXPECT_EQ(find(checks, "summation/tree/growth")->verdict, Verdict::pass);
  EXPECT_NEAR(find(checks, "summation/tree/growth")->measured, 0.05, 1e-9);
  EXPECT_EQ(find(checks, "summation/tree/bound")->measured, 0.2);
  EXPECT_EQ(find(checks, "summation/cub/bound")->verdict, Verdict::pass);
  // A tree growing like recursive summation, and CUB past the any-order bound: failures.
  auto bad = series("tree", 0.5, 0.1);
  for (auto& r : series("cub", 0.1, 1.2)) bad.push_back(r);
  const auto fails = precision_suite_checks(bad);
  EXPECT_EQ(find(fails, "summation/tree/growth")->verdict, Verdict::fail);
  EXPECT_EQ(find(fails, "summation/cub/bound")->verdict, Verdict::fail);
}

TEST(ConvertHost, Fp16MatchesTheReferenceOnEveryClassOfInput) {
  // Every exponent and sign, the rounding boundaries of the 13 dropped bits, odd lengths (tails).
  std::vector<float> x;
  for (std::uint32_t s = 0; s < 2; ++s)
    for (std::uint32_t e = 0; e < 255; ++e)
      for (std::uint32_t low : {0u, 1u, 0xFFFu, 0x1000u, 0x1001u, 0x1FFFu, 0x2000u, 0x7FFFFFu}) {
        const std::uint32_t bits = s << 31 | e << 23 | low;
        float f;
        std::memcpy(&f, &bits, 4);
        x.push_back(f);
      }
  x.push_back(INFINITY);
  x.push_back(-INFINITY);
  for (std::size_t n : {x.size(), x.size() - 3, std::size_t{5}}) {
    std::vector<std::uint16_t> out(n, 0x7E01);
    kernels::fp32_to_fp16_host(x.data(), out.data(), n);
    const auto& fp16 = theory::format_spec(theory::Format::fp16);
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t bits;
      std::memcpy(&bits, &x[i], 4);
      ASSERT_EQ(out[i],
                reference::encode_fp32_nearest(fp16, bits, reference::Overflow::non_saturating))
          << "input " << x[i] << " n " << n << " isa " << kernels::fp32_to_fp16_host_isa();
    }
  }
}

}  // namespace
}  // namespace bb::suites

namespace bb {
namespace {

// The int8 quantize/dequantize kernels equal reference/quant.h code for code, per tensor, channel
// and group, symmetric and asymmetric, nearest and stochastic, and on degenerate ranges.
template <class Q>
void expect_quantize_matches(const std::vector<float>& x, std::size_t group,
                             theory::QuantScheme scheme, bool stochastic) {
  const std::size_t groups = x.size() / group;
  std::vector<float> lo(groups), hi(groups), back(x.size());
  std::vector<theory::IntQuant> params(groups);
  std::vector<Q> q(x.size(), Q{0x5A});
  kernels::group_minmax_host(x.data(), x.size(), group, lo.data(), hi.data());
  for (std::size_t g = 0; g < groups; ++g)
    params[g] = theory::int_quant_params(lo[g], hi[g], 8, scheme);
  kernels::quantize_host(x.data(), x.size(), group, params.data(), stochastic, 3, q.data());
  kernels::dequantize_host(q.data(), x.size(), group, params.data(), back.data());
  const auto ref = reference::quantize(
      x, group, 8, scheme,
      stochastic ? reference::QuantRounding::stochastic : reference::QuantRounding::nearest, 3);
  const auto ref_x = reference::dequantize(ref);
  for (std::size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(static_cast<std::int32_t>(q[i]), ref.q[i]) << "element " << i << " group " << group;
    ASSERT_EQ(back[i], static_cast<float>(ref_x[i])) << "element " << i;
  }
}

TEST(QuantHost, MatchesTheReferenceCodeForCode) {
  std::vector<float> x(3 * 4096 * 4);
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(-3 + 5 * reference::uniform01(5, i) + ((i % 97) == 0 ? 40 : 0));
  for (std::size_t group : {x.size(), std::size_t{4096}, std::size_t{128}, std::size_t{3}})
    for (bool stochastic : {false, true}) {
      expect_quantize_matches<std::int8_t>(x, group, theory::QuantScheme::symmetric, stochastic);
      expect_quantize_matches<std::uint8_t>(x, group, theory::QuantScheme::asymmetric, stochastic);
    }
  // Degenerate ranges: all equal, all zero (scale 1, every value exact).
  std::vector<float> same(1024, 0.75f), zero(1024, 0.0f);
  expect_quantize_matches<std::int8_t>(same, 128, theory::QuantScheme::symmetric, false);
  expect_quantize_matches<std::uint8_t>(same, 128, theory::QuantScheme::asymmetric, false);
  expect_quantize_matches<std::int8_t>(zero, 1024, theory::QuantScheme::symmetric, false);
}

}  // namespace
}  // namespace bb
