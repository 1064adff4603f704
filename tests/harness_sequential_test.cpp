// The sequential stopping rule (stats.h): looks at min_samples · 2^(k−1) samples, look k judged at
// confidence 1 − α_k (0.9α/8 for looks 1–8, then 0.1α/(j(j+1)) for look 8 + j). Pinned by
// hand-worked values, and shown by simulation: a check that keeps sampling until it is decided
// FAILs a true median that lies exactly on its limit at most α/2 of the time with the rule, and far
// more often with naive 95% looks at the same counts (the simulation fails if the sequential
// correction is taken out).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <span>
#include <thread>
#include <vector>

#include "harness/checks.h"
#include "harness/measure.h"
#include "harness/stats.h"

namespace bb {
namespace {

TEST(SequentialLooks, ScheduleAndConfidenceByHand) {
  // min_samples 10: looks at 10, 20, 40, 80, …; between looks, the next look's index.
  EXPECT_EQ(look_index(9, 10), 0u);
  EXPECT_EQ(look_index(10, 10), 1u);
  EXPECT_EQ(look_index(11, 10), 2u);
  EXPECT_EQ(look_index(20, 10), 2u);
  EXPECT_EQ(look_index(40, 10), 3u);
  EXPECT_EQ(look_index(41, 10), 4u);
  EXPECT_EQ(look_index(1280, 10), 8u);
  EXPECT_TRUE(is_scheduled_look(10, 10));
  EXPECT_TRUE(is_scheduled_look(80, 10));
  EXPECT_FALSE(is_scheduled_look(30, 10));
  EXPECT_FALSE(is_scheduled_look(60, 10));
  EXPECT_FALSE(is_scheduled_look(5, 10));
  EXPECT_TRUE(is_scheduled_look(5, 5));
  EXPECT_TRUE(is_scheduled_look(640, 5));  // 5 · 2^7
  // α = 0.05: looks 1 to 8 each at 1 − 0.045/8 = 0.994375; look 9 at 1 − 0.005/2 = 0.9975, look
  // 10 at 1 − 0.005/6; 8 · 0.045/8 + 0.005 · Σ 1/(j(j+1)) = 0.045 + 0.005: the α_k sum to α.
  EXPECT_DOUBLE_EQ(sequential_confidence(1, 0.05), 0.994375);
  EXPECT_DOUBLE_EQ(sequential_confidence(8, 0.05), 0.994375);
  EXPECT_DOUBLE_EQ(sequential_confidence(9, 0.05), 0.9975);
  EXPECT_DOUBLE_EQ(sequential_confidence(10, 0.05), 1 - 0.005 / 6);
  EXPECT_DOUBLE_EQ(sequential_confidence(0, 0.05), 0.994375);  // below the first look: as look 1
  double spent = 0;
  for (std::size_t k = 1; k <= 100000; ++k) spent += 1 - sequential_confidence(k, 0.05);
  EXPECT_NEAR(spent, 0.05, 1e-6);
  EXPECT_LE(spent, 0.05 + 1e-12);
}

TEST(SequentialLooks, SamplerReportsItsLooksConfidence) {
  // 10 samples: look 1, 99.4375% (tail 0.0028125): ranks 1 and 10 (P(B ≤ 0) = 1/1024 ≤ 0.0028 <
  // P(B ≤ 1) = 11/1024), coverage 1 − 2/1024. 20 samples: look 2, the same level: ranks 4 and 17
  // (P(B ≤ 3) = 1351/2^20 = 0.00129 ≤ 0.0028 < P(B ≤ 4) = 6196/2^20 = 0.0059). 2,560 samples:
  // look 9, 99.75%.
  Sampler s(StoppingRule{});
  for (int i = 1; i <= 10; ++i) s.add(static_cast<double>(i));
  EXPECT_DOUBLE_EQ(s.confidence(), 0.994375);
  Summary sum = s.summary();
  EXPECT_EQ(sum.median_ci_low_s, 1.0);
  EXPECT_EQ(sum.median_ci_high_s, 10.0);
  EXPECT_NEAR(sum.median_ci_coverage, 1 - 2.0 / 1024, 1e-12);
  EXPECT_DOUBLE_EQ(sum.median_ci_confidence, 0.994375);
  for (int i = 11; i <= 20; ++i) s.add(static_cast<double>(i));
  sum = s.summary();
  EXPECT_DOUBLE_EQ(sum.median_ci_confidence, 0.994375);
  EXPECT_EQ(sum.median_ci_low_s, 4.0);
  EXPECT_EQ(sum.median_ci_high_s, 17.0);
  for (int i = 21; i <= 2560; ++i) s.add(static_cast<double>(i));
  EXPECT_DOUBLE_EQ(s.summary().median_ci_confidence, 0.9975);
}

TEST(SequentialLooks, PrecisionStopsOnlyAtALook) {
  // 1.000, 1.001, 1.002 … repeating: the median's interval is ±0.1%, inside ±1% at any count;
  // relative noise ≈ 0.08% is below nvbench's 0.5% too, so disable that criterion to see the new
  // one: it stops at the first look (10), and not at 15 (between looks).
  StoppingRule rule;
  rule.min_time_s = 0;
  rule.max_rel_noise = 0;
  Sampler s(rule);
  for (int i = 0; i < 9; ++i) s.add(1.0 + 0.001 * (i % 3));
  EXPECT_FALSE(s.converged());
  s.add(1.0);
  EXPECT_TRUE(s.precise());
  EXPECT_EQ(s.should_stop(0.0), StopReason::converged);
  for (int i = 0; i < 5; ++i) s.add(1.0 + 0.001 * (i % 3));
  EXPECT_FALSE(s.precise());  // 15 samples: no look
  // ±5% spread: not within ±1% at 10 samples; the timeout stops it.
  Sampler wide(rule);
  for (int i = 0; i < 10; ++i) wide.add(1.0 + 0.1 * (i % 2));
  EXPECT_FALSE(wide.precise());
  EXPECT_EQ(wide.should_stop(1.0), StopReason::none);
  EXPECT_EQ(wide.should_stop(rule.timeout_s), StopReason::timeout);
}

// A check held against a limit the true median lies exactly on: t ≥ 1 with samples whose median
// is 1 (log-normal noise, σ = 5%). The sampler keeps sampling while the check is INCONCLUSIVE,
// looking at scheduled counts up to `looks` of them, and stops at the first decided verdict; a
// FAIL is then a false FAIL. `interval_at` gives the interval a look judges.
template <class IntervalAt>
double false_fail_rate(std::mt19937_64& rng, int trials, std::size_t looks,
                       IntervalAt&& interval_at, double* coverage) {
  std::lognormal_distribution<double> noise(0.0, 0.05);
  const CheckHead head{"sim", "limit", "t >= 1"};
  int fails = 0, covered = 0;
  for (int t = 0; t < trials; ++t) {
    StoppingRule rule;
    Sampler s(rule);
    Interval last;
    for (std::size_t k = 1; k <= looks; ++k) {
      while (!is_scheduled_look(s.samples().size(), rule.min_samples) ||
             look_index(s.samples().size(), rule.min_samples) < k)
        s.add(noise(rng));
      last = interval_at(s);
      const Verdict v = at_least(head, 1.0, last).verdict;
      if (v == Verdict::fail) ++fails;
      if (v != Verdict::inconclusive) break;
    }
    covered += last.low <= 1.0 && 1.0 <= last.high;
  }
  *coverage = static_cast<double>(covered) / trials;
  return static_cast<double>(fails) / trials;
}

TEST(SequentialLooks, CheckDrivenSamplingKeepsTheFalseFailRate) {
  const int trials = 2000;
  const std::size_t looks = 8;  // 10 … 1280 samples
  std::mt19937_64 rng(20261206);
  double seq_coverage = 0, naive_coverage = 0;
  // The rule: each look at its own sequential confidence (Sampler::summary).
  const double sequential = false_fail_rate(
      rng, trials, looks, [](const Sampler& s) { return s.summary().median_interval(); },
      &seq_coverage);
  // Naive: the same looks, each at a fixed 95%.
  const double naive = false_fail_rate(
      rng, trials, looks,
      [](const Sampler& s) { return summarize(s.samples(), 0.95).median_interval(); },
      &naive_coverage);
  std::printf(
      "false FAIL, median on the limit, %zu looks: sequential %.4f (coverage %.4f), naive "
      "95%% looks %.4f (coverage %.4f)\n",
      looks, sequential, seq_coverage, naive, naive_coverage);
  // The stated level: a FAIL needs the interval entirely below the limit, one tail of α = 0.05.
  // 2000 trials: 4σ of a 2.5% rate is 1.4%; the rule's actual rate is far below its bound.
  const double bound = 0.05 / 2;
  EXPECT_LE(sequential, bound);
  EXPECT_GE(seq_coverage, 0.95);
  // Naive looks inflate it: one 95% look alone FAILs 2.5% of the time at most, eight looks until
  // decided well beyond (≈ 4×: 10.3% here).
  EXPECT_GT(naive, 2 * bound);
  EXPECT_GT(naive, 3 * sequential);
}

TEST(SequentialLooks, PrecisionStopCoversTheMedian) {
  // The precision rule alone (no check): heavy-tailed samples (10% of them 3× slower, as a
  // preempted sample), stopped at the first look within ±1% or at 1280 samples; the interval
  // stopped with covers the true median at ≥ 95%.
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> noise(0.0, 0.03);
  std::bernoulli_distribution slow(0.1);
  // The mixture's median m solves 0.9·Φ(ln m / 0.03) + 0.1·Φ(ln(m/3) / 0.03) = 0.5; the slow part
  // is ~0 there, so Φ(ln m / 0.03) = 5/9: ln m = 0.03 · Φ⁻¹(5/9) = 0.03 · 0.139710.
  const double truth = std::exp(0.03 * 0.13971);
  StoppingRule rule;
  rule.min_time_s = 0;
  rule.max_rel_noise = 0;
  const int trials = 2000;
  int covered = 0;
  std::size_t total = 0;
  for (int t = 0; t < trials; ++t) {
    Sampler s(rule);
    while (!s.converged() && s.samples().size() < 1280) s.add(noise(rng) * (slow(rng) ? 3.0 : 1.0));
    const Summary sum = s.summary();
    covered += sum.median_ci_low_s <= truth && truth <= sum.median_ci_high_s;
    total += sum.samples;
  }
  std::printf("precision stop: coverage %.4f, mean samples %.1f\n",
              static_cast<double>(covered) / trials, static_cast<double>(total) / trials);
  EXPECT_GE(static_cast<double>(covered) / trials, 0.95);
}

TEST(SequentialLooks, GroupAsksTheCheckOnlyAtLooks) {
  // sample_group with an undecided check: the rule would stop at once (timeout 1 ns), the check
  // says undecided until 40 rounds; it is asked at 10, 20 and 40 rounds only, and the group stops
  // at 40 with the samplers at look 3's confidence (the limit for checks, 10^9 × 1 ns, is far).
  StoppingRule rule;
  rule.timeout_s = 1e-9;
  rule.check_timeout_factor = 1e18;
  const std::vector<StoppingRule> rules(2, rule);
  std::vector<std::size_t> asked;
  double confidence = 0;
  const auto undecided = [&](std::span<const Sampler> ss) {
    asked.push_back(ss.front().samples().size());
    confidence = ss.front().confidence();
    return ss.front().samples().size() < 40;
  };
  const auto sample_s = [](std::size_t i) { return 1.0 + 0.01 * static_cast<double>(i); };
  const auto ms = sample_group(rules, 0, sample_s, undecided);
  EXPECT_EQ(asked, (std::vector<std::size_t>{10, 20, 40}));
  EXPECT_EQ(ms.front().samples_s.size(), 40u);
  EXPECT_DOUBLE_EQ(confidence, sequential_confidence(3, 0.05));
  EXPECT_DOUBLE_EQ(ms.front().summary.median_ci_confidence, sequential_confidence(3, 0.05));
}

// A stop between looks (the timeout) is kept when the last look found the check decided; it goes
// on to the next look while the check was undecided there. Samples take >= 2 ms of wall time and
// alternate 1 and 2 (the precision is never reached); timeout 25 ms (about 12 samples), the check
// limit 100x that.
TEST(SequentialLooks, ATimeoutBetweenLooksStandsWhenTheLastLookWasDecided) {
  StoppingRule rule;
  rule.timeout_s = 0.025;
  rule.check_timeout_factor = 100;
  const std::vector<StoppingRule> rules(1, rule);
  std::size_t k = 0;
  const auto sample_s = [&](std::size_t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    return 1.0 + static_cast<double>(k++ % 2);
  };
  const auto decided =
      sample_group(rules, 0, sample_s, [](std::span<const Sampler>) { return false; });
  EXPECT_GE(decided.front().samples_s.size(), 10u);
  EXPECT_LT(decided.front().samples_s.size(), 20u);
  // Undecided at look 1 (10 samples), decided at look 2: on to 20 samples.
  const auto until_20 = sample_group(rules, 0, sample_s, [](std::span<const Sampler> ss) {
    return ss.front().samples().size() < 20;
  });
  EXPECT_EQ(until_20.front().samples_s.size(), 20u);
}

// 40 samples 1 + c·(i − 19.5), c = h / 9.5: look 3 (99.4375%) takes ranks 11 and 30 (P(B ≤ 10) =
// 0.00111 ≤ 0.0028125 < P(B ≤ 11) = 0.00321), 1 ∓ 9.5c, so the half-width is h. Looks 1 to 8 share
// one level (z 2.76888), so up to look 8 the half-width scales by sqrt(40/n_j) alone: h = 2.1%
// gives 1.05% at look 5 (160 samples), not yet, and 0.742% at look 6 (320): precise by 320/40 = 8
// times the wall time so far.
Sampler half_width_at_40(StoppingRule rule, double half) {
  Sampler s(rule);
  for (int i = 0; i < 40; ++i) s.add(1.0 + half / 9.5 * (((i * 7) % 40) - 19.5));  // any order
  return s;
}

Sampler spread_at_40(StoppingRule rule) { return half_width_at_40(rule, 0.021); }

// A group's member goes on alone only when its interval is not yet within ±precision
// (within_precision): at 40 samples look 3's ranks 11 and 30 sit at 1 ∓ h, median 1.
TEST(SequentialLooks, WithinPrecisionAtTheIntervalsOwnLevel) {
  StoppingRule rule;
  EXPECT_TRUE(within_precision(half_width_at_40(rule, 0.0099).summary(), 0.01));
  EXPECT_FALSE(within_precision(half_width_at_40(rule, 0.0101).summary(), 0.01));
  // Five equal-ish samples: [min, max] covers 93.75% < 99.4375%, too few however tight.
  Sampler five(rule);
  for (int i = 0; i < 5; ++i) five.add(1.0 + 1e-6 * i);
  EXPECT_LT(five.summary().median_ci_coverage, five.summary().median_ci_confidence);
  EXPECT_FALSE(within_precision(five.summary(), 0.01));
}

TEST(SpareTime, OnTrackExtrapolatesTheHalfWidthByHand) {
  StoppingRule rule;
  rule.min_time_s = 0;
  rule.max_rel_noise = 0;
  const Sampler s = spread_at_40(rule);
  const Summary sum = s.summary();
  EXPECT_NEAR((sum.median_ci_high_s - sum.median_ci_low_s) / 2, 0.021, 1e-12);
  EXPECT_DOUBLE_EQ(precise_by_s(s, 1.0), 8.0);
  EXPECT_DOUBLE_EQ(precise_by_s(s, 2.5), 20.0);
  // 1.4%: look 4 (80 samples) at the same level, 1.4% · sqrt(1/2) = 0.990%.
  EXPECT_DOUBLE_EQ(precise_by_s(half_width_at_40(rule, 0.014), 1.0), 2.0);
  // Half the precision asked: look 7 (640 = 16 × 40) gives 2.1% · sqrt(1/16) = 0.525%, look 8
  // (1280) 2.1% · sqrt(1/32) = 0.371% ≤ 0.5%.
  rule.precision = 0.005;
  EXPECT_DOUBLE_EQ(precise_by_s(spread_at_40(rule), 1.0), 32.0);
  // The looks' levels count past look 8: 3.8% at look 8 is 0.672%; look 9 (2560, z 3.02334) gives
  // 3.8% · sqrt(1/64) · 3.02334/2.76888 = 0.519% (0.475% without the levels' z), look 10 (5120,
  // z 3.34148) 3.8% · sqrt(1/128) · 3.34148/2.76888 = 0.405%: by 128 times.
  EXPECT_DOUBLE_EQ(precise_by_s(half_width_at_40(rule, 0.038), 1.0), 128.0);
  // Precise now: now. Fewer than min_samples: never.
  rule.precision = 0.03;
  EXPECT_DOUBLE_EQ(precise_by_s(spread_at_40(rule), 1.0), 1.0);
  Sampler few(rule);
  for (int i = 0; i < 9; ++i) few.add(1.0 + 0.01 * i);
  EXPECT_TRUE(std::isinf(precise_by_s(few, 1.0)));
}

TEST(SpareTime, OnTrackWithinTheCheckLimitAndTheSpareSeconds) {
  // Precise by 8 s (above) from a limit of 1 s reached at 1 s: on track when the check limit (3 ×
  // the timeout by default) reaches 8 s and the spare seconds cover the 7 s past the limit.
  StoppingRule rule;
  rule.min_time_s = 0;
  rule.max_rel_noise = 0;
  rule.timeout_s = 1;
  std::vector<Sampler> one{spread_at_40(rule)};
  EXPECT_FALSE(on_track(one, 1.0, 1.0, SpareTime(100)));  // check limit 3 s < 8 s
  rule.check_timeout_factor = 8;
  one = {spread_at_40(rule)};
  EXPECT_TRUE(on_track(one, 1.0, 1.0, SpareTime(7)));
  EXPECT_FALSE(on_track(one, 1.0, 1.0, SpareTime(6.9)));
  EXPECT_FALSE(on_track(one, 1.0, 0.5, SpareTime(7)));  // went past its limit at 0.5 s: 7.5 s
  // A group: every member must be on track. A member at ±8% needs look 10 (8% · sqrt(1/128) ·
  // 3.34148/2.76888 = 0.853%; look 9: 1.09%), by 128 s, past the 8 s check limit, so the group is
  // not, whatever the spare seconds.
  rule.precision = 0.01;
  Sampler noisy(rule);
  for (int i = 0; i < 40; ++i) noisy.add(1.0 + 0.08 / 9.5 * (((i * 7) % 40) - 19.5));
  std::vector<Sampler> group{spread_at_40(rule), noisy};
  EXPECT_FALSE(on_track(group, 1.0, 1.0, SpareTime(1e9)));
}

// A rule whose timeout is reached at once (1 ns), with its check limit and hard cap far (10^9 s)
// and no noise target: only the precision or spare seconds decide.
StoppingRule limit_reached_at_once() {
  StoppingRule rule;
  rule.min_time_s = 0;
  rule.max_rel_noise = 0;
  rule.timeout_s = 1e-9;
  rule.check_timeout_factor = 1e18;
  rule.hard_timeout_factor = 1e18;
  return rule;
}

TEST(SpareTime, GroupGoesOnPastItsLimitOnlyOnSpareSeconds) {
  // ±2% uniform samples stop at their timeout at 10 samples without spare seconds; with them they
  // go on and stop converged (±1%) at a later look, and the seconds past the limit are spent.
  const StoppingRule rule = limit_reached_at_once();
  const std::vector<StoppingRule> rules(1, rule);
  std::size_t k = 0;
  const auto sample_s = [&k](std::size_t) {
    return 1.0 + 0.02 * (static_cast<double>((k++ * 7) % 41) - 20) / 20;
  };
  const auto plain = sample_group(rules, 0, sample_s);
  k = 0;
  EXPECT_EQ(plain.front().stop, StopReason::timeout);
  EXPECT_EQ(plain.front().samples_s.size(), 10u);
  SpareTime none(0);
  const auto no_spare = sample_group(rules, 0, sample_s, {}, &none);
  k = 0;
  EXPECT_EQ(no_spare.front().stop, StopReason::timeout);
  EXPECT_EQ(no_spare.front().samples_s.size(), 10u);
  SpareTime spare(60);
  const auto extended = sample_group(rules, 0, sample_s, {}, &spare);
  EXPECT_EQ(extended.front().stop, StopReason::converged);
  EXPECT_GT(extended.front().samples_s.size(), 10u);
  EXPECT_TRUE(is_scheduled_look(extended.front().samples_s.size(), rule.min_samples));
  const Summary& sum = extended.front().summary;
  EXPECT_LE(sum.median_ci_high_s - sum.median_ci_low_s, 2 * 0.01 * sum.median_s);
  EXPECT_LT(spare.left_s(), 60.0);
}

// The same spell alone (sample_group's members going on after the rounds): the limit is reached
// at once, member 1 (1 and 3 alternating, precision 0) is never on track, so neither is the group,
// and member 0 (±2% uniform) is on its own. With no spare seconds both stop with the 10 rounds;
// with them member 0 goes on alone to ±1% at a later look, and what it spends is its own time past
// the rounds: the samples it read alone (each reads 1 s and takes microseconds), member 1 still
// stopping with the rounds.
TEST(SpareTime, AMemberAloneGoesOnPastItsTimeoutOnlyOnSpareSeconds) {
  const StoppingRule rule = limit_reached_at_once();
  std::vector<StoppingRule> rules(2, rule);
  rules[1].precision = 0;
  std::size_t k = 0, dear = 0;
  const auto sample_s = [&](std::size_t i) {
    if (i == 1) return ++dear % 2 ? 1.0 : 3.0;
    return 1.0 + 0.02 * (static_cast<double>((k++ * 7) % 41) - 20) / 20;
  };
  SpareTime none(0);
  const auto stopped = sample_group(rules, 0, sample_s, {}, &none);
  EXPECT_EQ(stopped[0].rounds, 10u);
  EXPECT_EQ(stopped[0].samples_s.size(), 10u);
  EXPECT_EQ(stopped[0].stop, StopReason::timeout);
  EXPECT_EQ(none.left_s(), 0.0);
  k = dear = 0;
  SpareTime spare(1e4);
  const auto on = sample_group(rules, 0, sample_s, {}, &spare);
  EXPECT_EQ(on[0].rounds, 10u);
  EXPECT_GT(on[0].samples_s.size(), 10u);
  EXPECT_EQ(on[0].stop, StopReason::converged);
  EXPECT_TRUE(is_scheduled_look(on[0].samples_s.size(), rule.min_samples));
  EXPECT_EQ(on[1].samples_s.size(), 10u);
  double alone_s = 0;
  for (std::size_t j = 10; j < on[0].samples_s.size(); ++j) alone_s += on[0].samples_s[j];
  EXPECT_NEAR(spare.left_s(), 1e4 - alone_s, 1e-6);
}

}  // namespace
}  // namespace bb
