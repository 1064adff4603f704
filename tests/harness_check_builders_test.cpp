// Tests for the check vocabulary (harness/checks.h): the verdict follows from the measured interval
// and the band, for laws and expectations; the results file and the summaries carry it.
#include "harness/checks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "harness/fit.h"
#include "harness/results.h"
#include "harness/runner.h"
#include "harness/summary.h"

namespace bb {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

Interval ci(double value, double low, double high) { return {value, low, high, 0.95}; }

const CheckHead kLaw{"s", "c/exponent", "t ~ n^2", CheckKind::law, "exponent"};
const CheckHead kExpectation{"s", "c/speed", "GB/s >= 80% of STREAM", CheckKind::expectation,
                             "bandwidth"};

TEST(Judge, InsideOutsideStraddling) {
  const Band band = Band::plus_minus(2, 0.2);  // [1.8, 2.2]
  EXPECT_EQ(judge(CheckKind::law, band, ci(2, 1.9, 2.1)), Verdict::pass);
  EXPECT_EQ(judge(CheckKind::law, band, ci(2.5, 2.3, 2.7)), Verdict::fail);
  EXPECT_EQ(judge(CheckKind::law, band, ci(1.5, 1.4, 1.7)), Verdict::fail);
  EXPECT_EQ(judge(CheckKind::law, band, ci(1.75, 1.52, 2.10)), Verdict::inconclusive);
  EXPECT_EQ(judge(CheckKind::law, band, ci(2.1, 1.7, 2.5)), Verdict::inconclusive);  // covers it
  // The same numbers for an expectation: a miss is a finding.
  EXPECT_EQ(judge(CheckKind::expectation, band, ci(2.5, 2.3, 2.7)), Verdict::below_expectation);
  EXPECT_EQ(judge(CheckKind::expectation, band, ci(1.75, 1.52, 2.1)), Verdict::inconclusive);
  EXPECT_EQ(judge(CheckKind::expectation, band, ci(2, 1.9, 2.1)), Verdict::pass);
}

TEST(Judge, PointsAndEdges) {
  const Band band{1, 3};
  EXPECT_EQ(judge(CheckKind::law, band, Interval::point(1)), Verdict::pass);  // closed band
  EXPECT_EQ(judge(CheckKind::law, band, Interval::point(3)), Verdict::pass);
  EXPECT_EQ(judge(CheckKind::law, band, Interval::point(3.0001)), Verdict::fail);
  EXPECT_EQ(judge(CheckKind::law, band, Interval::point(kNaN)), Verdict::fail);
  EXPECT_EQ(judge(CheckKind::expectation, band, Interval::point(kNaN)), Verdict::below_expectation);
  // Unknown ends: judged as the point.
  EXPECT_EQ(judge(CheckKind::law, band, Interval{2, kNaN, kNaN, kNaN}), Verdict::pass);
  // Interval ends on the band's ends are inside; just past them, straddling.
  EXPECT_EQ(judge(CheckKind::law, band, ci(2, 1, 3)), Verdict::pass);
  EXPECT_EQ(judge(CheckKind::law, band, ci(2, 0.999, 3)), Verdict::inconclusive);
  EXPECT_EQ(judge(CheckKind::law, band, ci(0.5, 0.1, 0.999)), Verdict::fail);
}

TEST(Within, ReasonSaysTheNumbersAndTheJudgement) {
  const Check k = within(kLaw, 2, Band::plus_minus(2, 0.2), ci(1.75, 1.52, 2.10));
  EXPECT_EQ(k.verdict, Verdict::inconclusive);
  EXPECT_EQ(k.reason, "exponent 1.75 [1.52, 2.1] (95.0% CI), law 2 +/- 0.2: too noisy to judge");
  EXPECT_EQ(k.suite, "s");
  EXPECT_EQ(k.name, "c/exponent");
  EXPECT_EQ(k.kind, CheckKind::law);
  EXPECT_EQ(k.predicted, 2);
  EXPECT_EQ(k.measured, 1.75);
  EXPECT_EQ(k.interval.low, 1.52);
  EXPECT_EQ(k.band.low, 1.8);
  EXPECT_TRUE(std::isnan(k.tolerance));

  const Check pass = within(kLaw, 2, Band::relative(2, 0.1), ci(2.01, 1.95, 2.05));
  EXPECT_EQ(pass.verdict, Verdict::pass);
  EXPECT_TRUE(contains(pass.reason, "law 2 +/- 0.2: holds")) << pass.reason;
  const Check fail = within(kLaw, 2, Band{1.8, 2.5}, ci(3, 2.9, 3.1));
  EXPECT_EQ(fail.verdict, Verdict::fail);
  EXPECT_TRUE(contains(fail.reason, "law [1.8, 2.5]: violated")) << fail.reason;
}

TEST(OneSided, AtMostAtLeast) {
  const Check below = at_least(kExpectation, 80, ci(70, 65, 75));
  EXPECT_EQ(below.verdict, Verdict::below_expectation);
  EXPECT_EQ(below.reason, "bandwidth 70 [65, 75] (95.0% CI), expected >= 80: below expectation");
  EXPECT_TRUE(std::isinf(below.band.high));
  EXPECT_EQ(at_least(kExpectation, 80, ci(85, 79, 90)).verdict, Verdict::inconclusive);
  EXPECT_EQ(at_least(kExpectation, 80, ci(85, 81, 90)).verdict, Verdict::pass);

  const Check most = at_most(kLaw, 1e-3, Interval::point(4e-4));
  EXPECT_EQ(most.verdict, Verdict::pass);
  EXPECT_EQ(most.reason, "exponent 0.0004, law <= 0.001: holds");
  EXPECT_EQ(at_most(kLaw, 1e-3, Interval::point(2e-3)).verdict, Verdict::fail);
}

TEST(ExactCount, MismatchesMustBeZero) {
  const CheckHead head{"s", "c/validate", "mismatches == 0", CheckKind::law, "mismatches"};
  const Check pass = exact_count(head, 0, 0);
  EXPECT_EQ(pass.verdict, Verdict::pass);
  EXPECT_EQ(pass.reason, "mismatches 0, law == 0: holds");
  const Check fail = exact_count(head, 0, 3);
  EXPECT_EQ(fail.verdict, Verdict::fail);
  EXPECT_EQ(fail.measured, 3);
  EXPECT_EQ(fail.predicted, 0);
}

TEST(Fit, AnExponentWithItsInterval) {
  // t = n² · (1 + small noise): Theil–Sen's interval lies inside 2 ± 0.1.
  std::vector<double> n, t;
  const double noise[] = {0.01, -0.02, 0.015, 0, -0.01, 0.02, -0.015, 0.005};
  for (int i = 0; i < 8; ++i) {
    n.push_back(std::ldexp(1.0, 6 + i));
    t.push_back(n.back() * n.back() * (1 + noise[i]));
  }
  const RobustFit f = theil_sen_power_law_fit(n, t);
  const Check k = fit(kLaw, 2, Band::plus_minus(2, 0.1), f.slope_interval(), f.points);
  EXPECT_EQ(k.verdict, Verdict::pass) << k.reason;
  EXPECT_TRUE(contains(k.reason, "over 8 points, law 2 +/- 0.1: holds")) << k.reason;
  const Check tight = fit(kLaw, 2, Band::plus_minus(2, 0.001), f.slope_interval(), f.points);
  EXPECT_EQ(tight.verdict, Verdict::inconclusive) << tight.reason;
}

TEST(NoNumber, SkippedFaultAndPartialPass) {
  const Check s = skipped(kLaw, "no GPU");
  EXPECT_EQ(s.verdict, Verdict::skip);
  EXPECT_EQ(s.reason, "no GPU");
  EXPECT_TRUE(std::isnan(s.measured));
  const Check f = fault(kLaw, "threw");
  EXPECT_EQ(f.verdict, Verdict::fail);
  EXPECT_EQ(f.kind, CheckKind::law);

  const Check met = pass_proves_little(at_least(kLaw, 1, Interval::point(2)), "half a bound");
  EXPECT_EQ(met.verdict, Verdict::skip);
  EXPECT_TRUE(contains(met.reason, "holds; half a bound")) << met.reason;
  const Check beaten = pass_proves_little(at_least(kLaw, 1, Interval::point(0.5)), "half a bound");
  EXPECT_EQ(beaten.verdict, Verdict::fail);
}

TEST(Names, VerdictsAndKinds) {
  EXPECT_EQ(verdict_name(Verdict::inconclusive), "INCONCLUSIVE");
  EXPECT_EQ(verdict_name(Verdict::below_expectation), "BELOW-EXPECTATION");
  EXPECT_EQ(check_kind_name(CheckKind::law), "law");
  EXPECT_EQ(check_kind_name(CheckKind::expectation), "expectation");
  EXPECT_EQ(Check{}.kind, CheckKind::law);
}

TEST(CheckJson, KindIntervalAndBand) {
  const nlohmann::json j = to_json(at_least(kExpectation, 80, ci(70, 65, 75)));
  EXPECT_EQ(j["kind"], "expectation");
  EXPECT_EQ(j["verdict"], "BELOW-EXPECTATION");
  EXPECT_EQ(j["measured_low"], 65);
  EXPECT_EQ(j["measured_high"], 75);
  EXPECT_EQ(j["measured_coverage"], 0.95);
  EXPECT_EQ(j["band_low"], 80);
  EXPECT_TRUE(j["band_high"].is_null());  // one-sided
  const nlohmann::json point = to_json(exact_count(kLaw, 0, 0));
  EXPECT_EQ(point["measured_low"], 0);
  EXPECT_TRUE(point["measured_coverage"].is_null());
  // A check made without the builders has neither.
  const nlohmann::json plain = to_json(Check{});
  EXPECT_EQ(plain["kind"], "law");
  EXPECT_FALSE(plain.contains("measured_low"));
  EXPECT_FALSE(plain.contains("band_low"));
}

TEST(RunOutcome, StrictFailsOnInconclusiveAndFindings) {
  RunOutcome o;
  o.checks.pass = 3;
  EXPECT_FALSE(o.failed());
  EXPECT_FALSE(o.failed(true));
  o.checks.inconclusive = 1;
  EXPECT_FALSE(o.failed());
  EXPECT_TRUE(o.failed(true));
  o.checks.inconclusive = 0;
  o.checks.below_expectation = 1;
  EXPECT_FALSE(o.failed());
  EXPECT_TRUE(o.failed(true));
  o.checks.fail = 1;
  EXPECT_TRUE(o.failed());
}

TEST(Summary, FindingsListedOnTheirOwn) {
  const std::vector<Check> checks = {at_least(kExpectation, 80, ci(70, 65, 75)),
                                     within(kLaw, 2, Band::plus_minus(2, 0.2), ci(1.75, 1.5, 2.1)),
                                     exact_count(kLaw, 0, 0), skipped(kLaw, "no GPU")};
  const VerdictCounts n = count_verdicts(checks);
  EXPECT_EQ(n.pass, 1);
  EXPECT_EQ(n.fail, 0);
  EXPECT_EQ(n.inconclusive, 1);
  EXPECT_EQ(n.below_expectation, 1);
  EXPECT_EQ(n.skip, 1);
  const std::string f = findings_text(checks);
  EXPECT_TRUE(contains(f, "FINDINGS")) << f;
  EXPECT_TRUE(contains(f, "s/c/speed: bandwidth 70")) << f;
  EXPECT_FALSE(contains(f, "exponent")) << f;
  EXPECT_EQ(findings_text({exact_count(kLaw, 0, 0)}), "");

  nlohmann::json results = {{"context",
                             {{"boundbench",
                               {{"git_commit", "abc"},
                                {"date", "2026-01-01T00:00:00Z"},
                                {"host", {{"cpu_model", "cpu"}}},
                                {"gpus", {{"usable", false}, {"reason", "none"}}}}}}}};
  const std::string md = markdown_summary({}, checks, results);
  EXPECT_TRUE(contains(md, "### Findings")) << md;
  EXPECT_TRUE(contains(md, "1 PASS, 0 FAIL, 1 INCONCLUSIVE, 1 BELOW-EXPECTATION, 1 SKIP")) << md;
  EXPECT_TRUE(contains(md, "| BELOW-EXPECTATION | expectation | s/c/speed |")) << md;
  EXPECT_TRUE(contains(md, "| INCONCLUSIVE | law | s/c/exponent |")) << md;
  EXPECT_LT(md.find("| BELOW-EXPECTATION | expectation"), md.find("| INCONCLUSIVE | law"));
}

}  // namespace
}  // namespace bb
