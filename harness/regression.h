// `boundbench compare`: two results files, case by case — the ratio new/base of the medians with a
// confidence interval from both runs' samples (harness/change_interval.h), the false discovery rate
// held over all cases (Benjamini–Hochberg), and a verdict; check verdicts that changed come first.
// The runs must come from the same machine (harness/fingerprint.h) unless cross_device, which
// compares each case's % of its own device's bound. Files without samples (schema 1) are compared
// by the old rule (the change against both runs' noise, or a rank test over repetitions).
#pragma once

#include <cmath>
#include <limits>
#include <map>
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

// A case's spread between runs of one machine, as a history store measured it (log units: the
// robust scale of successive run medians' differences; history_changes.h between_run_spread).
struct BetweenRunSpread {
  double log_sd = 0;
  std::size_t runs = 0;
};

struct CompareOptions {
  double threshold = 0.05;  // a change within ±5% is SAME
  double alpha = 0.05;      // false discovery rate (and 1 − the intervals' confidence)
  bool cross_device = false;
  // By case name, from `compare --db`: where known, each case's interval is widened by √2 times
  // its own spread between runs (two runs, each with its own run effect), Student's t with
  // runs − 1 degrees of freedom, when that is wider than the run-level noise of this pair.
  std::map<std::string, BetweenRunSpread> between_runs;
};

struct CaseDelta {
  std::string name;
  double base = 0, next = 0;  // median time (s), or % of bound with --cross-device
  double change = 0;          // (next − base) / base in time: > 0 is slower
  double base_noise = 0, next_noise = 0;
  // With the old rule, the rank test over repetitions (NaN without); from samples, the
  // Benjamini–Hochberg adjusted p-value of "beyond ±threshold".
  double p_value = 0;
  // The change's interval from samples, (ratio − 1) at 1 − alpha; NaN with the old rule.
  double change_low = std::numeric_limits<double>::quiet_NaN();
  double change_high = std::numeric_limits<double>::quiet_NaN();
  // SAME, FASTER, SLOWER, AMBIGUOUS; NO_BOUND (cross-device, a side without a bound) and
  // NOT_COMPARABLE (same device, params differ) carry no numbers.
  std::string verdict;
  std::string note;  // "params differ: …", "no samples: old rule", "no bound in base"
  bool from_samples() const { return !std::isnan(change_low); }
  bool has_values() const { return verdict != "NO_BOUND" && verdict != "NOT_COMPARABLE"; }
};

struct CheckChange {
  std::string name;        // suite/check
  std::string base, next;  // verdicts; "-" when absent
};

struct RunComparison {
  std::string base_device, next_device;
  std::string base_label, next_label;            // context.boundbench.label, else the device
  std::vector<std::string> machine_differences;  // fingerprint fields that differ (cross-device)
  std::vector<std::string> notes;
  // The cases' scatter beyond their own intervals (log units; change_interval.h), added to each
  // interval; 0 when none or too few cases. Its tails: Student's t with this ν (∞: normal).
  double run_noise = 0;
  double run_noise_dof = std::numeric_limits<double>::infinity();
  // Worse first: → FAIL, → BELOW-EXPECTATION, → INCONCLUSIVE, then the rest. Only a check that
  // turned FAIL is a regression; one too noisy to judge (INCONCLUSIVE) or a finding is not.
  std::vector<CheckChange> check_changes;
  std::vector<CaseDelta> cases;
  std::vector<std::string> only_in_base, only_in_next;
  bool regressed() const;
};

// Throws std::invalid_argument, one line, when the runs cannot be compared: their machine
// fingerprints differ (naming the fields) without `cross_device`.
RunComparison compare_runs(const nlohmann::json& base, const nlohmann::json& next,
                           const CompareOptions& opts);

std::string comparison_table(const RunComparison& c, const CompareOptions& opts);
std::string comparison_markdown(const RunComparison& c, const CompareOptions& opts);
nlohmann::json comparison_json(const RunComparison& c, const CompareOptions& opts);

}  // namespace bb
