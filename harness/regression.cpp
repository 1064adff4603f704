#include "harness/regression.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "harness/results.h"

namespace bb {
namespace {

using json = nlohmann::json;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// One case of a run: its repetitions' median times, the first repetition's noise and bound.
struct CaseRuns {
  std::vector<double> times_s;
  double noise = 0;
  double pct_of_bound = -1;
};

std::map<std::string, CaseRuns> measured_cases(const json& doc) {
  std::map<std::string, CaseRuns> cases;
  for (const auto& b : doc.at("benchmarks")) {
    if (b.value("run_type", "") != "iteration" || b.value("error_occurred", false)) continue;
    CaseRuns& c = cases[b.at("name").get<std::string>()];
    if (c.times_s.empty()) {
      c.noise = b.value("rel_noise", 0.0);
      c.pct_of_bound = b.value("pct_of_bound", -1.0);
    }
    c.times_s.push_back(b.at("median_s").get<double>());
  }
  return cases;
}

std::string device_of(const json& doc) {
  const json& bb = doc.at("context").at("boundbench");
  const json& gpus = bb.at("gpus");
  if (gpus.value("usable", false) && !gpus.at("devices").empty())
    return gpus.at("devices").at(0).value("name", "?");
  return bb.at("host").value("cpu_model", "?") + " (host only)";
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string verdict_for(double change, double noise_base, double noise_next, double p,
                        const CompareOptions& o) {
  const bool big = std::fabs(change) > o.threshold;
  if (!std::isnan(p)) {  // repetitions on both sides: the rank test decides what is significant
    if (p >= o.alpha) return big ? "AMBIGUOUS" : "SAME";
    if (!big) return "SAME";
  } else {  // one sample each: the change must stand clear of both runs' noise
    if (!big) return "SAME";
    if (std::fabs(change) <= 2 * std::hypot(noise_base, noise_next)) return "AMBIGUOUS";
  }
  return change > 0 ? "SLOWER" : "FASTER";
}

std::map<std::string, std::string> check_verdicts(const json& doc) {
  std::map<std::string, std::string> v;
  for (const auto& c : doc.value("checks", json::array()))
    v[c.value("suite", "") + "/" + c.value("name", "")] = c.value("verdict", "");
  return v;
}

std::string value_text(double v, const CompareOptions& o) {
  if (o.cross_device) return fmt::format("{:.1f}%", v);
  if (v >= 1) return fmt::format("{:.4g} s", v);
  if (v >= 1e-3) return fmt::format("{:.4g} ms", v * 1e3);
  return fmt::format("{:.4g} us", v * 1e6);
}

std::string p_text(double p) { return std::isnan(p) ? "-" : fmt::format("{:.3g}", p); }

}  // namespace

json load_results(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path + ": cannot be read");
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::parse_error& e) {
    throw std::invalid_argument(path + ": not valid JSON (" + std::string(e.what()) + ")");
  }
  if (!doc.is_object() || !doc.contains("context") || !doc["context"].is_object() ||
      !doc["context"].contains("boundbench") || !doc.contains("benchmarks") ||
      !doc["benchmarks"].is_array())
    throw std::invalid_argument(path + ": not a boundbench results file (no context.boundbench)");
  const int version = doc["context"]["boundbench"].value("schema_version", 0);
  if (version < kOldestReadableSchemaVersion || version > kResultsSchemaVersion)
    throw std::invalid_argument(path + ": schema version " + std::to_string(version) +
                                ", this boundbench reads " +
                                std::to_string(kOldestReadableSchemaVersion) + " to " +
                                std::to_string(kResultsSchemaVersion));
  std::set<std::pair<std::string, long long>> seen;
  std::size_t measured = 0;
  try {
    for (const auto& b : doc["benchmarks"]) {
      if (b.value("run_type", "") != "iteration") continue;
      if (!seen.insert({b.at("name").get<std::string>(), b.value("repetition_index", 0LL)}).second)
        throw std::invalid_argument(path + ": case '" + b.at("name").get<std::string>() +
                                    "' appears twice");
      if (!b.value("error_occurred", false)) {
        b.at("median_s").get<double>();
        ++measured;
      }
    }
  } catch (const json::exception& e) {
    throw std::invalid_argument(path + ": malformed benchmark entry (" + std::string(e.what()) +
                                ")");
  }
  if (measured == 0) throw std::invalid_argument(path + ": holds no measured case");
  return doc;
}

