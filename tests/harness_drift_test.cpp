// Drift within a case (harness/drift.h) and the samples kept in the order taken (stats.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "harness/change_interval.h"
#include "harness/drift.h"
#include "harness/stats.h"

namespace bb {
namespace {

// x = 1 3 2 5 4, by hand: of the 10 pairs i < j, 8 rise and 2 fall (3→2, 5→4): S = 6;
// Var S = 5·4·15/18 = 50/3; z = (6 − 1)/√(50/3) = 1.22474; p = erfc(z/√2) = 0.220671.
TEST(MannKendall, HandWorkedSeries) {
  const std::vector<double> x = {1, 3, 2, 5, 4};
  const MannKendall mk = mann_kendall(x);
  EXPECT_DOUBLE_EQ(mk.s, 6);
  EXPECT_DOUBLE_EQ(mk.var_s, 50.0 / 3);
  EXPECT_NEAR(mk.z, 1.224745, 1e-6);
  EXPECT_NEAR(mk.p, 0.220671, 1e-6);
  // Falling: the same magnitude, the other sign.
  const std::vector<double> down = {4, 5, 2, 3, 1};
  EXPECT_DOUBLE_EQ(mann_kendall(down).s, -6);
  EXPECT_NEAR(mann_kendall(down).z, -1.224745, 1e-6);
}

// x = 1 2 2 3 2: S = 4 (from the 1) + 1 + 1 (2→3 twice) − 1 (3→2) = 5; three tied 2s take
// 3·2·11 = 66 from 5·4·15 = 300: Var S = 234/18 = 13; z = 4/√13 = 1.109400; p = 0.267257.
TEST(MannKendall, TiesShrinkTheVariance) {
  const std::vector<double> x = {1, 2, 2, 3, 2};
  const MannKendall mk = mann_kendall(x);
  EXPECT_DOUBLE_EQ(mk.s, 5);
  EXPECT_DOUBLE_EQ(mk.var_s, 13);
  EXPECT_NEAR(mk.z, 1.109400, 1e-6);
  EXPECT_NEAR(mk.p, 0.267257, 1e-6);
  const std::vector<double> flat = {2, 2, 2, 2};
  EXPECT_DOUBLE_EQ(mann_kendall(flat).p, 1);  // all tied: no variance, no trend
}

// The 10 slopes of 1 3 2 5 4, sorted: −1 −1 1/3 1/2 3/4 1 1 4/3 2 3: median (3/4 + 1)/2 = 0.875.
// c = 1.96·√(50/3) = 8.0017, k = ⌊(10 − c)/2⌋ = 0 → 1: the interval is [Q_(1), Q_(10)] = [−1, 3];
// intercept 3 − 0.875·2 = 1.25.
TEST(SenSlope, HandWorkedSeries) {
  const std::vector<double> x = {1, 3, 2, 5, 4};
  const SenSlope s = sen_slope(x, 50.0 / 3);
  EXPECT_DOUBLE_EQ(s.slope, 0.875);
  EXPECT_DOUBLE_EQ(s.low, -1);
  EXPECT_DOUBLE_EQ(s.high, 3);
  EXPECT_DOUBLE_EQ(s.intercept, 1.25);
  // With no variance to allow for, k = 5: [Q_(5), Q_(6)] = [3/4, 1].
  const SenSlope tight = sen_slope(x, 0);
  EXPECT_DOUBLE_EQ(tight.low, 0.75);
  EXPECT_DOUBLE_EQ(tight.high, 1);
  // 1 2 3 4 5 6: every slope 1, odd N = 15.
  const std::vector<double> line = {1, 2, 3, 4, 5, 6};
  EXPECT_DOUBLE_EQ(sen_slope(line, 0).slope, 1);
}

// n = 8 tests r = 2 only (≤ n/4): both first samples exceed all 6 others, U = 12, mean 6,
// Var U = 2·6·9/12 = 9: z = (12 − 6 − 0.5)/3 = 1.8333, p = erfc(z/√2)/2 = 0.0333765; the medians
// 5.5 and (2 + 2.5)/2 = 2.25: ratio 2.4444.
TEST(Warmup, HandWorkedSeries) {
  const std::vector<double> x = {5, 6, 1, 2, 3, 4, 1.5, 2.5};
  const Warmup w = warmup_test(x);
  EXPECT_EQ(w.samples, 2u);
  EXPECT_NEAR(w.p, 0.0333765, 1e-6);
  EXPECT_NEAR(w.ratio, 5.5 / 2.25, 1e-12);
}

std::vector<double> noisy(std::mt19937_64& rng, std::size_t n, double rel_noise) {
  std::normal_distribution<double> z;
  std::vector<double> x(n);
  for (double& v : x) v = 1 + rel_noise * z(rng);
  return x;
}

// I.i.d. noise: at level 1% the trend test rejects ~1% of 2,000 series (Binomial(2000, 0.01):
// 20 ± 4.4; [8, 34] holds it with probability > 0.998), the case's combined p no more often
// (it is conservative: Bonferroni and the warm-up test's conservative approximation), as
// sample_drift combines them.
TEST(SampleDrift, IidNoiseRejectsAtTheStatedRate) {
  std::mt19937_64 rng(27);
  int trend = 0, any = 0;
  for (int i = 0; i < 2000; ++i) {
    const std::vector<double> x = noisy(rng, 100, 0.02);
    const double p_trend = mann_kendall(x).p;  // sample_drift's tests, without the Theil–Sen fit
    trend += p_trend <= 0.01;
    any += std::min(1.0, 2 * std::min(p_trend, warmup_test(x).p)) <= 0.01;
  }
  EXPECT_GE(trend, 8);
  EXPECT_LE(trend, 34);
  EXPECT_LE(any, 34);
}

// A planted 10% linear drift over 200 samples with 2% noise: found, and its size measured.
TEST(SampleDrift, FindsALinearDrift) {
  std::mt19937_64 rng(5);
  std::vector<double> x = noisy(rng, 200, 0.02);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] *= 1 + 0.10 * static_cast<double>(i) / 199;
  const auto d = sample_drift(x);
  ASSERT_TRUE(d);
  EXPECT_LT(d->trend.p, 1e-9);
  EXPECT_GT(d->trend.z, 0);
  EXPECT_LE(d->low, 0.10);
  EXPECT_GE(d->high, 0.10);
  EXPECT_NEAR(d->relative_change, 0.10, 0.02);
  EXPECT_LT(d->p, kDriftFdr);
}

// A warm-up: the first 5 of 200 samples 2× slower. Too few for a trend test, found as a warm-up.
TEST(SampleDrift, FindsAWarmup) {
  std::mt19937_64 rng(9);
  std::vector<double> x = noisy(rng, 200, 0.02);
  for (std::size_t i = 0; i < 5; ++i) x[i] *= 2;
  const auto d = sample_drift(x);
  ASSERT_TRUE(d);
  EXPECT_LT(d->warmup.p, 0.01);
  EXPECT_EQ(d->warmup.samples, 4u);
  EXPECT_NEAR(d->warmup.ratio, 2, 0.1);
  EXPECT_LT(d->p, kDriftFdr);
  EXPECT_DOUBLE_EQ(d->p, std::min(1.0, 2 * std::min(d->trend.p, d->warmup.p)));
  // The same samples in another order (the warm-up moved to the middle): no warm-up.
  std::rotate(x.begin(), x.begin() + 5, x.begin() + 100);
  EXPECT_GT(sample_drift(x)->warmup.p, 0.01);
}

TEST(SampleDrift, NeedsTenSamplesAndAPositiveStart) {
  EXPECT_FALSE(sample_drift(std::vector<double>(9, 1.0)));
  EXPECT_TRUE(sample_drift(std::vector<double>(10, 1.0)));
  EXPECT_FALSE(sample_drift(std::vector<double>(10, 0.0)));
}

// More samples than the cap are thinned in time order: every k-th, the first and last kept, so a
// falling series still falls (sorted order statistics would rise).
TEST(KeptSamples, StayInTimeOrder) {
  std::vector<double> falling(5000);
  for (std::size_t i = 0; i < falling.size(); ++i) falling[i] = 5000.0 - static_cast<double>(i);
  const std::vector<double> kept = kept_samples(falling);
  ASSERT_EQ(kept.size(), kKeptSamples);
  EXPECT_EQ(kept.front(), 5000);
  EXPECT_EQ(kept.back(), 1);
  EXPECT_TRUE(std::is_sorted(kept.rbegin(), kept.rend()));
  std::mt19937_64 rng(3);
  const std::vector<double> x = noisy(rng, 1234, 0.1);
  const std::vector<double> k = kept_samples(x, 100);
  for (std::size_t i = 0; i < k.size(); ++i) EXPECT_EQ(k[i], x[(i * 1233 + 49) / 99]);
  EXPECT_EQ(kept_samples(x), kept_rounds(x));  // a pairing group's rounds: the same indices
}

// compare sees only the distribution: samples in time order give the interval that sorted
// samples give, also when thinned (more than kMaxRankSamples a side).
TEST(KeptSamples, CompareIgnoresTheirOrder) {
  std::mt19937_64 rng(11);
  std::vector<double> base = noisy(rng, 700, 0.05), next = noisy(rng, 500, 0.05);
  for (double& v : next) v *= 1.03;
  const RatioInterval taken = ratio_interval(base, next, 0.02);
  std::sort(base.begin(), base.end());
  std::sort(next.begin(), next.end());
  const RatioInterval sorted = ratio_interval(base, next, 0.02);
  EXPECT_DOUBLE_EQ(taken.ratio, sorted.ratio);
  EXPECT_DOUBLE_EQ(taken.low, sorted.low);
  EXPECT_DOUBLE_EQ(taken.high, sorted.high);
  EXPECT_DOUBLE_EQ(taken.p_slower, sorted.p_slower);
}

nlohmann::json entry(const std::string& name, double p) {
  return {{"suite", "s"},
          {"case", name},
          {"drift",
           {{"p", p},
            {"p_trend", p},
            {"relative_change", 0.1},
            {"interval", {0.08, 0.12}},
            {"warmup", {{"samples", 2}, {"ratio", 1.0}, {"p", 1.0}}}}}};
}

// Benjamini–Hochberg at 1% over the run's cases: 1e-5 among 20 cases is kept (q = 2e-4), 0.005
// is not (q = 0.05), an entry without a drift test is not counted.
TEST(DriftingCases, FalseDiscoveryRateAcrossTheRun) {
  nlohmann::json benchmarks = nlohmann::json::array();
  for (int i = 0; i < 18; ++i) benchmarks.push_back(entry("flat" + std::to_string(i), 0.5));
  benchmarks.push_back(entry("drifts", 1e-5));
  benchmarks.push_back(entry("maybe", 0.005));
  benchmarks.push_back({{"suite", "s"}, {"case", "few"}});
  const auto lines = drifting_cases(benchmarks);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].rfind("s/drifts: trend +10.0% over the case [+8.0%, +12.0%]", 0), 0u)
      << lines[0];
  EXPECT_TRUE(drifting_cases(nlohmann::json::array({entry("maybe", 0.02)})).empty());
  EXPECT_EQ(drifting_cases(nlohmann::json::array({entry("alone", 0.005)})).size(), 1u);
}

}  // namespace
}  // namespace bb
