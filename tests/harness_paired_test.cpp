// Paired measurement: a pairing group's rounds (order rotating, samples aligned, the stopping rule
// over the group), the runner measuring a group, and the intervals from pairs (harness/paired.h):
// a slow spell common to a round must narrow the ratio's interval against the unpaired one, and
// the true ratio and exponent be covered at the stated rate.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <span>
#include <thread>
#include <vector>

#include "harness/checks.h"
#include "harness/fit.h"
#include "harness/measure.h"
#include "harness/paired.h"
#include "harness/runner.h"
#include "harness/stats.h"

namespace bb {
namespace {

TEST(Pairing, RoundOrderRotatesSoEveryMemberGoesFirst) {
  EXPECT_EQ(round_order(0, 2), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(round_order(1, 2), (std::vector<std::size_t>{1, 0}));  // two members alternate
  EXPECT_EQ(round_order(2, 2), (std::vector<std::size_t>{0, 1}));
  std::vector<int> first(3, 0);
  for (std::size_t r = 0; r < 9; ++r) {
    const auto order = round_order(r, 3);
    std::vector<std::size_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, (std::vector<std::size_t>{0, 1, 2}));  // each member once per round
    ++first[order.front()];
  }
  EXPECT_EQ(first, (std::vector<int>{3, 3, 3}));
}

StoppingRule rule(std::size_t min_samples, double timeout_s = 10) {
  StoppingRule r;
  r.warmup_samples = 0;
  r.min_samples = min_samples;
  r.min_time_s = 0;
  r.max_rel_noise = 0.01;
  r.timeout_s = timeout_s;
  return r;
}

// A cache-sized member's: 10 samples, its own after the rounds (StoppingRule::AfterRounds), from
// `warmup` discarded.
StoppingRule own_rule(double timeout_s, std::size_t warmup = 1) {
  StoppingRule r = rule(10, timeout_s);
  r.warmup_samples = warmup;
  r.after_rounds = StoppingRule::AfterRounds::own_samples;
  return r;
}

TEST(Pairing, SamplesAreAlignedByRoundAndWarmupIsDiscarded) {
  const std::vector<StoppingRule> rules = {rule(9), rule(9)};
  std::vector<std::size_t> calls;
  std::vector<std::size_t> taken(2, 0);
  // Member i's k-th call returns 1 + i + 0.0001·k (constant enough to converge at 9 rounds, the
  // fewest whose median interval reaches 99.44%).
  const auto ms = sample_group(rules, 2, [&](std::size_t i) {
    calls.push_back(i);
    return 1.0 + static_cast<double>(i) + 1e-4 * static_cast<double>(taken[i]++);
  });
  ASSERT_EQ(ms.size(), 2u);
  ASSERT_EQ(ms[0].samples_s.size(), 9u);
  ASSERT_EQ(ms[1].samples_s.size(), 9u);
  EXPECT_EQ(ms[0].stop, StopReason::converged);
  // Two warm-up rounds, then nine: A B, B A, A B, … (alternating which member goes first).
  ASSERT_EQ(calls.size(), 22u);
  for (std::size_t r = 0; r < 11; ++r) {
    EXPECT_EQ(calls[2 * r], r % 2) << "round " << r;
    EXPECT_EQ(calls[2 * r + 1], 1 - r % 2) << "round " << r;
  }
  // Round r's samples are each member's call 2 + r (after the two warm-up calls).
  for (std::size_t r = 0; r < 9; ++r) {
    EXPECT_DOUBLE_EQ(ms[0].samples_s[r], 1.0 + 1e-4 * static_cast<double>(2 + r));
    EXPECT_DOUBLE_EQ(ms[1].samples_s[r], 2.0 + 1e-4 * static_cast<double>(2 + r));
  }
}

TEST(Pairing, TheStoppingRuleWaitsForEveryMember) {
  // Member 0 asks for 3 samples (its noise rule for 9: median_reachable), member 1 for 12: both
  // converge only when both are in.
  const std::vector<StoppingRule> rules = {rule(3), rule(12)};
  const auto ms = sample_group(rules, 0, [](std::size_t) { return 1e-3; });
  EXPECT_EQ(ms[0].samples_s.size(), 12u);
  EXPECT_EQ(ms[1].samples_s.size(), 12u);
  EXPECT_EQ(ms[1].stop, StopReason::converged);

  // Member 1 never converges (alternating 1 and 3 ms): the group times out at the sum of the
  // members' timeouts, both with as many samples, more than the minimum.
  const std::vector<StoppingRule> slow = {rule(3, 0.01), rule(3, 0.02)};
  std::size_t k = 0;
  const auto t0 = std::chrono::steady_clock::now();
  const auto ts =
      sample_group(slow, 0, [&](std::size_t i) { return i == 0 ? 1e-3 : (k++ % 2 ? 3e-3 : 1e-3); });
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(ts[0].stop, StopReason::timeout);
  EXPECT_EQ(ts[0].samples_s.size(), ts[1].samples_s.size());
  EXPECT_GT(ts[0].samples_s.size(), 3u);
  EXPECT_GE(wall_s, 0.03);

  // One member: the group rule is the member's own.
  std::vector<Sampler> one = {Sampler(rule(10))};
  for (int i = 0; i < 9; ++i) one[0].add(1e-3);
  EXPECT_EQ(group_should_stop(one, 0), StopReason::none);
  one[0].add(1e-3);
  EXPECT_EQ(group_should_stop(one, 0), one[0].should_stop(0));
  EXPECT_EQ(group_should_stop(one, 0), StopReason::converged);
}

// The host attention sweep's shape: member 1 is dear (2 ms of wall time a sample, never precise:
// 1 and 3 alternate), member 0 cheap (0.1 ms, spread ±5%: within ±1% from ~200 samples, look 6).
// The group times out at the sum of the timeouts (0.1 s of wall time, ~50 rounds); member 0 has had
// ~5% of it, goes on alone to ±1% at a later look and stops converged; member 1 has had its
// share and stops with the rounds. The rounds are the first samples, aligned, and judged at the
// level of the rounds' look.
// That group's samples: member 0 cheap, member 1 dear; `calls` counts each member's samples.
std::function<double(std::size_t)> cheap_and_dear(std::vector<std::size_t>& calls) {
  calls.assign(2, 0);
  return [&calls](std::size_t i) {
    const std::size_t call = calls[i]++;
    if (i == 1) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      return 2e-3 * (call % 2 ? 0.5 : 1.5);
    }
    return 1e-4 * (1 + 0.05 * (static_cast<double>((call * 7) % 41) - 20) / 20);
  };
}

TEST(Pairing, ACheapMemberShortOfItsPrecisionGoesOnAloneAfterTheRounds) {
  const std::vector<StoppingRule> rules = {rule(10, 0.05), rule(10, 0.05)};
  std::vector<std::size_t> calls;
  const auto ms = sample_group(rules, 0, cheap_and_dear(calls));
  const std::size_t rounds = ms[1].samples_s.size();
  EXPECT_EQ(ms[0].rounds, rounds);
  EXPECT_EQ(ms[1].rounds, rounds);
  EXPECT_GE(rounds, 10u);
  EXPECT_LT(rounds, 80u);  // ≥ 0.1 s of 2 ms sleeps
  EXPECT_EQ(ms[1].stop, StopReason::timeout);
  EXPECT_EQ(ms[0].stop, StopReason::converged);
  EXPECT_GT(ms[0].samples_s.size(), rounds);
  EXPECT_EQ(calls[0], ms[0].samples_s.size());
  EXPECT_TRUE(is_scheduled_look(ms[0].samples_s.size(), 10));
  EXPECT_TRUE(within_precision(ms[0].summary, 0.01));
  EXPECT_FALSE(within_precision(summarize(round_samples(ms[0]), ms[0].round_confidence), 0.01));
  // The rounds' level is their look's; the member's summary is at its own later look's.
  const std::size_t look = look_index(rounds, 10);
  EXPECT_DOUBLE_EQ(ms[0].round_confidence, sequential_confidence(look, 0.05));
  EXPECT_DOUBLE_EQ(ms[1].round_confidence, ms[0].round_confidence);
  EXPECT_DOUBLE_EQ(ms[0].summary.median_ci_confidence,
                   sequential_confidence(look_index(ms[0].samples_s.size(), 10), 0.05));
}

// The same group where the rules do not allow it (a GPU member without the L2 flush): every member
// stops with the rounds.
TEST(Pairing, AMemberGoesOnAloneOnlyWhereItsRuleAllows) {
  StoppingRule r = rule(10, 0.05);
  r.after_rounds = StoppingRule::AfterRounds::rounds_only;
  const std::vector<StoppingRule> rules = {r, r};
  std::vector<std::size_t> calls;
  const auto ms = sample_group(rules, 0, cheap_and_dear(calls));
  EXPECT_EQ(ms[0].samples_s.size(), ms[0].rounds);
  EXPECT_EQ(ms[1].samples_s.size(), ms[0].rounds);
  EXPECT_EQ(ms[0].stop, StopReason::timeout);
}

// A member whose sample depends on what ran just before it (a cache-sized host member: 130 µs
// after the other member, 100 µs after itself) takes its own samples after the rounds: its median
// is of those alone (all warm: exactly 100 µs; the first one after the rounds, cold, discarded as
// its warm-up), its rounds kept apart for the checks, its stop reason its own. In the rounds the
// rotation puts it after the other member in about half of them, so they never reach ±1% and
// the group times out (at 20 ms); the other member, converged there, stops with them.
TEST(Pairing, AMemberWithItsOwnSamplesTakesThemAfterTheRounds) {
  const std::vector<StoppingRule> rules = {own_rule(0.01), rule(10, 0.01)};
  std::vector<std::size_t> calls(2, 0);
  std::size_t last = 2;  // none yet
  const auto ms = sample_group(rules, 0, [&](std::size_t i) {
    const double t = i == 1 ? 2e-3 : last == 0 ? 1e-4 : 1.3e-4;
    last = i, ++calls[i];
    return t;
  });
  EXPECT_EQ(ms[1].stop, StopReason::timeout);  // the group's
  EXPECT_TRUE(ms[0].own_samples);
  EXPECT_FALSE(ms[1].own_samples);
  EXPECT_EQ(ms[0].rounds, ms[1].rounds);
  EXPECT_EQ(ms[0].rounds_apart_s.size(), ms[0].rounds);
  EXPECT_EQ(round_samples(ms[0]).size(), ms[0].rounds);
  EXPECT_EQ(std::vector<double>(round_samples(ms[0]).begin(), round_samples(ms[0]).end()),
            ms[0].rounds_apart_s);
  EXPECT_EQ(ms[1].samples_s.size(), ms[1].rounds);  // continue_rounds, converged: no more
  // Its own: every one warm, the warm-up sample (cold, after member 1's last round) not kept.
  EXPECT_EQ(calls[0], ms[0].rounds + 1 + ms[0].samples_s.size());
  for (double t : ms[0].samples_s) EXPECT_EQ(t, 1e-4);
  EXPECT_EQ(ms[0].summary.median_s, 1e-4);
  EXPECT_EQ(ms[0].stop, StopReason::converged);
  EXPECT_TRUE(within_precision(ms[0].summary, 0.01));
  EXPECT_EQ(ms[0].samples_s.size(), 10u);  // converged at its minimum (noise 0)
  EXPECT_FALSE(within_precision(summarize(round_samples(ms[0]), ms[0].round_confidence), 0.01));
}

// Where the rounds did meet its precision, a member with its own samples still takes them: which
// samples its median is of does not depend on how its rounds went.
// Its warm-up (here 50 ms, the 11th call) is no more the harness's time than the group's: the
// overhead per sample stays far below the 50 ms / 30 samples = 1.7 ms it would add.
TEST(Pairing, AMemberTakesItsOwnSamplesEvenWhereItsRoundsConverged) {
  const std::vector<StoppingRule> rules = {own_rule(10), rule(10, 10)};
  std::vector<std::size_t> calls(2, 0);
  const auto ms = sample_group(rules, 0, [&](std::size_t i) {
    if (i == 0 && calls[0] == 10) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ++calls[i];
    return i == 0 ? 1e-4 : 2e-3;
  });
  EXPECT_EQ(ms[1].stop, StopReason::converged);
  EXPECT_EQ(ms[0].rounds, 10u);
  EXPECT_EQ(ms[0].samples_s.size(), 10u);
  EXPECT_EQ(calls[0], 21u);
  EXPECT_EQ(calls[1], 10u);
  EXPECT_LT(ms[0].harness_overhead_s, 0.5e-3);
  EXPECT_EQ(ms[0].harness_overhead_s, ms[1].harness_overhead_s);
}

// Own samples that each take longer than its hard cap (15 ms against 10 ms: timeout 1 ms, 10
// samples asked): below its minimum only the cap stops it, and with 2 samples, as a case alone.
TEST(Pairing, AnOwnSampleMemberBelowItsMinimumStopsAtTheHardCapWithTwo) {
  const std::vector<StoppingRule> rules = {own_rule(1e-3, 0), rule(10, 1e-3)};
  const auto ms = sample_group(rules, 0, [&](std::size_t i) {
    if (i == 1) return 1e-4;
    std::this_thread::sleep_for(std::chrono::milliseconds(15));
    return 15e-3;
  });
  EXPECT_EQ(ms[0].rounds, 2u);  // the group's cap: 20 ms, 2 rounds at least
  EXPECT_EQ(ms[0].samples_s.size(), 2u);
  EXPECT_EQ(ms[0].stop, StopReason::timeout);
}

// Under a timing simulator a sample reads microseconds and takes seconds of wall time: a member's
// time in the rounds is what its samples took, not what they read. Member 0 reads 1 µs and takes
// 5 ms a sample, member 1 reads 10 ms and takes none: each has had more than its 1 ms timeout and
// neither goes on alone (a share in proportion to what the samples read, 1.5 µs, would send
// member 0 on). The hard cap far.
TEST(Pairing, AMembersTimeInTheRoundsIsTheWallTimeItsSamplesTook) {
  StoppingRule r = rule(3, 1e-3);
  r.hard_timeout_factor = 1e6;
  const std::vector<StoppingRule> rules = {r, r};
  std::size_t k = 0;
  const auto ms = sample_group(rules, 0, [&](std::size_t i) {
    if (i == 1) return 1e-2 * (k++ % 2 ? 1.5 : 0.5);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return 1e-6 * (k++ % 2 ? 1.5 : 0.5);
  });
  EXPECT_EQ(ms[0].samples_s.size(), 3u);
  EXPECT_EQ(ms[1].samples_s.size(), 3u);
  EXPECT_EQ(ms[0].rounds, 3u);
  EXPECT_EQ(ms[0].stop, StopReason::timeout);
}

TEST(Pairing, KeptRoundsStayAligned) {
  std::vector<double> a(2500), b(2500);
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<double>(i), b[i] = 2.0 * static_cast<double>(i);
  const auto ka = kept_rounds(a, 1000), kb = kept_rounds(b, 1000);
  ASSERT_EQ(ka.size(), 1000u);
  EXPECT_EQ(ka.front(), 0);
  EXPECT_EQ(ka.back(), 2499);
  for (std::size_t i = 0; i < ka.size(); ++i) EXPECT_EQ(kb[i], 2 * ka[i]);
  EXPECT_EQ(kept_rounds(std::vector<double>{3, 1, 2}), (std::vector<double>{3, 1, 2}));
}

// ---- the intervals from pairs, by simulation ----

// t = θ · u_r · e: a slow spell u_r common to a round (lognormal, σ = 0.3: spells of ±35%) and
// each sample's own noise e (lognormal, σ = 0.02).
struct Simulated {
  std::vector<double> a, b;
};
Simulated simulate(std::mt19937_64& rng, double theta_a, double theta_b, std::size_t rounds) {
  std::normal_distribution<double> spell(0, 0.3), own(0, 0.02);
  Simulated s;
  for (std::size_t r = 0; r < rounds; ++r) {
    const double u = std::exp(spell(rng));
    s.a.push_back(theta_a * u * std::exp(own(rng)));
    s.b.push_back(theta_b * u * std::exp(own(rng)));
  }
  return s;
}

// A paired ratio is judged at the rounds' level (CaseResult::round_confidence), not at the
// member's own summary's, which is a later look's where it went on alone. 20 rounds whose ratios
// are 1.00, 1.01, …, 1.19: at 0.95 the ranks are 6 and 15, [1.05, 1.14] (coverage
// 1 − 2·P(B ≤ 5) = 0.9586); at 0.9999 they would be 2 and 19, [1.01, 1.18]. Members judged at
// different levels are not paired.
TEST(PairedInterval, JudgedAtTheRoundsLevelNotTheSummarys) {
  CaseResult a, b;
  for (CaseResult* r : {&a, &b}) {
    r->paired_group = "g";
    r->paired_run = 1;
    r->round_confidence = 0.95;
  }
  for (int k = 0; k < 20; ++k) {
    b.round_samples_s.push_back(1e-3 * (1 + k % 3));
    a.round_samples_s.push_back(b.round_samples_s.back() * (1 + 0.01 * ((k * 7) % 20)));
  }
  a.summary = summarize(a.round_samples_s, 0.9999);
  b.summary = summarize(b.round_samples_s, 0.9999);
  bool paired = false;
  const Interval i = time_ratio_interval(a, b, &paired);
  EXPECT_TRUE(paired);
  EXPECT_NEAR(i.value, 1.095, 1e-12);
  EXPECT_NEAR(i.low, 1.05, 1e-12);
  EXPECT_NEAR(i.high, 1.14, 1e-12);
  EXPECT_NEAR(i.coverage, 1 - 2 * 21700.0 / 1048576, 1e-12);  // Σ_{k≤5} C(20, k) = 21700
  const Interval wide = paired_ratio_interval(a.round_samples_s, b.round_samples_s, 0.9999);
  EXPECT_NEAR(wide.low, 1.01, 1e-12);
  EXPECT_NEAR(wide.high, 1.18, 1e-12);
  b.round_confidence = 0.99;
  EXPECT_FALSE(sampled_together(a, b));
  time_ratio_interval(a, b, &paired);
  EXPECT_FALSE(paired);
}

TEST(PairedInterval, ACommonSpellCancelsAndTheTrueRatioIsCovered) {
  std::mt19937_64 rng(20261202);
  const double truth = 1.3;
  const int trials = 4000;
  const std::size_t rounds = 10;
  int covered = 0, unpaired_covered = 0;
  std::vector<double> width_ratio;
  double coverage = 0;
  for (int i = 0; i < trials; ++i) {
    const Simulated s = simulate(rng, truth, 1.0, rounds);
    const Interval p = paired_ratio_interval(s.a, s.b);
    const Interval u = unpaired_ratio_interval(summarize(s.a), summarize(s.b));
    covered += p.low <= truth && truth <= p.high;
    unpaired_covered += u.low <= truth && truth <= u.high;
    width_ratio.push_back((p.high - p.low) / (u.high - u.low));
    coverage = p.coverage;
  }
  // 10 rounds: ranks 2 and 9, coverage 1 − 2·P(B ≤ 1) = 0.979 (exact for i.i.d. rounds).
  EXPECT_NEAR(coverage, 0.9785, 1e-3);
  const double rate = static_cast<double>(covered) / trials;
  const double sigma = std::sqrt(coverage * (1 - coverage) / trials);
  EXPECT_GE(rate, coverage - 4 * sigma) << "paired coverage " << rate;
  EXPECT_LE(rate, coverage + 4 * sigma) << "paired coverage " << rate;
  // The unpaired combination is safe (wide), the paired one much narrower: the spell's ±35%
  // cancels, only the 2% own noise is left.
  EXPECT_GE(static_cast<double>(unpaired_covered) / trials, coverage - 4 * sigma);
  std::sort(width_ratio.begin(), width_ratio.end());
  std::printf(
      "paired ratio: coverage %.4f (stated %.4f, unpaired %.4f), median width paired / "
      "unpaired %.3f\n",
      rate, coverage, static_cast<double>(unpaired_covered) / trials,
      width_ratio[width_ratio.size() / 2]);
  EXPECT_LT(width_ratio[width_ratio.size() / 2], 0.15) << "median paired/unpaired width";
}

TEST(PairedInterval, ExponentFromPerRoundFitsCoversAndNarrows) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> spell(0, 0.3), own(0, 0.03);
  const std::vector<double> n = {256, 512, 1024, 2048, 4096};
  const int trials = 2000;
  const std::size_t rounds = 10;
  int covered = 0;
  std::vector<double> width_ratio;
  double coverage = 0;
  for (int i = 0; i < trials; ++i) {
    std::vector<std::vector<double>> t(n.size());
    for (std::size_t r = 0; r < rounds; ++r) {
      const double u = std::exp(spell(rng));
      for (std::size_t j = 0; j < n.size(); ++j)
        t[j].push_back(1e-9 * n[j] * n[j] * u * std::exp(own(rng)));
    }
    const Interval p = paired_exponent_interval(n, t);
    std::vector<double> medians;
    for (const auto& s : t) medians.push_back(summarize(s).median_s);
    const RobustFit f = theil_sen_power_law_fit(n, medians);
    covered += p.low <= 2 && 2 <= p.high;
    width_ratio.push_back((p.high - p.low) / (f.slope_high - f.slope_low));
    coverage = p.coverage;
  }
  const double rate = static_cast<double>(covered) / trials;
  const double sigma = std::sqrt(coverage * (1 - coverage) / trials);
  EXPECT_GE(rate, coverage - 4 * sigma) << "paired exponent coverage " << rate;
  std::sort(width_ratio.begin(), width_ratio.end());
  std::printf(
      "paired exponent: coverage %.4f (stated %.4f), median width paired / Theil-Sen over "
      "medians %.3f\n",
      rate, coverage, width_ratio[width_ratio.size() / 2]);
  EXPECT_LT(width_ratio[width_ratio.size() / 2], 0.5) << "median paired/unpaired width";
}

