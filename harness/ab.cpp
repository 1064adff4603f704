#include "harness/ab.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>
#include <boost/math/distributions/students_t.hpp>

#include "harness/change_interval.h"
#include "harness/json_fields.h"
#include "harness/stats.h"

namespace bb {
namespace {

using json = nlohmann::json;

// Each case's run median (the median over repetitions) in one results document.
std::map<std::string, double> medians(const json& doc) {
  std::map<std::string, std::vector<double>> reps;
  for (const auto& b : doc.value("benchmarks", json::array()))
    if (measured_entry(b))
      reps[b.at("name").get<std::string>()].push_back(b["median_s"].get<double>());
  std::map<std::string, double> out;
  for (auto& [name, v] : reps) out[name] = median_of(std::move(v));
  return out;
}

double pearson(const std::vector<double>& a, const std::vector<double>& b) {
  const std::size_t n = std::min(a.size(), b.size());
  if (n < 3) return 0;
  double ma = 0, mb = 0;
  for (std::size_t i = 0; i < n; ++i) {
    ma += a[i];
    mb += b[i];
  }
  ma /= static_cast<double>(n);
  mb /= static_cast<double>(n);
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0;
}

std::string suite_of(const std::string& name) { return name.substr(0, name.find('/')); }

std::string percent(double ratio) { return fmt::format("{:+.1f}%", 100 * (ratio - 1)); }

// The geometric mean of per-round ratios (log ratios `d`), its Student t interval at 1 − alpha,
// and the doubled smaller one-sided p-value of "beyond +threshold" / "beyond −threshold".
struct Judged {
  double ratio = 1, low = 1, high = 1, p = 1;
};
Judged judge_rounds(const std::vector<double>& d, const AbOptions& opts) {
  const std::size_t n = d.size();
  double mean = 0;
  for (const double v : d) mean += v;
  mean /= static_cast<double>(n);
  double ss = 0;
  for (const double v : d) ss += (v - mean) * (v - mean);
  const double dof = static_cast<double>(n - 1);
  const double se = std::max(std::sqrt(ss / dof / static_cast<double>(n)), 1e-6);
  const boost::math::students_t t(dof);
  const double q = boost::math::quantile(t, 1 - opts.alpha / 2);
  const double up = std::log(1 + opts.threshold), down = std::log(1 - opts.threshold);
  const double p_slower = boost::math::cdf(boost::math::complement(t, (mean - up) / se));
  const double p_faster = boost::math::cdf(t, (mean - down) / se);
  return {std::exp(mean), std::exp(mean - q * se), std::exp(mean + q * se),
          std::min(1.0, 2 * std::min(p_slower, p_faster))};
}

}  // namespace

bool AbReport::regressed() const {
  return std::any_of(cases.begin(), cases.end(),
                     [](const AbCase& c) { return c.verdict == "SLOWER"; });
}

AbReport judge_ab(const std::vector<json>& base, const std::vector<json>& next,
                  const AbOptions& opts) {
  AbReport r;
  r.rounds = std::min(base.size(), next.size());
  // Per case, the log ratio of each round where both sides measured it (rounds in order; a round
  // missing the case leaves a gap, which the correlation below skips by requiring full rounds).
  std::map<std::string, std::vector<double>> logs;
  std::map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < r.rounds; ++i) {
    const auto a = medians(base[i]), b = medians(next[i]);
    for (const auto& [name, m] : a)
      if (const auto it = b.find(name); it != b.end()) {
        logs[name].push_back(std::log(it->second / m));
        ++seen[name];
      }
  }
  std::vector<double> p;
  for (const auto& [name, d] : logs) {
    AbCase c;
    c.name = name;
    for (const double v : d) c.ratios.push_back(std::exp(v));
    const std::size_t n = d.size();
    if (n < 3) {
      c.verdict = "NOT_ENOUGH_ROUNDS";
      c.note = fmt::format("{} paired round(s): 3 are needed", n);
      r.cases.push_back(c);
      p.push_back(std::nan(""));
      continue;
    }
    const Judged j = judge_rounds(d, opts);
    c.ratio = j.ratio;
    c.low = j.low;
    c.high = j.high;
    p.push_back(j.p);
    r.cases.push_back(c);
  }
  const std::vector<double> adjusted = benjamini_hochberg(p);
  for (std::size_t i = 0; i < r.cases.size(); ++i) {
    AbCase& c = r.cases[i];
    if (!c.verdict.empty()) continue;
    c.p_value = adjusted[i];
    const bool called = c.p_value <= opts.alpha;
    if (called && c.low > 1 + opts.threshold)
      c.verdict = "SLOWER";
    else if (called && c.high < 1 - opts.threshold)
      c.verdict = "FASTER";
    else if (c.low >= 1 - opts.threshold && c.high <= 1 + opts.threshold)
      c.verdict = "SAME";
    else
      c.verdict = "AMBIGUOUS";
  }
  // The machine: a case not SAME that moves round by round with at least two other cases of its
  // suite (correlation ≥ `together`) shares a resource with them that the pairing did not cancel.
  // It is judged again on its rounds less its partners' median of the same round: what is left
  // is its own change. Called only when that is beyond the threshold too, or when the partners
  // did not move as a whole (the geometric mean of their shared change within the threshold: a
  // swing that comes and goes round by round explains no change of the case's own); else the
  // shared swing is the machine (or a change to the whole group), and it is AMBIGUOUS, with that
  // said. (On this project's VM, 20 A/B invocations with a case doing 1.2x the work: one called
  // AMBIGUOUS for five correlated rounds whose partners' shared change was +0.8% [-15%, +19%];
  // results/ab_bench/.)
  const std::size_t full = r.rounds;
  const auto logs_of = [](const AbCase& c) {
    std::vector<double> v(c.ratios.size());
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::log(c.ratios[i]);
    return v;
  };
  std::vector<std::string> verdicts(r.cases.size());
  std::vector<std::string> notes(r.cases.size());
  for (std::size_t k = 0; k < r.cases.size(); ++k) {
    const AbCase& c = r.cases[k];
    verdicts[k] = c.verdict;
    notes[k] = c.note;
    if (c.verdict == "SAME" || c.verdict == "NOT_ENOUGH_ROUNDS" || c.ratios.size() != full)
      continue;
    const std::vector<double> mine = logs_of(c);
    std::vector<std::vector<double>> partners;
    for (const AbCase& o : r.cases) {
      if (&o == &c || o.ratios.size() != full || suite_of(o.name) != suite_of(c.name)) continue;
      std::vector<double> theirs = logs_of(o);
      if (pearson(mine, theirs) >= opts.together) partners.push_back(std::move(theirs));
    }
    if (partners.size() < 2) continue;
    std::vector<double> own(full), group(full);
    for (std::size_t i = 0; i < full; ++i) {
      std::vector<double> at;
      for (const auto& v : partners) at.push_back(v[i]);
      group[i] = median_of(std::move(at));
      own[i] = mine[i] - group[i];
    }
    const Judged rest = judge_rounds(own, opts), shared = judge_rounds(group, opts);
    const bool beyond =
        rest.p <= opts.alpha && (rest.low > 1 + opts.threshold || rest.high < 1 - opts.threshold);
    const bool group_still =
        shared.ratio <= 1 + opts.threshold && shared.ratio >= 1 - opts.threshold;
    if (!beyond && group_still && c.verdict != "AMBIGUOUS") {
      notes[k] = fmt::format(
          "moves with {} other {} cases round by round, but they did not move as a whole "
          "(together {} [{}, {}]): its own change",
          partners.size(), suite_of(c.name), percent(shared.ratio), percent(shared.low),
          percent(shared.high));
    } else if (beyond) {
      notes[k] =
          fmt::format("moves with {} other {} cases round by round; beyond them by {} [{}, {}]",
                      partners.size(), suite_of(c.name), percent(rest.ratio), percent(rest.low),
                      percent(rest.high));
    } else {
      verdicts[k] = "AMBIGUOUS";
      notes[k] = fmt::format(
          "moves with {} other {} cases round by round (together {} [{}, {}]), not beyond them: "
          "a shared resource, the machine (or a change to the whole group), not this case",
          partners.size(), suite_of(c.name), percent(shared.ratio), percent(shared.low),
          percent(shared.high));
    }
  }
  for (std::size_t k = 0; k < r.cases.size(); ++k) {
    r.cases[k].verdict = verdicts[k];
    r.cases[k].note = notes[k];
  }
  if (r.rounds < 3)
    r.notes.push_back(fmt::format("{} round(s): at least 3 are needed to judge", r.rounds));
  return r;
}