double mann_whitney_p(std::span<const double> a, std::span<const double> b) {
  const std::size_t n1 = a.size(), n2 = b.size(), n = n1 + n2;
  if (n1 < 2 || n2 < 2) return kNaN;
  std::vector<std::pair<double, int>> all;  // value, side (0: a)
  for (double x : a) all.push_back({x, 0});
  for (double x : b) all.push_back({x, 1});
  std::sort(all.begin(), all.end());
  double rank_sum_a = 0, ties = 0;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && all[j].first == all[i].first) ++j;
    const double avg_rank = 0.5 * static_cast<double>(i + 1 + j);  // ranks i+1 … j
    const double t = static_cast<double>(j - i);
    ties += t * t * t - t;
    for (std::size_t k = i; k < j; ++k)
      if (all[k].second == 0) rank_sum_a += avg_rank;
    i = j;
  }
  const double dn1 = static_cast<double>(n1), dn2 = static_cast<double>(n2);
  const double dn = static_cast<double>(n);
  const double u = rank_sum_a - dn1 * (dn1 + 1) / 2;
  const double mu = dn1 * dn2 / 2;
  const double sigma = std::sqrt(dn1 * dn2 / 12 * ((dn + 1) - ties / (dn * (dn - 1))));
  if (sigma == 0) return 1.0;  // every value equal
  const double z = std::max(0.0, std::fabs(u - mu) - 0.5) / sigma;
  return std::min(1.0, std::erfc(z / std::sqrt(2.0)));
}

bool RunComparison::regressed() const {
  for (const auto& c : cases)
    if (c.verdict == "SLOWER") return true;
  for (const auto& c : check_changes)
    if (c.next == "FAIL") return true;
  return false;
}

RunComparison compare_runs(const json& base, const json& next, const CompareOptions& opts) {
  RunComparison r;
  r.base_device = device_of(base);
  r.next_device = device_of(next);
  if (r.base_device != r.next_device && !opts.cross_device)
    throw std::invalid_argument("the runs are from different devices (" + r.base_device + " vs " +
                                r.next_device + "): use --cross-device to compare % of bound");

  const auto base_checks = check_verdicts(base), next_checks = check_verdicts(next);
  std::set<std::string> names;
  for (const auto& [k, v] : base_checks) names.insert(k);
  for (const auto& [k, v] : next_checks) names.insert(k);
  for (const auto& name : names) {
    const auto b = base_checks.find(name), n = next_checks.find(name);
    const std::string bv = b == base_checks.end() ? "-" : b->second;
    const std::string nv = n == next_checks.end() ? "-" : n->second;
    if (bv != nv && !(nv == "-" && bv != "FAIL")) r.check_changes.push_back({name, bv, nv});
  }
  // Worst first: turned FAIL (a regression), then new findings, then too noisy to judge.
  const auto rank = [](const std::string& v) {
    return v == "FAIL" ? 0 : v == "BELOW-EXPECTATION" ? 1 : v == "INCONCLUSIVE" ? 2 : 3;
  };
  std::stable_sort(
      r.check_changes.begin(), r.check_changes.end(),
      [&](const CheckChange& x, const CheckChange& y) { return rank(x.next) < rank(y.next); });

  const auto bc = measured_cases(base), nc = measured_cases(next);
  for (const auto& [name, b] : bc) {
    const auto it = nc.find(name);
    if (it == nc.end()) {
      r.only_in_base.push_back(name);
      continue;
    }
    const CaseRuns& n = it->second;
    CaseDelta d;
    d.name = name;
    d.base_noise = b.noise;
    d.next_noise = n.noise;
    if (opts.cross_device) {
      d.base = b.pct_of_bound;
      d.next = n.pct_of_bound;
      d.p_value = kNaN;
      if (d.base <= 0 || d.next <= 0) {
        d.verdict = "NO_BOUND";
      } else {
        d.change = d.base / d.next - 1;  // a lower % of bound is the slower result
        d.verdict = verdict_for(d.change, b.noise, n.noise, kNaN, opts);
      }
    } else {
      d.base = median_of(b.times_s);
      d.next = median_of(n.times_s);
      d.change = d.next / d.base - 1;
      d.p_value = mann_whitney_p(b.times_s, n.times_s);
      d.verdict = verdict_for(d.change, b.noise, n.noise, d.p_value, opts);
    }
    r.cases.push_back(d);
  }
  for (const auto& [name, n] : nc)
    if (!bc.count(name)) r.only_in_next.push_back(name);
  return r;
}