TEST(PairedInterval, AFailNeedsTheUnpairedIntervalOutsideToo) {
  const Band band = Band::plus_minus(2, 0.2);
  const Interval inside{2.05, 1.9, 2.1, 0.97}, below{1.5, 0.6, 1.75, 0.98};
  // Inside the band: the paired interval decides (PASS).
  EXPECT_EQ(judge(CheckKind::law, band, guarded_interval(inside, below, band)), Verdict::pass);
  // Paired outside: judged on the hull with the unpaired interval.
  const Interval low{1.49, 1.39, 1.62, 0.94};
  const Interval g = guarded_interval(low, below, band);
  EXPECT_EQ(g.value, 1.49);
  EXPECT_EQ(g.low, 0.6);
  EXPECT_EQ(g.high, 1.75);
  EXPECT_EQ(judge(CheckKind::law, band, g), Verdict::fail);  // both below: a FAIL stands
  // Unpaired straddling the band: the hull straddles (INCONCLUSIVE), not a FAIL.
  const Interval straddling{1.7, 0.6, 1.95, 0.98};  // new2's medians
  EXPECT_EQ(judge(CheckKind::law, band, guarded_interval(low, straddling, band)),
            Verdict::inconclusive);
  // Both above (n^3 where the law says n^2): FAIL.
  EXPECT_EQ(
      judge(CheckKind::law, band, guarded_interval({3, 2.9, 3.1, 0.94}, {3, 2.5, 3.5, 0.98}, band)),
      Verdict::fail);
}

