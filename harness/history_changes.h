// `boundbench history changes`: per case and machine, the commits where the case's run-level median
// stepped (change_points.h), the false-discovery rate held across every step of every case
// (Benjamini–Hochberg), each with its commit, ratio and interval, and whether it is a regression.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/change_points.h"
#include "harness/history_store.h"
#include "harness/regression.h"

namespace bb {

struct ChangeOptions {
  double alpha = 0.05;  // false discovery rate over all candidate steps
  StepOptions steps;
};

struct HistoryChange {
  std::string case_name, machine, commit, date;
  std::size_t index = 0;    // the commit's index among the machine's commits (first run of each)
  std::size_t commits = 0;  // commits in the machine's history: index == commits − 1 is the newest
  double ratio = 1, low = 1, high = 1;  // new/old time
  double q_value = 1;                   // BH-adjusted p
  bool slower() const { return ratio > 1; }
};

struct ChangeReport {
  std::size_t series = 0, points = 0;  // case series examined, run medians in them
  double fdr = 0.05;                   // the false discovery rate held (ChangeOptions::alpha)
  std::vector<HistoryChange> changes;  // by machine, case, index
};

ChangeReport find_history_changes(const History& h, const ChangeOptions& opts = {});

// {"changes": [{"case", "machine", "commit", "index", "ratio", "interval": [lo, hi],
// "direction": "slower"|"faster", "q_value", "date"}], "series", "points"}
nlohmann::json changes_json(const ChangeReport& r);
std::string changes_table(const ChangeReport& r);
std::string changes_markdown(const ChangeReport& r);

// Each case's spread between runs of `machine` (a machine id): the robust scale of the successive
// differences of its log run medians (change_points.h difference_noise: a few steps barely move
// it), with the number of runs; for `compare --db`.
std::map<std::string, BetweenRunSpread> between_run_spread(const History& h,
                                                           const std::string& machine);

// Whether a slower change falls in the last `n` commits of its machine.
bool regression_within(const ChangeReport& r, std::size_t n);

}  // namespace bb