std::string comparison_table(const RunComparison& c, const CompareOptions& o) {
  std::string s;
  if (c.base_device != c.next_device)
    s += "devices differ: " + c.base_device + " vs " + c.next_device + " (comparing % of bound)\n";
  for (const auto& k : c.check_changes)
    s += "check " + k.name + ": " + k.base + " -> " + k.next + "\n";
  s += fmt::format("{:<44} {:>12} {:>12} {:>9} {:>15} {:>8}  {}\n", "case", "base", "new", "change",
                   "noise base/new", "p", "verdict");
  for (const auto& d : c.cases)
    s += fmt::format("{:<44} {:>12} {:>12} {:>+8.1f}% {:>6.2f}%/{:>6.2f}% {:>8}  {}\n", d.name,
                     value_text(d.base, o), value_text(d.next, o), 100 * d.change,
                     100 * d.base_noise, 100 * d.next_noise, p_text(d.p_value), d.verdict);
  for (const auto& n : c.only_in_base) s += "only in base: " + n + "\n";
  for (const auto& n : c.only_in_next) s += "only in new: " + n + "\n";
  s += c.regressed() ? "REGRESSED\n" : "no regression\n";
  return s;
}

std::string comparison_markdown(const RunComparison& c, const CompareOptions& o) {
  std::string s = "## boundbench compare\n\n";
  s += "base: " + c.base_device + "; new: " + c.next_device + "; threshold " +
       fmt::format("{:.1f}%", 100 * o.threshold) + "\n\n";
  s += c.regressed() ? "**Regressed.**\n\n" : "No regression.\n\n";
  if (!c.check_changes.empty()) {
    s += "| check | base | new |\n|---|---|---|\n";
    for (const auto& k : c.check_changes)
      s += "| " + k.name + " | " + k.base + " | " + k.next + " |\n";
    s += "\n";
  }
  s += "| case | base | new | change | noise base/new | p | verdict |\n";
  s += "|---|---:|---:|---:|---:|---:|---|\n";
  for (const auto& d : c.cases)
    s += "| " + d.name + " | " + value_text(d.base, o) + " | " + value_text(d.next, o) + " | " +
         fmt::format("{:+.1f}%", 100 * d.change) + " | " +
         fmt::format("{:.2f}%", 100 * d.base_noise) + " / " +
         fmt::format("{:.2f}%", 100 * d.next_noise) + " | " + p_text(d.p_value) + " | " +
         d.verdict + " |\n";
  for (const auto& n : c.only_in_base) s += "\nonly in base: " + n;
  for (const auto& n : c.only_in_next) s += "\nonly in new: " + n;
  return s + "\n";
}

json comparison_json(const RunComparison& c, const CompareOptions& o) {
  json cases = json::array(), checks = json::array();
  for (const auto& d : c.cases)
    cases.push_back({{"name", d.name},
                     {"base", d.base},
                     {"new", d.next},
                     {"unit", o.cross_device ? "pct_of_bound" : "s"},
                     {"change", d.change},
                     {"base_noise", d.base_noise},
                     {"new_noise", d.next_noise},
                     {"p_value", std::isnan(d.p_value) ? json(nullptr) : json(d.p_value)},
                     {"verdict", d.verdict}});
  for (const auto& k : c.check_changes)
    checks.push_back({{"name", k.name}, {"base", k.base}, {"new", k.next}});
  return {{"base_device", c.base_device},   {"new_device", c.next_device},
          {"threshold", o.threshold},       {"cross_device", o.cross_device},
          {"check_changes", checks},        {"cases", cases},
          {"only_in_base", c.only_in_base}, {"only_in_new", c.only_in_next},
          {"regressed", c.regressed()}};
}

}  // namespace bb