TEST(PairedInterval, BadInputThrows) {
  const std::vector<double> a = {1, 2}, b = {1}, z = {0, 1};
  EXPECT_THROW(paired_ratio_interval(a, b), std::invalid_argument);
  EXPECT_THROW(paired_ratio_interval(a, z), std::invalid_argument);
  EXPECT_THROW(paired_ratio_interval(std::span<const double>(), std::span<const double>()),
               std::invalid_argument);
  const std::vector<double> x = {1, 2};
  const std::vector<std::vector<double>> uneven = {{1, 2}, {1}};
  EXPECT_THROW(paired_exponent_interval(x, uneven), std::invalid_argument);
}

// ---- the runner measures a group together ----

class Logged final : public Instance {
 public:
  Logged(int id, std::shared_ptr<std::vector<int>> log) : id_(id), log_(std::move(log)) {}
  Comparison validate() override {
    std::vector<double> v = {1, 2};
    return compare<double, double>(v, v, Tolerance{0, 0});
  }
  void run(gpu_stream) override {
    log_->push_back(id_);
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }

 private:
  int id_;
  std::shared_ptr<std::vector<int>> log_;
};

Case logged_case(int id, std::shared_ptr<std::vector<int>> log, std::uint64_t bytes) {
  Case c{"member/" + std::to_string(id), Backend::host,
         [bytes](const CaseContext&) {
           Declared d;
           d.host_memory_bytes = bytes;
           return d;
         },
         [id, log](const CaseContext&, Declared&) -> std::unique_ptr<Instance> {
           return std::make_unique<Logged>(id, log);
         },
         nullptr};
  c.pairing_group = "pair";
  return c;
}

