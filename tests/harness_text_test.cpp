// The harness's text, pinned byte for byte: check reasons, mismatch lines and the compare table
// are read by people and by scripts, so a change of formatter must not change a character
// (printf's %g, %.3g, %+8.1f, %-44s; infinities and NaN padded as printf pads them).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "harness/compare.h"
#include "harness/measure.h"
#include "harness/measured_info.h"
#include "harness/regression.h"
#include "harness/summary.h"

namespace bb {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(Text, ValidationReason) {
  const std::vector<double> out = {1, 2, 3.5}, ref = {1, 2, 4};
  const Check k = validation_check("s", "c", compare<double, double>(out, ref, {1e-6, 1e-3}));
  EXPECT_EQ(k.reason,
            "atol 1e-06, rtol 0.001: 1/3 mismatches, max abs error 0.5, max rel error 0.125; "
            "i=2: out=3.5 ref=4");
  Comparison trivial;
  trivial.checked = 4;
  trivial.max_abs_error = kInf;
  trivial.max_rel_error = kNaN;
  trivial.reference_trivial = true;
  EXPECT_EQ(trivial.describe(),
            "0/4 mismatches, max abs error inf, max rel error nan, reference output is trivial "
            "(all equal)");
}

TEST(Text, RooflineAndClockReasons) {
  Work w;
  w.bytes_read = 1e9;
  w.memory_level = "dram";
  Bounds b;
  b.bandwidth_bytes_per_s = 1e12;
  b.bandwidth_source = "the datasheet";
  Summary s;
  s.min_s = 2.5e-3;
  EXPECT_EQ(roofline_check("s", "c", w, b, s, 0.05).reason,
            "bound 0.001 s, fastest sample 0.0025 s (40.0% of bound speed); memory-bound, BW "
            "from the datasheet");
  Measurement m;
  m.clock_start_hz = 1980.4e6;
  m.clock_end_hz = 1755.5e6;
  EXPECT_EQ(clock_check("s", "c", m).reason,
            "SM clock 1980 MHz before, 1756 MHz after; no sustained clock known: not judged");
  m.clock_reference_hz = 1755e6;
  m.clock_reference_source = "NVML applications clock";
  m.clock_reasons_known = true;
  EXPECT_EQ(clock_check("s", "c", m).reason,
            "SM clock 1980 MHz before, 1756 MHz after; sustained 1755 MHz (NVML applications "
            "clock); NVML clock events: none");
}

TEST(Text, CompareTable) {
  RunComparison c;
  c.base_device = c.next_device = c.base_label = c.next_label = "H200";
  CaseDelta slower;
  slower.name = "bandwidth/copy/fp32/cuda";
  slower.base = 1.5e-3;
  slower.next = 1.8e-3;
  slower.change = 0.2;
  slower.change_low = 0.15;
  slower.change_high = 0.251;
  slower.p_value = 0.0412;
  slower.verdict = "SLOWER";
  CaseDelta old_rule;
  old_rule.name = "a";
  old_rule.base = 2.0;
  old_rule.next = 1.0;
  old_rule.change = -0.5;
  old_rule.p_value = kNaN;
  old_rule.verdict = "FASTER";
  old_rule.note = "no samples: old rule";
  CaseDelta params;
  params.name = "b";
  params.p_value = kNaN;
  params.verdict = "NOT_COMPARABLE";
  params.note = "not comparable: params differ: n 1 vs 2";
  c.cases = {slower, old_rule, params};
  EXPECT_EQ(
      comparison_table(c, {}),
      "case                                                 base          new    change"
      "       95% interval  p (FDR)  verdict\n"
      "bandwidth/copy/fp32/cuda                           1.5 ms       1.8 ms    +20.0%"
      "   [+15.0%, +25.1%]   0.0412  SLOWER\n"
      "a                                                     2 s          1 s    -50.0%"
      "                  -        -  FASTER (no samples: old rule)\n"
      "b                                                       -            -         -"
      "                  -        -  NOT_COMPARABLE (not comparable: params differ: n 1 vs 2)\n"
      "REGRESSED\n");
}

TEST(Text, MarkdownCellsTotalsAndSkips) {
  EXPECT_EQ(markdown_cell("|out - ref| <= tol\nnext"), "\\|out - ref\\| <= tol next");
  const auto check = [](std::string suite, std::string name, Verdict v, std::string reason) {
    Check c;
    c.suite = std::move(suite);
    c.name = std::move(name);
    c.law = "|x| <= 1";
    c.verdict = v;
    c.reason = std::move(reason);
    return c;
  };
  const std::vector<Check> checks = {check("s", "a/validate", Verdict::pass, "max |err| 0"),
                                     check("s", "a/roofline", Verdict::skip, "peak unknown"),
                                     check("s", "b/roofline", Verdict::skip, "peak unknown"),
                                     check("t", "c/roofline", Verdict::skip, "peak unknown"),
                                     check("t", "c/speed", Verdict::below_expectation, "slow"),
                                     check("t", "d/x", Verdict::skip, "other")};
  EXPECT_EQ(markdown_totals(checks),
            "| suite | PASS | FAIL | INCONCLUSIVE | BELOW-EXPECTATION | SKIP |\n"
            "|---|---:|---:|---:|---:|---:|\n"
            "| s | 1 | 0 | 0 | 0 | 2 |\n"
            "| t | 0 | 0 | 0 | 1 | 2 |\n"
            "| **all** | 1 | 0 | 0 | 1 | 4 |\n");
  const nlohmann::json results = {{"context",
                                   {{"boundbench",
                                     {{"git_commit", "abc"},
                                      {"date", "d"},
                                      {"host", {{"cpu_model", "cpu"}}},
                                      {"gpus", {{"usable", false}, {"reason", "none"}}}}}}}};
  const std::string md = markdown_summary({}, checks, results);
  EXPECT_NE(md.find("| PASS | law | s/a/validate | `\\|x\\| <= 1` | max \\|err\\| 0 |\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| 3 | s/a/roofline and 2 more | peak unknown |\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| 1 | t/d/x | other |\n"), std::string::npos) << md;
  EXPECT_EQ(md.find("| SKIP | law |"), std::string::npos) << md;
}

TEST(Text, MeasuredHierarchy) {
  const nlohmann::json results = {
      {"context", {{"boundbench", {{"date", "2026-01-02T03:04:05Z"}, {"git_commit", "abc"}}}}},
      {"figures",
       {{"bandwidth",
         {{"host",
           {{"stream_best", {{"bytes_per_s", 40.56e9}, {"case", "triad"}, {"pct_of_peak", 62.5}}},
            {"dram_latency_ns", 93.75},
            {"ceilings",
             {{"fp32",
               {{"flop_per_s", 1.2345e12},
                {"bytes_per_s", 4e10},
                {"ridge_flop_per_byte", 30.8625}}}}}}}}}}}};
  EXPECT_EQ(measured_hierarchy_text(results),
            "measured (2026-01-02T03:04:05Z, commit abc):\n"
            "  host:\n"
            "    best STREAM 40.56 GB/s (triad), 62.5% of the DRAM peak\n"
            "    DRAM latency 93.75 ns\n"
            "    fp32 ceilings: 1234 GFLOP/s, 40 GB/s, ridge 30.9 flop/byte\n");
}

}  // namespace
}  // namespace bb
