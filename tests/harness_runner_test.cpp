// The runner end to end on a synthetic suite: observations reach the results file, and the suite's
// own checks run over its measured cases.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "harness/checks.h"
#include "harness/runner.h"

namespace bb {
namespace {

class Counting final : public Instance {
 public:
  explicit Counting(int factor) : factor_(factor) {}
  Comparison validate() override {
    std::vector<double> out = {1.0 * factor_, 2.0 * factor_}, ref = out;
    return compare<double, double>(out, ref, Tolerance{0, 0});
  }
  void run(gpu_stream) override { ++runs_; }
  nlohmann::json observations() override { return {{"factor", factor_}, {"runs", runs_}}; }

 private:
  int factor_;
  long runs_ = 0;
};

Case counting_case(int factor) {
  return {"count/" + std::to_string(factor), Backend::host,
          [factor](const CaseContext&) {
            Declared d;
            d.params = {{"factor", factor}};
            return d;
          },
          [factor](const CaseContext&, Declared&) -> std::unique_ptr<Instance> {
            return std::make_unique<Counting>(factor);
          },
          nullptr};
}

TEST(Runner, ObservationsAndSuiteChecks) {
  char tmpl[] = "/tmp/bb_runner_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::filesystem::path dir = tmpl;

  Suite suite{"synthetic", "test suite", {counting_case(2), counting_case(3)}, nullptr};
  std::vector<std::string> seen;
  suite.suite_checks = [&](const std::vector<CaseResult>& results) {
    Check k;
    k.suite = "synthetic";
    k.name = "factors";
    k.law = "the suite sees every measured case with its observations";
    double sum = 0;
    // The last call gives the verdict; earlier ones are the runner asking, while it samples the
    // suite's last case, whether a law is still undecided (harness/runner.cpp, case_undecided).
    seen.clear();
    for (const auto& r : results) {
      seen.push_back(r.name);
      sum += r.observations.at("factor").get<double>();
    }
    k.measured = sum;
    k.predicted = 5;
    k.verdict = sum == 5 ? Verdict::pass : Verdict::fail;
    return std::vector<Check>{k};
  };
  const std::vector<Suite> suites = {suite};

  RunOptions opts;
  opts.rule.min_samples = 3;
  opts.rule.min_time_s = 0;
  opts.rule.timeout_s = 0.01;
  opts.out_path = (dir / "r.json").string();
  Environment env{query_host(), GpuStatus{}};
  env.gpus.reason = "test: no GPU";
  opts.backend = Backend::host;
  const Selection sel = select_cases(suites, opts, env);
  ASSERT_EQ(sel.run.size(), 2u);
  const RunOutcome out = run_cases(sel, opts, env);
  EXPECT_EQ(out.cases, 2);
  EXPECT_FALSE(out.failed());
  EXPECT_EQ(seen, (std::vector<std::string>{"count/2", "count/3"}));

  std::ifstream in(opts.out_path);
  const auto doc = nlohmann::json::parse(in);
  EXPECT_TRUE(doc["context"]["boundbench"]["complete"].get<bool>());
  ASSERT_EQ(doc["benchmarks"].size(), 2u);
  EXPECT_EQ(doc["benchmarks"][0]["observations"]["factor"], 2);
  // warm-up + samples, each one run() of the instance
  EXPECT_GE(doc["benchmarks"][0]["observations"]["runs"].get<long>(), 4);
  bool found = false;
  for (const auto& c : doc["checks"])
    found = found || (c["name"] == "factors" && c["verdict"] == "PASS" && c["measured"] == 5);
  EXPECT_TRUE(found) << doc["checks"].dump(2);
  std::filesystem::remove_all(dir);
}

// A case that fails while it is being measured: the run goes on, the failure is a FAIL check, and
// the next case is still measured.
class FailsLater final : public Instance {
 public:
  Comparison validate() override {
    std::vector<double> v = {1, 2};
    return compare<double, double>(v, v, Tolerance{0, 0});
  }
  void run(gpu_stream) override {
    if (++runs_ == 3) throw std::runtime_error("device fell off the bus");
  }