struct GroupRun {
  nlohmann::json doc;
  std::vector<CaseResult> results;
};
GroupRun run_group(const std::vector<Case>& cases) {
  char tmpl[] = "/tmp/bb_paired_XXXXXX";
  if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
  const std::filesystem::path dir = tmpl;
  GroupRun out;
  Suite suite{"synthetic", "pairing", cases, nullptr};
  suite.suite_checks = [&out](const std::vector<CaseResult>& rs) {
    out.results = rs;
    return std::vector<Check>{};
  };
  const std::vector<Suite> suites = {suite};
  RunOptions opts;
  opts.rule = rule(7, 0.02);
  opts.out_path = (dir / "r.json").string();
  opts.backend = Backend::host;
  Environment env{query_host(), GpuStatus{}};
  run_cases(select_cases(suites, opts, env), opts, env);
  std::ifstream in(opts.out_path);
  out.doc = nlohmann::json::parse(in);
  std::filesystem::remove_all(dir);
  return out;
}

TEST(Pairing, TheRunnerSamplesAGroupInRoundsAndKeepsThemAligned) {
  auto log = std::make_shared<std::vector<int>>();
  const GroupRun g = run_group({logged_case(0, log, 1 << 20), logged_case(1, log, 1 << 20)});
  ASSERT_EQ(g.doc["benchmarks"].size(), 2u);
  const auto& a = g.doc["benchmarks"][0];
  const auto& b = g.doc["benchmarks"][1];
  ASSERT_TRUE(a.contains("pairing")) << a.dump(1);
  EXPECT_EQ(a["pairing"]["group"], "pair");
  EXPECT_EQ(a["pairing"]["members"], 2);
  EXPECT_EQ(a["pairing"]["run"], b["pairing"]["run"]);
  // As many rounds each; a member short of its precision when the group timed out (a busy
  // machine) took samples alone after them.
  const std::size_t rounds = a["pairing"]["rounds"].get<std::size_t>();
  EXPECT_EQ(b["pairing"]["rounds"], rounds);
  const std::size_t alone_a = a["pairing"]["alone"].get<std::size_t>();
  const std::size_t alone_b = b["pairing"]["alone"].get<std::size_t>();
  EXPECT_EQ(a["samples"].get<std::size_t>(), rounds + alone_a);
  EXPECT_EQ(b["samples"].get<std::size_t>(), rounds + alone_b);
  const std::size_t kept = std::min<std::size_t>(rounds, kKeptSamples);
  EXPECT_EQ(a["round_samples_s"].size(), kept);
  // The runs interleave: 0 1, 1 0, 0 1, … from the first round (the warm-up round included), then
  // member 0's samples alone, then member 1's.
  ASSERT_GE(log->size(), 2 * 7u + alone_a + alone_b);
  const std::size_t interleaved = log->size() - alone_a - alone_b;
  for (std::size_t r = 0; 2 * r + 1 < interleaved; ++r) {
    EXPECT_EQ((*log)[2 * r], static_cast<int>(r % 2)) << "round " << r;
    EXPECT_EQ((*log)[2 * r + 1], static_cast<int>(1 - r % 2)) << "round " << r;
  }
  for (std::size_t k = interleaved; k < log->size(); ++k)
    EXPECT_EQ((*log)[k], k < interleaved + alone_a ? 0 : 1) << "sample alone " << k;
  // The suite's checks see the rounds, aligned.
  ASSERT_EQ(g.results.size(), 2u);
  EXPECT_TRUE(sampled_together(g.results[0], g.results[1]));
  EXPECT_EQ(g.results[0].round_samples_s.size(), kept);
  EXPECT_EQ(g.results[0].round_samples_s, a["round_samples_s"].get<std::vector<double>>());
  bool paired = false;
  time_ratio_interval(g.results[0], g.results[1], &paired);
  EXPECT_TRUE(paired);
}

TEST(Pairing, AGroupTooLargeForMemoryIsSampledAloneWithANote) {
  auto log = std::make_shared<std::vector<int>>();
  const HostInfo host = query_host();
  ASSERT_GT(host.memory_bytes, 0u);
  // Each fits (half of memory), both together do not.
  const std::uint64_t half = host.memory_bytes / 2;
  const GroupRun g = run_group({logged_case(0, log, half), logged_case(1, log, half)});
  ASSERT_EQ(g.doc["benchmarks"].size(), 2u);
  for (const auto& e : g.doc["benchmarks"]) {
    EXPECT_FALSE(e.contains("pairing"));
    EXPECT_NE(e.value("pairing_note", "").find("not paired"), std::string::npos) << e.dump(1);
  }
  ASSERT_EQ(g.results.size(), 2u);
  EXPECT_FALSE(sampled_together(g.results[0], g.results[1]));
  // One member's samples all come before the other's.
  const auto first_one = std::find(log->begin(), log->end(), 1);
  EXPECT_TRUE(std::all_of(first_one, log->end(), [](int id) { return id == 1; }));
}

}  // namespace
}  // namespace bb
