// Least-squares and Theil–Sen fits on hand-worked data.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "harness/fit.h"

namespace bb {
namespace {

TEST(LinearFit, ExactLine) {
  const std::vector<double> x = {1, 2, 3, 4}, y = {5, 7, 9, 11};  // y = 2x + 3
  const LinearFit f = linear_fit(x, y);
  EXPECT_DOUBLE_EQ(f.slope, 2);
  EXPECT_DOUBLE_EQ(f.intercept, 3);
  EXPECT_DOUBLE_EQ(f.r2, 1);
  EXPECT_EQ(f.points, 4u);
}

TEST(LinearFit, HandWorkedNoisy) {
  // x = 0,1,2; y = 0,2,1: mean x 1, mean y 1; Sxx 2, Sxy 1 -> slope 0.5, intercept 0.5;
  // residuals -0.5, 1, -0.5 -> SSres 1.5; SStot 2 -> R² 0.25.
  const std::vector<double> x = {0, 1, 2}, y = {0, 2, 1};
  const LinearFit f = linear_fit(x, y);
  EXPECT_DOUBLE_EQ(f.slope, 0.5);
  EXPECT_DOUBLE_EQ(f.intercept, 0.5);
  EXPECT_DOUBLE_EQ(f.r2, 0.25);
}

TEST(LinearFit, RejectsDegenerateInput) {
  const std::vector<double> one = {1}, same = {2, 2, 2}, y3 = {1, 2, 3};
  EXPECT_THROW(linear_fit(one, one), std::invalid_argument);
  EXPECT_THROW(linear_fit(same, y3), std::invalid_argument);
  EXPECT_THROW(linear_fit(y3, one), std::invalid_argument);
}

TEST(PowerLawFit, RecoversTheExponent) {
  std::vector<double> x, y;
  for (double n : {512.0, 1024.0, 2048.0, 4096.0}) {
    x.push_back(n);
    y.push_back(3e-9 * n * n);  // t = c n²
  }
  const LinearFit f = power_law_fit(x, y);
  EXPECT_NEAR(f.slope, 2.0, 1e-12);
  EXPECT_NEAR(std::exp(f.intercept), 3e-9, 1e-20);
  const std::vector<double> bad = {1, -1};
  EXPECT_THROW(power_law_fit(bad, bad), std::invalid_argument);
}

TEST(PowerLawFit, HandWorkedNoisyLeastSquaresVersusTheilSen) {
  // x = 1 2 4 8, y = 1 4 8 64: in log2 units X = 0 1 2 3, Y = 0 2 3 6 (not a power law).
  // Least squares in logs: mean X 1.5, mean Y 2.75, Sxx 5, Sxy 4.125 + 0.375 + 0.125 + 4.875 = 9.5
  // → exponent 1.9, log2 c = 2.75 − 1.9·1.5 = −0.1; residuals 0.1 0.2 −0.7 0.4 → SSres 0.7; SStot
  // 18.75 → R² = 1 − 0.7/18.75. (Least squares on y itself, not its log, gives slope 9.19.)
  // Theil–Sen: the 6 pairwise slopes 2 1.5 2 1 2 3, sorted 1 1.5 2 2 2 3 → exponent 2
  // (least squares: 1.9); intercept median(Y) − 2·median(X) = 2.5 − 3 = −0.5 (log2);
  // 4 points cannot reach 95%: [S_(1), S_(6)] = [1, 3], covering 1 − 2/4! = 11/12.
  const std::vector<double> x = {1, 2, 4, 8}, y = {1, 4, 8, 64};
  const LinearFit f = power_law_fit(x, y);
  EXPECT_NEAR(f.slope, 1.9, 1e-12);
  EXPECT_NEAR(f.intercept, -0.1 * std::log(2.0), 1e-12);
  EXPECT_NEAR(f.r2, 1 - 0.7 / 18.75, 1e-12);
  const RobustFit r = theil_sen_power_law_fit(x, y);
  EXPECT_NEAR(r.slope, 2.0, 1e-12);
  EXPECT_NEAR(r.intercept, -0.5 * std::log(2.0), 1e-12);
  EXPECT_NEAR(r.slope_low, 1.0, 1e-12);
  EXPECT_NEAR(r.slope_high, 3.0, 1e-12);
  EXPECT_NEAR(r.coverage, 11.0 / 12, 1e-15);
}

TEST(InversionsCdf, MahonianNumbers) {
  // Inversions of a permutation of 5: 1 4 9 15 20 22 20 15 9 4 1 (of 120).
  EXPECT_NEAR(inversions_cdf(5, 0), 1.0 / 120, 1e-15);
  EXPECT_NEAR(inversions_cdf(5, 1), 5.0 / 120, 1e-15);
  EXPECT_NEAR(inversions_cdf(5, 4), 49.0 / 120, 1e-15);
  EXPECT_NEAR(inversions_cdf(5, 10), 1.0, 1e-15);
  // Of 7: 1 6 20 49 98 … (of 5040).
  EXPECT_NEAR(inversions_cdf(7, 3), 76.0 / 5040, 1e-15);
  EXPECT_NEAR(inversions_cdf(7, 4), 174.0 / 5040, 1e-15);
}

TEST(TheilSen, HandWorkedFivePoints) {
  // x = 1 … 5, y = 1 3 2 5 4. The 10 pairwise slopes, sorted: −1 −1 1/3 1/2 3/4 1 1 4/3 2 3;
  // median (3/4 + 1)/2 = 7/8; intercept median(y) − 7/8·median(x) = 3 − 21/8 = 3/8 (as scipy).
  // Five points cannot reach 95%: P(D = 0) = 1/120 ≤ 2.5% < P(D ≤ 1) = 5/120, so the interval is
  // [S_(1), S_(10)] = [−1, 3], covering 1 − 2/120.
  const std::vector<double> x = {1, 2, 3, 4, 5}, y = {1, 3, 2, 5, 4};
  const RobustFit f = theil_sen_fit(x, y);
  EXPECT_DOUBLE_EQ(f.slope, 0.875);
  EXPECT_DOUBLE_EQ(f.intercept, 0.375);
  EXPECT_EQ(f.pairs, 10u);
  EXPECT_EQ(f.points, 5u);
  EXPECT_EQ(f.low_rank, 1u);
  EXPECT_EQ(f.high_rank, 10u);
  EXPECT_DOUBLE_EQ(f.slope_low, -1);
  EXPECT_DOUBLE_EQ(f.slope_high, 3);
  EXPECT_NEAR(f.coverage, 1 - 2.0 / 120, 1e-15);
  const Interval i = f.slope_interval();
  EXPECT_EQ(i.value, f.slope);
  EXPECT_EQ(i.low, -1);
  EXPECT_EQ(i.high, 3);
}

TEST(TheilSen, SevenPointsRanksFourAndEighteen) {
  // n = 7, N = 21: P(D ≤ 3) = 76/5040 ≤ 2.5% < P(D ≤ 4) = 174/5040 → ranks 4 and 18, covering
  // 1 − 152/5040 = 97.0%. scipy.stats.theilslopes(y, x, 0.95) gives the same: slope 2.01667,
  // interval [1.9, 2.13333].
  const std::vector<double> x = {1, 2, 3, 4, 5, 6, 7}, y = {2.1, 3.9, 6.2, 7.8, 10.3, 11.9, 14.2};
  const RobustFit f = theil_sen_fit(x, y);
  EXPECT_EQ(f.low_rank, 4u);
  EXPECT_EQ(f.high_rank, 18u);
  EXPECT_NEAR(f.coverage, 1 - 152.0 / 5040, 1e-15);
  EXPECT_NEAR(f.slope, 2.0166666666666666, 1e-12);
  EXPECT_NEAR(f.intercept, -0.2666666666666666, 1e-12);
  EXPECT_NEAR(f.slope_low, 1.9, 1e-12);
  EXPECT_NEAR(f.slope_high, 2.1333333333333333, 1e-12);
}

TEST(TheilSen, ManyPointsWithTiesAsScipy) {
  // 300 points, each x twice (ties: the normal approximation with Sen's tie-corrected variance);
  // the reference numbers are scipy 1.10's theilslopes(y, x, 0.95).
  std::vector<double> x, y;
  for (int i = 0; i < 300; ++i) {
    x.push_back(static_cast<double>(i / 2));
    y.push_back(0.01 * x.back() + 0.5 * std::sin(i * 1.7));
  }
  const RobustFit f = theil_sen_fit(x, y);
  EXPECT_NEAR(f.slope, 0.00995782179440763, 1e-15);
  EXPECT_NEAR(f.intercept, 0.010781752958428092, 1e-13);
  EXPECT_NEAR(f.slope_low, 0.00923281979211292, 1e-15);
  EXPECT_NEAR(f.slope_high, 0.010639555774843285, 1e-15);
  EXPECT_EQ(f.coverage, 0.95);
  EXPECT_EQ(f.pairs, 300u * 299 / 2 - 150);
}

TEST(TheilSen, AnOutlierBarelyMovesIt) {
  // t = 3n² with one point 10× off (a preempted sample): least squares is pulled, Theil–Sen not.
  std::vector<double> x, y;
  for (double n : {64.0, 128.0, 256.0, 512.0, 1024.0, 2048.0, 4096.0, 8192.0}) {
    x.push_back(n);
    y.push_back(3 * n * n);
  }
  y[2] *= 10;
  const RobustFit robust = theil_sen_power_law_fit(x, y);
  EXPECT_NEAR(robust.slope, 2.0, 1e-12);
  EXPECT_LE(robust.slope_low, 2.0);
  EXPECT_GE(robust.slope_high, 2.0);
  EXPECT_GT(std::fabs(power_law_fit(x, y).slope - 2.0), 0.05);
}

TEST(TheilSen, CoverageBySimulation) {
  // y = 2x + skewed (exponential) noise at 8 points: the interval holds the slope 2 as often as
  // its exact coverage says (inversions of 8: 1 7 27 76 174 343 … of 40320, so P(D ≤ 5) =
  // 628/40320 ≤ 2.5% < P(D ≤ 6): ranks 6 and 23 of 28, covering 1 − 2·628/40320 = 96.9%).
  std::mt19937_64 rng(7);
  const auto uniform = [&] {
    return (static_cast<double>(rng() >> 11) + 0.5) / 9007199254740992.0;
  };
  const std::vector<double> x = {1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<double> y(x.size());
  const int trials = 20000;
  int covered = 0;
  double coverage = 0;
  for (int t = 0; t < trials; ++t) {
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = 2 * x[i] - std::log(uniform());
    const RobustFit f = theil_sen_fit(x, y);
    covered += f.slope_low <= 2 && 2 <= f.slope_high;
    coverage = f.coverage;
  }
  EXPECT_NEAR(coverage, 1 - 2 * 628.0 / 40320, 1e-15);
  EXPECT_EQ(theil_sen_fit(x, y).low_rank, 6u);
  const double sigma = std::sqrt(coverage * (1 - coverage) / trials);
  EXPECT_NEAR(static_cast<double>(covered) / trials, coverage, 4 * sigma);
}

TEST(TheilSen, RejectsDegenerateInput) {
  const std::vector<double> same = {2, 2, 2}, y3 = {1, 2, 3}, two = {1, 2};
  EXPECT_THROW(theil_sen_fit(same, y3), std::invalid_argument);
  EXPECT_THROW(theil_sen_fit(y3, two), std::invalid_argument);
  const std::vector<double> bad = {1, -1};
  EXPECT_THROW(theil_sen_power_law_fit(bad, two), std::invalid_argument);
  // Two points: one slope, and no interval to speak of (coverage 1 − 2/2! = 0).
  const RobustFit f = theil_sen_fit(two, two);
  EXPECT_EQ(f.slope, 1.0);
  EXPECT_EQ(f.coverage, 0.0);
}

}  // namespace
}  // namespace bb
