// `boundbench ab`: a base and a new build run alternately (ABBA…, each run a fresh process), each
// case judged on its per-round ratios new/base, so that what slows the machine for a while slows
// both sides of a round and cancels, and the spread between processes is measured, not assumed.
// Cases of one suite that move together round by round while the rounds disagree in direction are
// the machine (a shared resource: DRAM, a cache, the cores), not the code: said so, and not called.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace bb {

struct AbOptions {
  double threshold = 0.05;  // a change within ±5% is SAME
  double alpha = 0.05;      // false discovery rate over the cases, 1 − the intervals' confidence
  double together = 0.8;    // round-by-round correlation at which cases move together
};

struct AbCase {
  std::string name;
  std::vector<double> ratios;           // per round, new/base of the run medians
  double ratio = 1, low = 1, high = 1;  // geometric mean and its Student t interval
  double p_value = 1;                   // BH-adjusted p of "beyond ±threshold"
  std::string verdict;  // SAME, SLOWER, FASTER, AMBIGUOUS (too few rounds: NOT_ENOUGH_ROUNDS)
  std::string note;     // "moves with 3 other bandwidth cases round by round: the machine"
};

struct AbReport {
  std::size_t rounds = 0;
  std::vector<AbCase> cases;
  std::vector<std::string> notes;
  bool regressed() const;
};

// base[i] and next[i]: the results documents of round i. A case is judged on the rounds where both
// sides measured it; with fewer than 3 such rounds it is NOT_ENOUGH_ROUNDS.
AbReport judge_ab(const std::vector<nlohmann::json>& base, const std::vector<nlohmann::json>& next,
                  const AbOptions& opts = {});

std::string ab_table(const AbReport& r, const AbOptions& opts);
std::string ab_markdown(const AbReport& r, const AbOptions& opts);
nlohmann::json ab_json(const AbReport& r, const AbOptions& opts);

}  // namespace bb