 private:
  int runs_ = 0;
};

TEST(Runner, AFailureDuringMeasurementIsAFailCheckAndTheRunContinues) {
  char tmpl[] = "/tmp/bb_runner_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::filesystem::path dir = tmpl;
  Case failing{"fails", Backend::host, [](const CaseContext&) { return Declared{}; },
               [](const CaseContext&, Declared&) -> std::unique_ptr<Instance> {
                 return std::make_unique<FailsLater>();
               },
               nullptr};
  const std::vector<Suite> suites = {
      Suite{"synthetic", "test suite", {failing, counting_case(2)}, nullptr}};
  RunOptions opts;
  opts.rule.min_samples = 5;
  opts.rule.min_time_s = 0;
  opts.rule.timeout_s = 0.01;
  opts.out_path = (dir / "r.json").string();
  Environment env{query_host(), GpuStatus{}};
  opts.backend = Backend::host;
  const RunOutcome out = run_cases(select_cases(suites, opts, env), opts, env);
  EXPECT_EQ(out.cases, 2);
  EXPECT_EQ(out.case_errors, 1);
  EXPECT_TRUE(out.failed());
  std::ifstream in(opts.out_path);
  const auto doc = nlohmann::json::parse(in);
  ASSERT_EQ(doc["benchmarks"].size(), 2u);
  EXPECT_TRUE(doc["benchmarks"][0]["error_occurred"].get<bool>());
  EXPECT_NE(doc["benchmarks"][0]["error_message"].get<std::string>().find("fell off the bus"),
            std::string::npos);
  EXPECT_GT(doc["benchmarks"][1]["samples"].get<int>(), 0);
  bool found = false;
  for (const auto& c : doc["checks"])
    found = found || (c["name"] == "fails/run" && c["verdict"] == "FAIL");
  EXPECT_TRUE(found);
  std::filesystem::remove_all(dir);
}

class Sleeping final : public Instance {
 public:
  Comparison validate() override {
    std::vector<double> v = {1, 2};
    return compare<double, double>(v, v, Tolerance{0, 0});
  }
  void run(gpu_stream) override { std::this_thread::sleep_for(std::chrono::microseconds(200)); }
};

// A case that does not fit this machine is a SKIP, not an error; a sweep point samples by the
// lighter rule; coverage cases stay out of quick runs; the suite's figures reach the file.
TEST(Runner, SkippedCasesSweepPointsQuickSelectionAndFigures) {
  char tmpl[] = "/tmp/bb_runner_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::filesystem::path dir = tmpl;
  Case too_big{"too-big", Backend::host, [](const CaseContext&) { return Declared{}; },
               [](const CaseContext&, Declared&) -> std::unique_ptr<Instance> {
                 throw CaseSkipped("needs 1 PiB");
               },
               nullptr};
  Case point{"point", Backend::host, [](const CaseContext&) { return Declared{}; },
             [](const CaseContext&, Declared&) -> std::unique_ptr<Instance> {
               return std::make_unique<Sleeping>();
             },
             nullptr};
  point.sweep_point = true;
  Case coverage = counting_case(7);
  coverage.in_quick = false;
  Suite suite{"synthetic", "test suite", {too_big, point, coverage}, nullptr};
  suite.suite_figures = [](const std::vector<CaseResult>& rs) {
    return nlohmann::json{{"measured", rs.size()}};
  };
  RunOptions opts;
  opts.quick = true;
  opts.rule.min_samples = 1000;  // the case rule: 1000 samples of 200 µs
  opts.rule.min_time_s = 0;
  opts.rule.max_rel_noise = 0.5;
  opts.rule.timeout_s = 5;
  opts.out_path = (dir / "r.json").string();
  Environment env{query_host(), GpuStatus{}};
  opts.backend = Backend::host;
  const std::vector<Suite> suites = {suite};  // the selection points into it
  const Selection sel = select_cases(suites, opts, env);
  ASSERT_EQ(sel.run.size(), 2u);  // the coverage case is left out of quick runs
  const RunOutcome out = run_cases(sel, opts, env);
  EXPECT_EQ(out.case_errors, 0);
  EXPECT_FALSE(out.failed());
  EXPECT_EQ(out.checks.skip, 1);
  std::ifstream in(opts.out_path);
  const auto doc = nlohmann::json::parse(in);
  bool skipped = false;
  for (const auto& c : doc["checks"])
    skipped = skipped || (c["name"] == "too-big/run" && c["verdict"] == "SKIP" &&
                          c["reason"] == "needs 1 PiB");
  EXPECT_TRUE(skipped) << doc["checks"].dump(2);
  // The sweep point's rule asks for 5 samples (and stops at 5 s / 30 regardless), not 1000.
  ASSERT_EQ(doc["benchmarks"].size(), 2u);
  EXPECT_GE(doc["benchmarks"][1]["samples"].get<int>(), 5);
  EXPECT_LT(doc["benchmarks"][1]["samples"].get<int>(), 1000);
  EXPECT_EQ(doc["figures"]["synthetic"]["measured"], 1);
  std::filesystem::remove_all(dir);
}

// Checks that are too noisy to judge, or expectations missed, are counted apart and do not fail the
// run unless --strict; the results file keeps the samples and the robust statistics.
TEST(Runner, InconclusiveAndFindingsAreCountedNotFailed) {
  char tmpl[] = "/tmp/bb_runner_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::filesystem::path dir = tmpl;
  Suite suite{"synthetic", "test suite", {counting_case(2)}, nullptr};
  suite.suite_checks = [](const std::vector<CaseResult>& results) {
    const CaseResult& r = results.at(0);
    // The kept samples are the case's, in the order taken.
    EXPECT_EQ(r.samples_s.size(), std::min<std::size_t>(r.summary.samples, kKeptSamples));
    EXPECT_GE(*std::min_element(r.samples_s.begin(), r.samples_s.end()), r.summary.min_s);
    const CheckHead law{"synthetic", "noisy", "x = 2 +/- 0.2", CheckKind::law, "x"};
    const CheckHead expected{"synthetic", "slow", "x >= 3", CheckKind::expectation, "x"};
    return std::vector<Check>{within(law, 2, Band::plus_minus(2, 0.2), {2, 1.5, 2.1, 0.95}),
                              at_least(expected, 3, {2, 1.9, 2.1, 0.95})};
  };
  RunOptions opts;
  opts.rule.min_samples = 3;
  opts.rule.min_time_s = 0;
  opts.rule.timeout_s = 0.01;
  opts.out_path = (dir / "r.json").string();
  opts.summary_path = (dir / "r.md").string();
  Environment env{query_host(), GpuStatus{}};
  opts.backend = Backend::host;
  const RunOutcome out = run_cases(select_cases({suite}, opts, env), opts, env);
  EXPECT_EQ(out.checks.inconclusive, 1);
  EXPECT_EQ(out.checks.below_expectation, 1);
  EXPECT_EQ(out.checks.fail, 0);
  EXPECT_FALSE(out.failed());
  EXPECT_TRUE(out.failed(true));

  std::ifstream in(opts.out_path);
  const auto doc = nlohmann::json::parse(in);
  const auto& b = doc["benchmarks"].at(0);
  const auto kept = b["samples_s"].get<std::vector<double>>();
  EXPECT_EQ(kept.size(), std::min<std::size_t>(b["samples"].get<std::size_t>(), kKeptSamples));
  // In the order taken, thinned in time beyond kKeptSamples: within [min_s, max_s], and spanning
  // it when all are kept.
  const auto [lo, hi] = std::minmax_element(kept.begin(), kept.end());
  EXPECT_GE(*lo, b["min_s"].get<double>());
  EXPECT_LE(*hi, b["max_s"].get<double>());
  if (kept.size() == b["samples"].get<std::size_t>()) {
    EXPECT_EQ(*lo, b["min_s"].get<double>());
    EXPECT_EQ(*hi, b["max_s"].get<double>());
  }
  EXPECT_LE(b["median_ci_low_s"].get<double>(), b["median_s"].get<double>());
  EXPECT_GE(b["median_ci_high_s"].get<double>(), b["median_s"].get<double>());
  EXPECT_GE(b["median_ci_coverage"].get<double>(), 0.75);  // ≥ 3 samples
  EXPECT_GE(b["rel_mad"].get<double>(), 0.0);
  std::map<std::string, std::string> verdicts, kinds;
  for (const auto& c : doc["checks"]) {
    verdicts[c["name"]] = c["verdict"];
    kinds[c["name"]] = c["kind"];
  }
  EXPECT_EQ(verdicts["noisy"], "INCONCLUSIVE");
  EXPECT_EQ(verdicts["slow"], "BELOW-EXPECTATION");
  EXPECT_EQ(kinds["slow"], "expectation");
  EXPECT_EQ(kinds["count/2/validate"], "law");
  std::ifstream md(opts.summary_path);
  const std::string text((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("### Findings"), std::string::npos) << text;
  std::filesystem::remove_all(dir);
}

TEST(StoppingRule, SweepPointRuleIsLighter) {
  const StoppingRule full;
  const StoppingRule s = full.for_sweep_point();
  EXPECT_EQ(s.min_samples, 5u);
  EXPECT_DOUBLE_EQ(s.min_time_s, full.min_time_s / 50);
  EXPECT_DOUBLE_EQ(s.timeout_s, 0.5);
  EXPECT_DOUBLE_EQ(s.max_rel_noise, full.max_rel_noise);
  EXPECT_DOUBLE_EQ(s.precision, full.precision);
  EXPECT_DOUBLE_EQ(StoppingRule::quick().for_sweep_point().timeout_s, 0.1);
}

}  // namespace
}  // namespace bb
