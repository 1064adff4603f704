// What a person reads: one line per case as it finishes, a table at the end, a markdown summary
// for CI job pages, and the results file's context.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/case.h"

namespace bb {

struct RunOptions;
struct Environment;

struct SummaryRow {
  std::string name;  // "suite/case"
  std::string error;
  double median_s = 0, bytes_per_s = 0, rel_noise = 0;
  double rel_mad = 0;                                // robust noise, 1.4826 MAD / median
  double median_ci_low_s = 0, median_ci_high_s = 0;  // the median's interval
  double median_ci_coverage = 0;
  double pct_of_peak_bandwidth = -1, pct_of_bound = -1;  // -1: unknown
  std::size_t samples = 0;
  // The case's limiter and its fraction of the bound (harness/bound.h), with the speed-of-light
  // class; empty, -1: no bound here.
  std::string limiter, speed_of_light;
  double bound_fraction = -1;
  std::string verdicts;  // "validate PASS, roofline SKIP"
};

SummaryRow summary_row(const nlohmann::json& entry, const std::vector<Check>& checks);
// The limiter, fraction and speed-of-light class of the entry's `bound`, where it has one.
void set_bound(SummaryRow& row, const nlohmann::json& entry);
void print_case_line(const SummaryRow& row);
void print_summary(const std::vector<SummaryRow>& rows, const std::vector<Check>& checks,
                   double elapsed_s);
// Checks by verdict, and the findings (BELOW-EXPECTATION) listed on their own.
struct VerdictCounts {
  int pass = 0, fail = 0, skip = 0, inconclusive = 0, below_expectation = 0;
};
VerdictCounts count_verdicts(const std::vector<Check>& checks);
// "checks: 3 passed, 0 failed, 1 inconclusive, 0 below expectation, 0 skipped"
std::string verdict_counts_text(const VerdictCounts& n);
std::string findings_text(const std::vector<Check>& checks);  // empty when there are none
// A markdown table cell: `|` escaped (GitHub's tables split on it, even inside code spans),
// line breaks as spaces.
std::string markdown_cell(const std::string& text);
// Per suite: "| suite | PASS | FAIL | INCONCLUSIVE | BELOW-EXPECTATION | SKIP |" rows, a total
// last.
std::string markdown_totals(const std::vector<Check>& checks);
std::string markdown_summary(const std::vector<SummaryRow>& rows, const std::vector<Check>& checks,
                             const nlohmann::json& results);

// The `context` object: Google Benchmark's fields plus a `boundbench` object (schema version, git
// commit, build, command line, date, host, GPUs, options).
nlohmann::json make_context(const RunOptions& opts, const Environment& env);

}  // namespace bb
