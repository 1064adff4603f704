// Tests for harness/stats: summary statistics on known samples, and the stopping rule driven by
// synthetic sample streams (no clocks involved: wall time is passed in).
#include "harness/stats.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace bb {
namespace {

TEST(Summarize, OddCount) {
  // Sorted 1 2 3: median 2, mean 2, stddev sqrt((1 + 0 + 1) / 2) = 1.
  const std::vector<double> x = {3, 1, 2};
  const Summary s = summarize(x);
  EXPECT_EQ(s.samples, 3u);
  EXPECT_EQ(s.min_s, 1.0);
  EXPECT_EQ(s.max_s, 3.0);
  EXPECT_EQ(s.median_s, 2.0);
  EXPECT_DOUBLE_EQ(s.mean_s, 2.0);
  EXPECT_DOUBLE_EQ(s.stddev_s, 1.0);
  EXPECT_DOUBLE_EQ(s.rel_noise, 0.5);
  EXPECT_DOUBLE_EQ(s.total_s, 6.0);
}

TEST(Summarize, EvenCountMedianIsMeanOfMiddlePair) {
  // Sorted 1 2 3 4: median 2.5; squared deviations 2.25 + 0.25 + 0.25 + 2.25 = 5 over n − 1 = 3.
  const std::vector<double> x = {4, 1, 3, 2};
  const Summary s = summarize(x);
  EXPECT_EQ(s.samples, 4u);
  EXPECT_DOUBLE_EQ(s.median_s, 2.5);
  EXPECT_DOUBLE_EQ(s.mean_s, 2.5);
  EXPECT_DOUBLE_EQ(s.stddev_s, std::sqrt(5.0 / 3.0));
  EXPECT_DOUBLE_EQ(s.rel_noise, std::sqrt(5.0 / 3.0) / 2.5);
  EXPECT_DOUBLE_EQ(s.total_s, 10.0);
}

TEST(Summarize, SampleNotPopulationStddev) {
  // Classic set: mean 5, population sd 2, sample sd sqrt(32 / 7).
  const std::vector<double> x = {2, 4, 4, 4, 5, 5, 7, 9};
  const Summary s = summarize(x);
  EXPECT_DOUBLE_EQ(s.mean_s, 5.0);
  EXPECT_DOUBLE_EQ(s.median_s, 4.5);
  EXPECT_DOUBLE_EQ(s.stddev_s, std::sqrt(32.0 / 7.0));
  EXPECT_DOUBLE_EQ(s.total_s, 40.0);
}

TEST(Summarize, OneAndZeroSamples) {
  const std::vector<double> one = {0.25};
  const Summary s1 = summarize(one);
  EXPECT_EQ(s1.samples, 1u);
  EXPECT_EQ(s1.min_s, 0.25);
  EXPECT_EQ(s1.median_s, 0.25);
  EXPECT_EQ(s1.max_s, 0.25);
  EXPECT_EQ(s1.stddev_s, 0.0);
  EXPECT_EQ(s1.rel_noise, 0.0);

  const Summary s0 = summarize({});
  EXPECT_EQ(s0.samples, 0u);
  EXPECT_EQ(s0.total_s, 0.0);
  EXPECT_EQ(s0.rel_noise, 0.0);
}

TEST(Summarize, RobustNoiseIgnoresOneOutlier) {
  // Sorted 1 2 3 4 100: median 3, |x − 3| = 2 1 0 1 97 → sorted 0 1 1 2 97 → MAD 1.
  const std::vector<double> x = {4, 100, 1, 3, 2};
  const Summary s = summarize(x);
  EXPECT_EQ(s.mad_s, 1.0);
  EXPECT_DOUBLE_EQ(s.rel_mad, 1.4826 / 3);
  EXPECT_GT(s.rel_noise, 1.5);  // the stddev is dominated by the outlier
  // n = 5 cannot reach 95%: [min, max], covering 1 − 2/32.
  EXPECT_EQ(s.median_ci_low_s, 1.0);
  EXPECT_EQ(s.median_ci_high_s, 100.0);
  EXPECT_DOUBLE_EQ(s.median_ci_coverage, 0.9375);
  const Interval i = s.median_interval();
  EXPECT_EQ(i.value, 3.0);
  EXPECT_EQ(i.low, 1.0);
  EXPECT_EQ(i.high, 100.0);
}

TEST(Summarize, MedianIntervalOfTenSamples) {
  // n = 10: ranks 2 and 9 of 0.1 … 1.0.
  std::vector<double> x;
  for (int i = 10; i >= 1; --i) x.push_back(0.1 * i);
  const Summary s = summarize(x);
  EXPECT_DOUBLE_EQ(s.median_ci_low_s, 0.2);
  EXPECT_DOUBLE_EQ(s.median_ci_high_s, 0.9);
  EXPECT_DOUBLE_EQ(s.median_ci_coverage, 1 - 22.0 / 1024);
}

TEST(BinomialHalfCdf, HandComputed) {
  // Bin(10, 1/2): P(0) = 1/1024, P(1) = 10/1024, P(B ≤ 5) = (1+10+45+120+210+252)/1024 = 638/1024.
  EXPECT_NEAR(binomial_half_cdf(10, 0), 1.0 / 1024, 1e-15);
  EXPECT_NEAR(binomial_half_cdf(10, 1), 11.0 / 1024, 1e-15);
  EXPECT_NEAR(binomial_half_cdf(10, 5), 638.0 / 1024, 1e-14);
  EXPECT_NEAR(binomial_half_cdf(10, 9), 1 - 1.0 / 1024, 1e-14);
  EXPECT_EQ(binomial_half_cdf(10, 10), 1.0);
  EXPECT_NEAR(binomial_half_cdf(1, 0), 0.5, 1e-15);
}

TEST(MedianIntervalRanks, HandComputed) {
  // n = 10: P(B ≤ 1) = 11/1024 ≤ 2.5% < P(B ≤ 2) = 56/1024 → ranks 2 and 9, 1 − 22/1024 = 97.9%.
  MedianRanks r = median_interval_ranks(10);
  EXPECT_EQ(r.low, 2u);
  EXPECT_EQ(r.high, 9u);
  EXPECT_NEAR(r.coverage, 0.978515625, 1e-14);
  // n = 6: P(B ≤ 0) = 1/64 ≤ 2.5% < P(B ≤ 1) = 7/64 → [min, max], 1 − 2/64.
  r = median_interval_ranks(6);
  EXPECT_EQ(r.low, 1u);
  EXPECT_EQ(r.high, 6u);
  EXPECT_NEAR(r.coverage, 0.96875, 1e-14);
  // n = 20: P(B ≤ 5) = 21700/2^20 = 0.0207 ≤ 2.5% < P(B ≤ 6) = 60460/2^20 → ranks 6 and 15.
  r = median_interval_ranks(20);
  EXPECT_EQ(r.low, 6u);
  EXPECT_EQ(r.high, 15u);
  EXPECT_NEAR(r.coverage, 1 - 2 * 21700.0 / 1048576, 1e-13);
  // n = 100: the textbook ranks 40 and 61.
  r = median_interval_ranks(100);
  EXPECT_EQ(r.low, 40u);
  EXPECT_EQ(r.high, 61u);
  EXPECT_GE(r.coverage, 0.95);
}

TEST(MedianIntervalRanks, BelowSixSamplesTheWidestFallsShort) {
  // [X_(1), X_(n)] covers 1 − 2·2^−n: 0, 1/2, 3/4, 7/8, 15/16 for n = 1 … 5.
  const double expected[] = {0, 0.5, 0.75, 0.875, 0.9375};
  for (std::size_t n = 1; n <= 5; ++n) {
    const MedianRanks r = median_interval_ranks(n);
    EXPECT_EQ(r.low, 1u) << n;
    EXPECT_EQ(r.high, n) << n;
    EXPECT_NEAR(r.coverage, expected[n - 1], 1e-15) << n;
  }
  const MedianRanks none = median_interval_ranks(0);
  EXPECT_EQ(none.low, 0u);
  EXPECT_EQ(none.coverage, 0.0);
}

TEST(MedianIntervalRanks, LargeCountNearTheNormalApproximation) {
  // n = 10^6: low ≈ n/2 − 1.96·sqrt(n)/2 = 499020; the smallest coverage still ≥ 95%.
  const std::size_t n = 1000000;
  const MedianRanks r = median_interval_ranks(n);
  EXPECT_NEAR(static_cast<double>(r.low), 499020.0, 2.0);
  EXPECT_EQ(r.high, n + 1 - r.low);
  EXPECT_GE(r.coverage, 0.95);
  EXPECT_LT(r.coverage, 0.9502);
  EXPECT_LT(1 - 2 * binomial_half_cdf(n, r.low), 0.95);  // one rank narrower falls short
}

// The interval's coverage is what it claims for any continuous distribution: simulated with
// exponential samples (median ln 2), skewed like timings.
TEST(MedianIntervalRanks, CoverageBySimulation) {
  std::mt19937_64 rng(12345);
  const auto uniform = [&] {
    return (static_cast<double>(rng() >> 11) + 0.5) / 9007199254740992.0;
  };
  const double true_median = std::log(2.0);
  for (std::size_t n : {5u, 10u, 25u, 60u}) {
    const int trials = 20000;
    int covered = 0;
    std::vector<double> x(n);
    for (int t = 0; t < trials; ++t) {
      for (auto& v : x) v = -std::log(uniform());
      const Summary s = summarize(x);
      covered += s.median_ci_low_s <= true_median && true_median <= s.median_ci_high_s;
    }
    const double p = median_interval_ranks(n).coverage;
    const double sigma = std::sqrt(p * (1 - p) / trials);
    EXPECT_NEAR(static_cast<double>(covered) / trials, p, 4 * sigma) << "n = " << n;
  }
}

TEST(KeptSamples, AllWhenFewEvenlySpacedInTimeWhenMany) {
  const std::vector<double> few = {3, 1, 2};
  EXPECT_EQ(kept_samples(few), few);  // in the order taken
  // n = 6, cap 4: indices round(i·5/3) = 0, 2, 3, 5 (0-based), in time order.
  const std::vector<double> six = {60, 50, 40, 30, 20, 10};
  EXPECT_EQ(kept_samples(six, 4), (std::vector<double>{60, 40, 30, 10}));
  std::vector<double> many;
  for (int i = 0; i < 5000; ++i) many.push_back(static_cast<double>((i * 7919) % 5000));
  const std::vector<double> kept = kept_samples(many);
  ASSERT_EQ(kept.size(), kKeptSamples);
  EXPECT_EQ(kept.front(), many.front());
  EXPECT_EQ(kept.back(), many.back());
  EXPECT_EQ(kept[500], many[2502]);  // index round(500·4999/999) = round(2501.99) = 2502
}

// Index (1-based count) of the sample after which the sampler first stops with `wall_s`, feeding
// `next(i)`; 0 if it has not stopped after `limit` samples.
template <class Next>
std::size_t samples_until_stop(Sampler& sampler, Next&& next, double wall_s, std::size_t limit,
                               StopReason* reason) {
  for (std::size_t i = 0; i < limit; ++i) {
    sampler.add(next(i));
    const StopReason r = sampler.should_stop(wall_s);
    if (r != StopReason::none) {
      *reason = r;
      return i + 1;
    }
  }
  return 0;
}

TEST(Sampler, ConstantStreamStopsAtMinSamples) {
  // 0.0625 s each: min_time 0.5 s needs 8 samples, min_samples is 10 → stops at 10.
  Sampler sampler(StoppingRule{});
  StopReason reason = StopReason::none;
  EXPECT_EQ(samples_until_stop(
                sampler, [](std::size_t) { return 0.0625; }, 0.0, 1000, &reason),
            10u);
  EXPECT_EQ(reason, StopReason::converged);
  EXPECT_EQ(sampler.summary().samples, 10u);
  EXPECT_EQ(sampler.summary().stddev_s, 0.0);
}

TEST(Sampler, SimulatedRuleStopsAtThreeSamples) {
  // A timing simulator: microseconds of simulated time per sample, seconds of host time each.
  // Identical samples converge at 3; a spread one stops there too (reported, not re-sampled).
  EXPECT_EQ(StoppingRule::simulated().warmup_samples, 0u);  // no clock to raise
  Sampler same(StoppingRule::simulated());
  StopReason reason = StopReason::none;
  EXPECT_EQ(samples_until_stop(
                same, [](std::size_t) { return 8.487e-6; }, 30.0, 100, &reason),
            3u);
  EXPECT_EQ(reason, StopReason::converged);
  Sampler spread(StoppingRule::simulated());
  EXPECT_EQ(samples_until_stop(
                spread, [](std::size_t i) { return 8e-6 * (1 + 0.1 * static_cast<double>(i)); },
                30.0, 100, &reason),
            3u);
  EXPECT_EQ(reason, StopReason::timeout);
}

TEST(Sampler, ConstantStreamStopsWhenMinTimeReached) {
  // 2^-5 s each: min_time 0.5 s needs 16 samples (> min_samples 10) → stops at 16, not 15.
  Sampler sampler(StoppingRule{});
  StopReason reason = StopReason::none;
  EXPECT_EQ(samples_until_stop(
                sampler, [](std::size_t) { return 0.03125; }, 0.0, 1000, &reason),
            16u);
  EXPECT_EQ(reason, StopReason::converged);
  EXPECT_DOUBLE_EQ(sampler.summary().total_s, 0.5);
}

TEST(Sampler, MinTimeNotReachedNeverStops) {
  // Noise-free and far past min_samples, but 200 × 2^-10 s = 0.195 s < min_time 0.5 s.
  Sampler sampler(StoppingRule{});
  for (int i = 0; i < 200; ++i) sampler.add(0.0009765625);
  EXPECT_EQ(sampler.should_stop(0.0), StopReason::none);
  EXPECT_EQ(sampler.should_stop(4.9), StopReason::none);
  EXPECT_EQ(sampler.should_stop(5.0), StopReason::timeout);
}

TEST(Sampler, NoisyStreamOnlyTimesOut) {
  // Alternating 1.0 / 1.2: relative noise ≈ 0.1 / 1.1 ≈ 9%, far above 0.5%; the median's
  // interval [1.0, 1.2] is ±9%, far outside ±1%.
  const auto alternating = [](std::size_t i) { return i % 2 ? 1.2 : 1.0; };
  Sampler sampler(StoppingRule{});
  StopReason reason = StopReason::none;
  EXPECT_EQ(samples_until_stop(sampler, alternating, 4.999, 500, &reason), 0u);
  EXPECT_GT(sampler.summary().rel_noise, 0.08);
  EXPECT_EQ(sampler.should_stop(5.0), StopReason::timeout);
  EXPECT_EQ(sampler.should_stop(100.0), StopReason::timeout);
}

TEST(Sampler, TimeoutWaitsForMinSamplesUntilTheHardCap) {
  // Default rule: timeout 5 s, min_samples 10, hard cap 50 s.
  Sampler sampler(StoppingRule{});
  EXPECT_EQ(StoppingRule{}.hard_timeout_s(), 50.0);
  EXPECT_EQ(sampler.should_stop(1000.0), StopReason::none);  // no sample yet
  sampler.add(1.0);
  EXPECT_EQ(sampler.should_stop(1000.0), StopReason::none);  // the cap needs 2 samples
  sampler.add(1.2);
  EXPECT_EQ(sampler.should_stop(40.0), StopReason::none);     // past the timeout, 2 < 10 samples
  EXPECT_EQ(sampler.should_stop(50.0), StopReason::timeout);  // the hard cap
  for (int i = 0; i < 8; ++i) sampler.add(i % 2 ? 1.0 : 1.2);
  EXPECT_EQ(sampler.should_stop(4.9), StopReason::none);
  EXPECT_EQ(sampler.should_stop(5.0), StopReason::timeout);  // 10 samples: the timeout stops it
}

TEST(Sampler, QuickSweepPointKeepsItsFiveSamples) {
  // --quick on a sweep point: timeout 0.1 s, 5 samples at least, the run's hard cap of 10 s.
  const StoppingRule rule = StoppingRule::quick().for_sweep_point();
  EXPECT_EQ(rule.min_samples, 5u);
  EXPECT_DOUBLE_EQ(rule.timeout_s, 0.1);
  EXPECT_DOUBLE_EQ(rule.hard_timeout_s(), 10.0);
  EXPECT_DOUBLE_EQ(StoppingRule{}.for_sweep_point().hard_timeout_s(), 50.0);
  EXPECT_DOUBLE_EQ(StoppingRule{}.for_sweep_point().check_timeout_s(), 15.0);
  Sampler sampler(rule);
  const auto noisy = [](std::size_t i) { return i % 2 ? 1.8 : 1.5; };  // seconds each, noisy
  StopReason reason = StopReason::none;
  // Wall time as it would pass: the sum of the samples (past the 0.1 s timeout at once, the 5th
  // sample ends at 8.1 s, inside the hard cap).
  double wall = 0;
  std::size_t n = 0;
  while (reason == StopReason::none && n < 100) {
    sampler.add(noisy(n));
    wall += noisy(n++);
    reason = sampler.should_stop(wall);
  }
  EXPECT_EQ(n, 5u);
  EXPECT_EQ(reason, StopReason::timeout);
  // Samples of 4 s: the hard cap stops it at 12 s, with 3.
  Sampler slow(rule);
  for (int i = 1; i <= 3; ++i) slow.add(4.0);
  EXPECT_EQ(slow.should_stop(8.0), StopReason::none);
  EXPECT_EQ(slow.should_stop(12.0), StopReason::timeout);
}

// nvbench's noise rule stops a case only with samples enough for the median's interval to reach
// the level it is reported at: [X_(1), X_(n)] covers 1 − 2^(1−n), so 99.4375% (looks 1–8 at
// α = 5%) needs 9 (99.609%; 8 give 99.219%), 95% needs 6 (96.875%; 5 give 93.75%, the README's
// figure). A sweep point (5 samples at least) with noise-free samples stops at 9, not at 5.
TEST(Sampler, TheNoiseRuleWaitsForSamplesThatCanCoverTheMedian) {
  EXPECT_FALSE(median_reachable(8, 0.994375));
  EXPECT_TRUE(median_reachable(9, 0.994375));
  EXPECT_FALSE(median_reachable(5, 0.95));
  EXPECT_TRUE(median_reachable(6, 0.95));
  EXPECT_FALSE(median_reachable(0, 0.5));
  EXPECT_TRUE(median_reachable(100000, 0.9999999));
  StoppingRule rule = StoppingRule{}.for_sweep_point();
  ASSERT_EQ(rule.min_samples, 5u);
  Sampler sampler(rule);
  StopReason reason = StopReason::none;
  EXPECT_EQ(samples_until_stop(
                sampler, [](std::size_t) { return 0.01; }, 0.0, 1000, &reason),
            9u);
  EXPECT_EQ(reason, StopReason::converged);
  EXPECT_GE(sampler.summary().median_ci_coverage, sampler.summary().median_ci_confidence);
  EXPECT_DOUBLE_EQ(sampler.summary().median_ci_confidence, 1 - 0.05 * 0.9 / 8);
  // Where the samples are the value itself (a timing simulator), the noise rule alone decides.
  rule.noise_needs_interval = false;
  Sampler deterministic(rule);
  EXPECT_EQ(samples_until_stop(
                deterministic, [](std::size_t) { return 0.01; }, 0.0, 1000, &reason),
            5u);
}

TEST(StoppingRule, QuickIsLooserThanDefault) {
  const StoppingRule d{}, q = StoppingRule::quick();
  EXPECT_LT(q.min_samples, d.min_samples);
  EXPECT_LT(q.min_time_s, d.min_time_s);
  EXPECT_GT(q.max_rel_noise, d.max_rel_noise);
  EXPECT_LT(q.timeout_s, d.timeout_s);

  // Alternating 1.0 / 1.03 (≈ 1.5% noise, the median's interval [1.0, 1.03] ±1.5%): quick
  // converges on its noise (≤ 2%) past its 5 minimum samples, at the 9 the median's interval needs
  // (median_reachable), the default rule does not converge at all (noise > 0.5%, interval wider
  // than ±1%).
  const auto alternating = [](std::size_t i) { return i % 2 ? 1.03 : 1.0; };
  Sampler quick(q), strict(d);
  StopReason reason = StopReason::none;
  EXPECT_EQ(samples_until_stop(quick, alternating, 0.0, 100, &reason), 9u);
  EXPECT_EQ(reason, StopReason::converged);
  EXPECT_EQ(samples_until_stop(strict, alternating, 0.0, 100, &reason), 0u);
}

TEST(StopReason, Names) {
  EXPECT_EQ(stop_reason_name(StopReason::none), "none");
  EXPECT_EQ(stop_reason_name(StopReason::converged), "converged");
  EXPECT_EQ(stop_reason_name(StopReason::timeout), "timeout");
}

}  // namespace
}  // namespace bb
