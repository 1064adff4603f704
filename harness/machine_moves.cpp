#include "harness/machine_moves.h"

#include <cmath>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "harness/stats.h"

namespace bb {

std::string shared_resource(const nlohmann::json& b) {
  if (const auto it = b.find("bound"); it != b.end() && it->is_object()) {
    const auto l = it->find("limiter");
    if (l != it->end() && l->is_string() && !l->get<std::string>().empty())
      return l->get<std::string>();
  }
  const std::string name = b.value("name", "");
  return "suite " + name.substr(0, name.find('/'));
}

void mark_machine_moves(RunComparison& c, const nlohmann::json& base, const CompareOptions& opts,
                        std::size_t min_partners) {
  std::map<std::string, std::string> resource;
  for (const auto& b : base.value("benchmarks", nlohmann::json::array()))
    if (b.contains("name")) resource.emplace(b["name"].get<std::string>(), shared_resource(b));
  const auto resource_of = [&](const std::string& name) {
    const auto it = resource.find(name);
    return it == resource.end() ? std::string() : it->second;
  };
  const double up = std::log1p(opts.threshold), down = std::log1p(-opts.threshold);
  // Not applied when the run's median change over all cases is itself beyond the threshold that
  // way: the whole run moved, which is the run-level question (the note "the run as a whole"),
  // and every case ×1.2 is still called.
  std::vector<double> all;
  for (const CaseDelta& o : c.cases)
    if (o.has_values()) all.push_back(std::log1p(o.change));
  const double run_change = all.empty() ? 0.0 : median_of(std::move(all));
  // Verdicts are decided on the comparison as it stands, then applied together.
  std::vector<std::pair<std::string, std::string>> updates(c.cases.size());
  for (std::size_t i = 0; i < c.cases.size(); ++i) {
    const CaseDelta& d = c.cases[i];
    updates[i] = {d.verdict, d.note};
    if ((d.verdict != "SLOWER" && d.verdict != "FASTER") || !d.from_samples()) continue;
    const std::string key = resource_of(d.name);
    if (key.empty()) continue;
    const bool slower = d.verdict == "SLOWER";
    if (slower ? run_change > up : run_change < down) continue;
    std::vector<double> moved;  // the partners' log changes
    for (const CaseDelta& o : c.cases) {
      if (&o == &d || !o.has_values() || resource_of(o.name) != key) continue;
      const double l = std::log1p(o.change);
      if (slower ? l > up : l < down) moved.push_back(l);
    }
    if (moved.size() < min_partners) continue;
    const std::size_t partners = moved.size();
    const double group = median_of(std::move(moved));
    // Its own change beyond the group's: the case's interval shifted by the group's median.
    const double lo = std::log1p(d.change_low) - group, hi = std::log1p(d.change_high) - group;
    const std::string who = fmt::format("{} other {} case(s)", partners,
                                        key.starts_with("suite ") ? key.substr(6) : key + "-bound");
    if (slower ? lo > up : hi < down) {
      updates[i].second = fmt::format(
          "moved with {} (median {:+.1f}%) and beyond them by {:+.1f}% [{:+.1f}%, {:+.1f}%]", who,
          100 * std::expm1(group), 100 * std::expm1(std::log1p(d.change) - group),
          100 * std::expm1(lo), 100 * std::expm1(hi));
    } else {
      updates[i] = {"AMBIGUOUS",
                    fmt::format("moved with {} (median {:+.1f}%), not beyond them: one pair of "
                                "runs cannot tell this from the machine (a resource they share); "
                                "`boundbench ab` or `compare --db` can",
                                who, 100 * std::expm1(group))};
    }
  }
  std::size_t ambiguous = 0;
  for (std::size_t i = 0; i < c.cases.size(); ++i) {
    ambiguous += updates[i].first == "AMBIGUOUS" && c.cases[i].verdict != "AMBIGUOUS";
    c.cases[i].verdict = updates[i].first;
    c.cases[i].note = updates[i].second;
  }
  if (ambiguous > 0)
    c.notes.push_back(fmt::format(
        "{} case(s) moved together with at least {} others that share their limiter or suite: "
        "AMBIGUOUS (the machine, as far as one pair of runs can tell)",
        ambiguous, min_partners));
}

}  // namespace bb
