// `boundbench compare`: two results files, case by case — median change, both runs' noise, a rank
// test over repetitions where there are some (Mann-Whitney U, as Google Benchmark's compare.py),
// and a verdict; check verdicts that changed come first.
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

namespace bb {

// Reads a boundbench results file; throws std::invalid_argument "FILE: problem" for a missing file,
// invalid or truncated JSON, another tool's JSON, a schema version it does not read (it reads 1
// and 2), no measured case, or a
// case name that appears twice in one repetition.
nlohmann::json load_results(const std::string& path);

// Two-sided p-value of the Mann-Whitney U test (normal approximation with tie and continuity
// corrections, as scipy's method="asymptotic"). NaN when either side has fewer than 2 values.
double mann_whitney_p(std::span<const double> a, std::span<const double> b);

struct CompareOptions {
  double threshold = 0.05;  // a change within ±5% is SAME
  double alpha = 0.05;      // rank-test significance
  bool cross_device = false;
};

struct CaseDelta {
  std::string name;
  double base = 0, next = 0;  // median time (s), or % of bound with --cross-device
  double change = 0;          // (next − base) / base in time: > 0 is slower
  double base_noise = 0, next_noise = 0;
  double p_value = 0;   // NaN without repetitions on both sides
  std::string verdict;  // SAME, FASTER, SLOWER, AMBIGUOUS, NO_BOUND
};

struct CheckChange {
  std::string name;        // suite/check
  std::string base, next;  // verdicts; "-" when absent
};

struct RunComparison {
  std::string base_device, next_device;
  // Worse first: → FAIL, → BELOW-EXPECTATION, → INCONCLUSIVE, then the rest. Only a check that
  // turned FAIL is a regression; one too noisy to judge (INCONCLUSIVE) or a finding is not.
  std::vector<CheckChange> check_changes;
  std::vector<CaseDelta> cases;
  std::vector<std::string> only_in_base, only_in_next;
  bool regressed() const;
};

// Throws std::invalid_argument when the runs cannot be compared: different schema versions, or
// different devices without `cross_device`.
RunComparison compare_runs(const nlohmann::json& base, const nlohmann::json& next,
                           const CompareOptions& opts);

std::string comparison_table(const RunComparison& c, const CompareOptions& opts);
std::string comparison_markdown(const RunComparison& c, const CompareOptions& opts);
nlohmann::json comparison_json(const RunComparison& c, const CompareOptions& opts);

}  // namespace bb