std::string ab_table(const AbReport& r, const AbOptions& o) {
  std::string s = fmt::format(
      "A/B: {} rounds (ABBA order, a fresh process each), threshold {:.1f}%, "
      "FDR {:.0f}%: {}\n",
      r.rounds, 100 * o.threshold, 100 * o.alpha, r.regressed() ? "REGRESSED" : "no regression");
  for (const auto& n : r.notes) s += "note: " + n + "\n";
  for (const auto& c : r.cases) {
    s += fmt::format("  {:<48} {:>8} [{}, {}] q={:.2g} {}", c.name, percent(c.ratio),
                     percent(c.low), percent(c.high), c.p_value, c.verdict);
    if (!c.note.empty()) s += "  (" + c.note + ")";
    s += "\n";
  }
  return s;
}

std::string ab_markdown(const AbReport& r, const AbOptions& o) {
  std::string s = fmt::format(
      "## boundbench ab\n\n{} rounds, ABBA order, each run a fresh process; threshold {:.1f}%, "
      "false discovery rate {:.0f}%. {}\n\n| case | change | interval | q | verdict | note |\n"
      "|---|---:|---:|---:|---|---|\n",
      r.rounds, 100 * o.threshold, 100 * o.alpha,
      r.regressed() ? "**Regressed.**" : "No regression.");
  for (const auto& c : r.cases)
    s += fmt::format("| {} | {} | [{}, {}] | {:.2g} | {} | {} |\n", c.name, percent(c.ratio),
                     percent(c.low), percent(c.high), c.p_value, c.verdict, c.note);
  return s;
}

json ab_json(const AbReport& r, const AbOptions& o) {
  json cases = json::array();
  for (const auto& c : r.cases)
    cases.push_back({{"case", c.name},
                     {"ratios", c.ratios},
                     {"ratio", c.ratio},
                     {"interval", {c.low, c.high}},
                     {"p_value", c.p_value},
                     {"verdict", c.verdict},
                     {"note", c.note}});
  return {{"rounds", r.rounds},         {"threshold", o.threshold}, {"alpha", o.alpha},
          {"regressed", r.regressed()}, {"notes", r.notes},         {"cases", cases}};
}

}  // namespace bb
