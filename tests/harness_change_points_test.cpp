// Change points over a history (harness/change_points.h, harness/history_changes.h): a planted step
// is found at its commit with its ratio inside the interval, a one-run spell is not a step, steps
// fall only between commits, and over many cases with heavy-tailed run-to-run noise the planted
// +10% steps are found while the unchanged cases stay quiet (false-discovery rate across cases).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include <fmt/format.h>

#include "harness/change_points.h"
#include "harness/history_changes.h"
#include "harness/regression.h"

namespace bb {
namespace {

// Whether some step of `x` is significant at 1%.
bool significant_step(std::span<const double> x) {
  for (const Step& s : find_steps(x, {}))
    if (s.p_value < 0.01) return true;
  return false;
}

// log run medians: level 0, Student-t(3) noise of scale `sigma`, + log(step) from `at` on.
std::vector<double> series(std::size_t n, double sigma, std::size_t at, double step,
                           std::mt19937_64& rng) {
  std::student_t_distribution<double> t(3);
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = sigma * t(rng) + (i >= at ? std::log(step) : 0.0);
  return x;
}

TEST(Steps, DifferenceNoiseHandWorked) {
  // Differences 1, -1, 1, -1: median 0, MAD 1 → σ = 1.4826/√2 = 1.04835.
  const std::vector<double> x = {0, 1, 0, 1, 0};
  EXPECT_NEAR(difference_noise(x), 1.4826 / std::sqrt(2.0), 1e-12);
  const std::vector<double> flat = {2, 2, 2, 2};
  EXPECT_DOUBLE_EQ(difference_noise(flat), 1e-4);
}

TEST(Steps, APlantedStepIsFoundWithItsRatio) {
  std::mt19937_64 rng(1);
  const std::vector<double> x = series(40, 0.01, 25, 1.10, rng);
  const auto steps = find_steps(x, {});
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].position, 25u);
  EXPECT_NEAR(steps[0].ratio, 1.10, 0.02);
  EXPECT_LT(steps[0].low, steps[0].ratio);
  EXPECT_GT(steps[0].high, steps[0].ratio);
  EXPECT_GT(steps[0].low, 1.05);  // (the intervals' coverage: HistoryChanges below)
  EXPECT_LT(steps[0].p_value, 1e-6);
}

TEST(Steps, AStepIsCalledOnceThreeRunsFollowIt) {
  std::mt19937_64 rng(2);
  const std::vector<double> x = series(30, 0.01, 27, 1.10, rng);
  const auto steps = find_steps(x, {});
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].position, 27u);
  // Two runs after it: not yet (a two-run spell looks the same).
  EXPECT_FALSE(significant_step(std::span(x).first(29)));
}

TEST(Steps, AOneRunSpellIsNotAStep) {
  std::mt19937_64 rng(3);
  for (const std::size_t at : {0u, 10u, 29u}) {
    std::vector<double> x = series(30, 0.01, 30, 1, rng);
    x[at] += std::log(1.5);  // one run 50% slower, then back
    EXPECT_FALSE(significant_step(x)) << "spell at " << at;
    x[at + (at < 29 ? 1 : -1)] += std::log(1.5);  // two runs
    EXPECT_FALSE(significant_step(x)) << "two-run spell at " << at;
  }
}

TEST(Steps, OnlyBetweenCommits) {
  std::mt19937_64 rng(4);
  const std::vector<double> x = series(40, 0.005, 21, 1.2, rng);
  // Runs 20..22 belong to one commit: the step may fall at 20 or 23, not at 21.
  std::vector<std::uint8_t> can_split(40, 1);
  can_split[0] = 0;
  can_split[21] = can_split[22] = 0;
  const auto steps = find_steps(x, can_split);
  ASSERT_FALSE(steps.empty());
  for (const auto& s : steps) EXPECT_TRUE(s.position == 20 || s.position == 23) << s.position;
}

