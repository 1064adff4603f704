// Tests for harness/stats: summary statistics on known samples, and the stopping rule driven by
// synthetic sample streams (no clocks involved: wall time is passed in).
#include "harness/stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
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
  EXPECT_EQ(sampler.should_stop(14.9), StopReason::none);
  EXPECT_EQ(sampler.should_stop(15.0), StopReason::timeout);
}

TEST(Sampler, NoisyStreamOnlyTimesOut) {
  // Alternating 1.0 / 1.2: relative noise ≈ 0.1 / 1.1 ≈ 9%, far above 0.5%.
  const auto alternating = [](std::size_t i) { return i % 2 ? 1.2 : 1.0; };
  Sampler sampler(StoppingRule{});
  StopReason reason = StopReason::none;
  EXPECT_EQ(samples_until_stop(sampler, alternating, 14.999, 500, &reason), 0u);
  EXPECT_GT(sampler.summary().rel_noise, 0.08);
  EXPECT_EQ(sampler.should_stop(15.0), StopReason::timeout);
  EXPECT_EQ(sampler.should_stop(100.0), StopReason::timeout);
}

TEST(Sampler, TimeoutNeedsTwoSamples) {
  Sampler sampler(StoppingRule{});
  EXPECT_EQ(sampler.should_stop(100.0), StopReason::none);
  sampler.add(1.0);
  EXPECT_EQ(sampler.should_stop(100.0), StopReason::none);
  sampler.add(1.2);
  EXPECT_EQ(sampler.should_stop(100.0), StopReason::timeout);
  EXPECT_EQ(sampler.should_stop(1.0), StopReason::none);
}

TEST(StoppingRule, QuickIsLooserThanDefault) {
  const StoppingRule d{}, q = StoppingRule::quick();
  EXPECT_LT(q.min_samples, d.min_samples);
  EXPECT_LT(q.min_time_s, d.min_time_s);
  EXPECT_GT(q.max_rel_noise, d.max_rel_noise);
  EXPECT_LT(q.timeout_s, d.timeout_s);

  // Alternating 1.0 / 1.02 (≈ 1.1% noise): quick converges at its 5 minimum samples, the
  // default rule does not converge at all.
  const auto alternating = [](std::size_t i) { return i % 2 ? 1.02 : 1.0; };
  Sampler quick(q), strict(d);
  StopReason reason = StopReason::none;
  EXPECT_EQ(samples_until_stop(quick, alternating, 0.0, 100, &reason), 5u);
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
