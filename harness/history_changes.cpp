#include "harness/history_changes.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include <fmt/format.h>

#include "harness/change_interval.h"

namespace bb {
namespace {

using json = nlohmann::json;

std::string cell(const std::string& s) {
  std::string out;
  for (const char ch : s) {
    if (ch == '|') out += '\\';
    out += ch;
  }
  return out;
}

std::string percent(double ratio) { return fmt::format("{:+.1f}%", 100 * (ratio - 1)); }

}  // namespace

ChangeReport find_history_changes(const History& h, const ChangeOptions& opts) {
  // Commit index per machine run: the count of commit changes before it.
  std::vector<std::vector<std::size_t>> commit_index(h.machines.size());
  for (std::size_t m = 0; m < h.machines.size(); ++m) {
    const auto& commits = h.machines[m].commits;
    auto& idx = commit_index[m];
    idx.resize(commits.size());
    for (std::size_t i = 0; i < commits.size(); ++i)
      idx[i] = i == 0 ? 0 : idx[i - 1] + (commits[i] != commits[i - 1]);
  }
  ChangeReport r;
  r.fdr = opts.alpha;
  std::vector<HistoryChange> candidates;
  std::vector<double> p;
  std::vector<double> x;
  std::vector<std::uint8_t> can_split;
  for (const CaseSeries& s : h.cases) {
    const MachineRuns& m = h.machines[s.machine];
    x.clear();
    can_split.clear();
    for (std::size_t i = 0; i < s.run.size(); ++i) {
      if (!(s.median_s[i] > 0)) continue;
      x.push_back(std::log(s.median_s[i]));
      // A step only between commits: runs of one commit are one distribution.
      can_split.push_back(i > 0 && m.commits[s.run[i]] != m.commits[s.run[i - 1]]);
    }
    ++r.series;
    r.points += x.size();
    // Each series is at least one hypothesis ("it did not change"): one without a candidate step
    // counts with p = 1, so that screening by the penalty does not shrink the false-discovery
    // rate's denominator to the candidates alone.
    const std::vector<Step> steps = find_steps(x, can_split, opts.steps);
    if (steps.empty()) {
      candidates.emplace_back();
      p.push_back(1.0);
    }
    for (const Step& st : steps) {
      const std::uint32_t run = s.run[st.position];
      HistoryChange c;
      c.case_name = s.name;
      c.machine = m.machine;
      c.commit = m.commits[run];
      c.date = m.dates[run];
      c.index = commit_index[s.machine][run];
      c.commits = commit_index[s.machine].empty() ? 0 : commit_index[s.machine].back() + 1;
      c.ratio = st.ratio;
      c.low = st.low;
      c.high = st.high;
      candidates.push_back(c);
      p.push_back(st.p_value);
    }
  }
  const std::vector<double> q = benjamini_hochberg(p);
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (q[i] <= opts.alpha && !candidates[i].case_name.empty()) {
      candidates[i].q_value = q[i];
      r.changes.push_back(candidates[i]);
    }
  std::sort(r.changes.begin(), r.changes.end(), [](const auto& a, const auto& b) {
    return std::tie(a.machine, a.case_name, a.index) < std::tie(b.machine, b.case_name, b.index);
  });
  return r;
}

json changes_json(const ChangeReport& r) {
  json list = json::array();
  for (const auto& c : r.changes)
    list.push_back({{"case", c.case_name},
                    {"machine", c.machine},
                    {"commit", c.commit},
                    {"index", c.index},
                    {"date", c.date},
                    {"ratio", c.ratio},
                    {"interval", {c.low, c.high}},
                    {"direction", c.slower() ? "slower" : "faster"},
                    {"q_value", c.q_value}});
  return {{"changes", list}, {"series", r.series}, {"points", r.points}, {"fdr", r.fdr}};
}

std::string changes_table(const ChangeReport& r) {
  std::string s = fmt::format("{} change point(s) in {} case series ({} run medians), FDR {:g}%\n",
                              r.changes.size(), r.series, r.points, 100 * r.fdr);
  for (const auto& c : r.changes)
    s += fmt::format("  {:<44} {} commit {:.12} (#{} of {}) {:>8} [{}, {}] {} q={:.2g}\n",
                     c.case_name, c.machine.substr(0, 8), c.commit, c.index, c.commits,
                     percent(c.ratio), percent(c.low), percent(c.high),
                     c.slower() ? "SLOWER" : "FASTER", c.q_value);
  return s;
}

std::string changes_markdown(const ChangeReport& r) {
  std::string s = fmt::format(
      "## boundbench history changes\n\n{} change point(s) in {} case series ({} run medians); "
      "false discovery rate {:g}%.\n\n",
      r.changes.size(), r.series, r.points, 100 * r.fdr);
  if (r.changes.empty()) return s;
  s += "| case | machine | commit | index | change | interval | direction |\n";
  s += "|---|---|---|---:|---:|---:|---|\n";
  for (const auto& c : r.changes)
    s += fmt::format("| {} | {} | {:.12} | {} of {} | {} | [{}, {}] | {} |\n", cell(c.case_name),
                     c.machine.substr(0, 8), c.commit, c.index, c.commits, percent(c.ratio),
                     percent(c.low), percent(c.high), c.slower() ? "slower" : "faster");
  return s;
}

std::map<std::string, BetweenRunSpread> between_run_spread(const History& h,
                                                           const std::string& machine) {
  std::map<std::string, BetweenRunSpread> out;
  std::vector<double> x;
  for (const CaseSeries& s : h.cases) {
    if (h.machines[s.machine].machine != machine) continue;
    x.clear();
    for (const double m : s.median_s)
      if (m > 0) x.push_back(std::log(m));
    if (x.size() >= 3) out[s.name] = {difference_noise(x), x.size()};
  }
  return out;
}

bool regression_within(const ChangeReport& r, std::size_t n) {
  return std::any_of(r.changes.begin(), r.changes.end(), [&](const HistoryChange& c) {
    return c.slower() && c.index + n >= c.commits;
  });
}

}  // namespace bb