TEST(HistoryChanges, PlantedStepsFoundUnchangedCasesQuiet) {
  // 200 cases × 60 runs on one machine, one commit per run, Student-t(3) noise of 2% (heavy tails,
  // like a shared VM's run-to-run scatter); 20 of the cases step +10% at run 40, 180 do not.
  std::mt19937_64 rng(5);
  History h;
  MachineRuns m{"m0", "test machine", {}, {}, {}};
  for (int i = 0; i < 60; ++i) {
    m.commits.push_back(fmt::format("c{}", i));
    m.dates.push_back(fmt::format("2026-12-01T00:{:02d}:00Z", i));
    m.labels.push_back("ci");
  }
  h.machines.push_back(m);
  for (int c = 0; c < 200; ++c) {
    const bool planted = c < 20;
    const auto x = series(60, 0.02, 40, planted ? 1.10 : 1.0, rng);
    CaseSeries s{0, fmt::format("suite/case{:03d}", c), {}, {}};
    for (std::size_t i = 0; i < x.size(); ++i) {
      s.run.push_back(static_cast<std::uint32_t>(i));
      s.median_s.push_back(1e-3 * std::exp(x[i]));
    }
    h.cases.push_back(s);
  }
  const ChangeReport r = find_history_changes(h);
  EXPECT_EQ(r.series, 200u);
  int found = 0, covered = 0, false_cases = 0;
  std::string last_false;
  for (const auto& c : r.changes) {
    const bool planted = c.case_name < "suite/case020";
    if (planted && c.index >= 40 && c.index <= 42 && c.slower()) {
      ++found;
      covered += c.low < 1.10 && c.high > 1.10;
    } else if (!planted && c.case_name != last_false) {
      ++false_cases;
      last_false = c.case_name;
    }
  }
  EXPECT_GE(found, 18);           // ≥ 90% of the +10% steps, at their commit
  EXPECT_GE(covered, found - 3);  // 95% intervals: most hold the planted ratio
  EXPECT_LE(false_cases, 2);      // ≤ 1% of the 180 unchanged cases
  const auto j = changes_json(r);
  ASSERT_FALSE(j["changes"].empty());
  const auto& first = j["changes"][0];
  for (const char* key : {"case", "machine", "commit", "index", "ratio", "interval", "direction"})
    EXPECT_TRUE(first.contains(key)) << key;
  EXPECT_EQ(first["interval"].size(), 2u);
  // --fail-within: the steps are at commit 40 of 60 (index 40: the 20th from the end).
  EXPECT_TRUE(regression_within(r, 20));
  EXPECT_FALSE(regression_within(r, 15));
}

}  // namespace
}  // namespace bb

namespace bb {
namespace {

// Two runs of 12 cases with tight samples: case 0 is 12% slower in the second.
nlohmann::json compare_run(double case0_factor) {
  nlohmann::json benchmarks = nlohmann::json::array();
  for (int c = 0; c < 12; ++c) {
    const double m = 1e-3 * (1 + c) * (c == 0 ? case0_factor : 1.0);
    std::vector<double> samples;
    for (int i = 0; i < 30; ++i) samples.push_back(m * (1 + 0.001 * ((i * 7) % 11 - 5)));
    benchmarks.push_back({{"name", fmt::format("suite/case{}", c)},
                          {"run_type", "iteration"},
                          {"median_s", m},
                          {"samples_s", samples}});
  }
  return {{"context",
           {{"boundbench",
             {{"schema_version", 2}, {"fingerprint", {{"cpu", {{"model_name", "test CPU"}}}}}}}}},
          {"benchmarks", benchmarks},
          {"checks", nlohmann::json::array()}};
}

TEST(CompareWithStore, ACaseThatMovesBetweenRunsNeedsMoreThanOnePair) {
  const nlohmann::json base = compare_run(1.0), next = compare_run(1.12);
  CompareOptions opts;
  const auto plain = compare_runs(base, next, opts);
  ASSERT_EQ(plain.cases[0].name, "suite/case0");
  EXPECT_EQ(plain.cases[0].verdict, "SLOWER");
  // The store has seen this case move by 10% (log sd) between runs of the same code.
  opts.between_runs["suite/case0"] = {0.10, 12};
  const auto stored = compare_runs(base, next, opts);
  EXPECT_EQ(stored.cases[0].verdict, "AMBIGUOUS");
  EXPECT_LT(stored.cases[0].change_low, 0.0);
  // A case the store knows to be steady is still called.
  opts.between_runs["suite/case0"] = {0.002, 12};
  EXPECT_EQ(compare_runs(base, next, opts).cases[0].verdict, "SLOWER");
}

}  // namespace
}  // namespace bb
