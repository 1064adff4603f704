#include "harness/regression.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "harness/change_interval.h"
#include "harness/fingerprint.h"
#include "harness/machine_moves.h"
#include "harness/results.h"
#include "harness/stats.h"
#include "harness/summary.h"

namespace bb {
namespace {

using json = nlohmann::json;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// One case of a run: its repetitions' median times, samples pooled over repetitions, the first
// repetition's noise, params and bound (the time the roofline allows, 0 when it has none).
struct CaseRuns {
  std::vector<double> times_s;
  std::vector<double> samples_s;
  double noise = 0;
  double bound_s = 0;
  json params;
};

// The time the case's roofline check allows: from pct_of_bound, else (older files) from the check.
double bound_time_s(const json& b, const std::map<std::string, double>& roofline_s) {
  const double pct = b.value("pct_of_bound", -1.0);
  if (pct > 0) return pct / 100 * b.at("median_s").get<double>();
  const auto it = roofline_s.find(b.at("name").get<std::string>());
  return it == roofline_s.end() ? 0 : it->second;
}

std::map<std::string, CaseRuns> measured_cases(const json& doc) {
  std::map<std::string, double> roofline_s;  // case name → predicted time of a judged roofline
  for (const auto& c : doc.value("checks", json::array())) {
    const std::string name = c.value("name", "");
    if (!name.ends_with("/roofline") || c.value("verdict", "") == "SKIP") continue;
    if (c.contains("predicted") && c["predicted"].is_number() && c["predicted"].get<double>() > 0)
      roofline_s[c.value("suite", "") + "/" + name.substr(0, name.size() - 9)] = c["predicted"];
  }
  std::map<std::string, CaseRuns> cases;
  for (const auto& b : doc.at("benchmarks")) {
    if (b.value("run_type", "") != "iteration" || b.value("error_occurred", false)) continue;
    CaseRuns& c = cases[b.at("name").get<std::string>()];
    if (c.times_s.empty()) {
      c.noise = b.value("rel_noise", 0.0);
      c.bound_s = bound_time_s(b, roofline_s);
      c.params = b.value("params", json());
    }
    c.times_s.push_back(b.at("median_s").get<double>());
    for (const auto& x : b.value("samples_s", json::array()))
      if (x.is_number()) c.samples_s.push_back(x.get<double>());
  }
  return cases;
}

std::string device_of(const json& doc) {
  const json& bb = doc.at("context").at("boundbench");
  const json gpus = bb.value("gpus", json::object());
  const json devices = gpus.value("devices", json::array());
  if (gpus.value("usable", false) && !devices.empty() && devices[0].is_object())
    return devices[0].value("name", "?");
  return bb.value("host", json::object()).value("cpu_model", "?") + " (host only)";
}

std::string label_of(const json& doc, const std::string& device) {
  const std::string label = doc.at("context").at("boundbench").value("label", "");
  return label.empty() ? device : label;
}

// The old rule, for runs without samples: a rank test over repetitions where there are some, else
// the change against both runs' noise (stddev / mean).
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

// From samples: SLOWER/FASTER when the interval lies beyond ±threshold and the case survives the
// false-discovery-rate control; SAME when it lies within; AMBIGUOUS otherwise.
std::string verdict_from_interval(const CaseDelta& d, double q, const CompareOptions& o) {
  const bool discovered = q <= o.alpha;
  if (d.change_low > o.threshold && discovered) return "SLOWER";
  if (d.change_high < -o.threshold && discovered) return "FASTER";
  if (d.change_low >= -o.threshold && d.change_high <= o.threshold) return "SAME";
  return "AMBIGUOUS";
}

// "working_set_bytes 1342177280 vs 268435456" for the first param that differs, and how many more.
std::string params_difference(const json& a, const json& b) {
  std::vector<std::string> diffs;
  const json fa = a.is_object() ? a.flatten() : json::object();
  const json fb = b.is_object() ? b.flatten() : json::object();
  for (const auto& [k, v] : fa.items())
    if (!fb.contains(k) || fb[k] != v)
      diffs.push_back(k.substr(1) + " " + v.dump() + " vs " +
                      (fb.contains(k) ? fb[k].dump() : "-"));
  for (const auto& [k, v] : fb.items())
    if (!fa.contains(k)) diffs.push_back(k.substr(1) + " - vs " + v.dump());
  if (diffs.empty()) return "";
  return diffs.front() + (diffs.size() > 1 ? fmt::format(" (+{} more)", diffs.size() - 1) : "");
}

std::string p_text(double p) { return std::isnan(p) ? "-" : fmt::format("{:.3g}", p); }

// The name of the first simulated GPU in a fingerprint ("GPGPU-Sim…", harness/gpu.h), else "".
std::string simulated_gpu(const json& fields) {
  for (const auto& g : fields.value("gpus", json::array()))
    if (g.value("name", "").starts_with("GPGPU-Sim")) return g.value("name", "");
  return "";
}

// The first GPU's name in a fingerprint, or "no GPU".
std::string first_gpu(const json& fields) {
  const json gpus = fields.value("gpus", json::array());
  return gpus.empty() ? "no GPU" : gpus[0].value("name", "");
}

// Refuses runs from different machines (one line naming what differs) unless cross-device; a
// simulated GPU against a real one (or none) is named as such first. Notes a file that predates
// fingerprints.
void check_identity(const json& base, const json& next, const CompareOptions& opts,
                    RunComparison& r) {
  const RecordedFingerprint fb = recorded_fingerprint(base), fn = recorded_fingerprint(next);
  if (fb.legacy || fn.legacy)
    r.notes.push_back(std::string(fb.legacy && fn.legacy ? "neither run has a machine fingerprint"
                                  : fb.legacy            ? "base has no machine fingerprint"
                                                         : "new has no machine fingerprint") +
                      " (written before fingerprints): compared only what the context records "
                      "(CPU model, cores, caches, memory, GPU name and clocks)");
  r.machine_differences = fingerprint_differences(fb.fields, fn.fields);
  if (opts.cross_device) return;
  const std::string sim_b = simulated_gpu(fb.fields), sim_n = simulated_gpu(fn.fields);
  const auto device = [](const std::string& sim, const json& fields) {
    return sim.empty() ? "'" + first_gpu(fields) + "'" : "a simulated GPU '" + sim + "'";
  };
  if (sim_b.empty() != sim_n.empty())
    throw std::invalid_argument("base is on " + device(sim_b, fb.fields) + ", new on " +
                                device(sim_n, fn.fields) +
                                ": a simulator's times are a model's, not a device's; use "
                                "--cross-device to compare % of bound");
  if (r.machine_differences.empty()) return;
  std::string what;
  const std::size_t shown = std::min<std::size_t>(r.machine_differences.size(), 4);
  for (std::size_t i = 0; i < shown; ++i) what += (i ? "; " : "") + r.machine_differences[i];
  if (r.machine_differences.size() > shown)
    what += fmt::format("; {} more", r.machine_differences.size() - shown);
  throw std::invalid_argument("the runs are from different machines (" + what +
                              "): use --cross-device to compare % of bound");
}

std::vector<CheckChange> check_changes(const json& base, const json& next) {
  std::map<std::string, CheckChange> by_name;  // every check of either run; "-" where absent
  for (const json* doc : {&base, &next})
    for (const auto& c : doc->value("checks", json::array())) {
      const std::string name = c.value("suite", "") + "/" + c.value("name", "");
      CheckChange& k = by_name.try_emplace(name, CheckChange{name, "-", "-"}).first->second;
      (doc == &base ? k.base : k.next) = c.value("verdict", "");
    }
  std::vector<CheckChange> out;
  for (const auto& [name, k] : by_name)
    if (k.base != k.next && !(k.next == "-" && k.base != "FAIL")) out.push_back(k);
  // Worst first: turned FAIL (a regression), then new findings, then too noisy to judge.
  const auto rank = [](const std::string& v) {
    return v == "FAIL" ? 0 : v == "BELOW-EXPECTATION" ? 1 : v == "INCONCLUSIVE" ? 2 : 3;
  };
  std::stable_sort(out.begin(), out.end(), [&](const CheckChange& x, const CheckChange& y) {
    return rank(x.next) < rank(y.next);
  });
  return out;
}

// One matched case: its values, interval (from samples) and tests; the verdict of a sampled case
// waits for the false discovery rate over all of them. Returns the p-value for that step (NaN
// when the case is judged otherwise).
double judge_case(const CaseRuns& b, const CaseRuns& n, const CompareOptions& opts, CaseDelta& d,
                  RatioInterval& ri) {
  d.base_noise = b.noise;
  d.next_noise = n.noise;
  d.p_value = kNaN;
  const std::string params = params_difference(b.params, n.params);
  std::vector<double> bs = b.samples_s, ns = n.samples_s, bt = b.times_s, nt = n.times_s;
  if (opts.cross_device) {
    if (!params.empty()) d.note = "params differ: " + params;
    if (b.bound_s <= 0 || n.bound_s <= 0) {
      d.verdict = "NO_BOUND";
      d.note = std::string("no bound in ") + (b.bound_s <= 0 && n.bound_s <= 0 ? "either run"
                                              : b.bound_s <= 0                 ? "base"
                                                                               : "new");
      return kNaN;
    }
    // Samples divided by the time the bound allows: the ratio of two such medians is the inverse
    // ratio of the runs' % of bound.
    for (double& x : bs) x /= b.bound_s;
    for (double& x : ns) x /= n.bound_s;
    for (double& x : bt) x /= b.bound_s;
    for (double& x : nt) x /= n.bound_s;
  } else if (!params.empty()) {
    d.verdict = "NOT_COMPARABLE";
    d.note = "not comparable: params differ: " + params;
    return kNaN;
  }
  const bool sampled = bs.size() >= 2 && ns.size() >= 2;
  // The point estimate is the ratio of the medians the files report (over repetitions: their
  // median); the interval comes from the samples.
  const double base_time = median_of(bt), next_time = median_of(nt);
  d.change = next_time / base_time - 1;
  d.base = opts.cross_device ? 100 / base_time : base_time;
  d.next = opts.cross_device ? 100 / next_time : next_time;
  if (!sampled) {
    d.p_value = mann_whitney_p(bt, nt);
    d.verdict = verdict_for(d.change, b.noise, n.noise, d.p_value, opts);
    d.note = d.note.empty() ? "no samples: old rule" : d.note + "; no samples: old rule";
    return kNaN;
  }
  ri = ratio_interval(bs, ns, opts.threshold, 1 - opts.alpha);
  d.change_low = ri.low - 1;
  d.change_high = ri.high - 1;
  return std::min(1.0, 2 * std::min(ri.p_slower, ri.p_faster));
}

std::string change_text(const CaseDelta& d) {
  return d.has_values() ? fmt::format("{:+.1f}%", 100 * d.change) : "-";
}

std::string interval_text(const CaseDelta& d) {
  if (!d.from_samples()) return "-";
  return fmt::format("[{:+.1f}%, {:+.1f}%]", 100 * d.change_low, 100 * d.change_high);
}

// A case's time (or % of bound); "-" for a case without values.
std::string values_text(const CaseDelta& d, double v, const CompareOptions& o) {
  if (!d.has_values()) return "-";
  if (o.cross_device) return fmt::format("{:.1f}%", v);
  if (v >= 1) return fmt::format("{:.4g} s", v);
  if (v >= 1e-3) return fmt::format("{:.4g} ms", v * 1e3);
  return fmt::format("{:.4g} us", v * 1e6);
}

std::string header_lines(const RunComparison& c, const CompareOptions& o) {
  std::string s;
  if (o.cross_device)
    s += "cross-device: each case as % of its own device's bound (" + c.base_label + " vs " +
         c.next_label + ")\n";
  for (const auto& m : c.machine_differences) s += "machine differs: " + m + "\n";
  for (const auto& n : c.notes) s += "note: " + n + "\n";
  return s;
}

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
      !doc["context"].contains("boundbench") || !doc["context"]["boundbench"].is_object() ||
      !doc.contains("benchmarks") || !doc["benchmarks"].is_array())
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
        if (b.contains("samples_s")) b["samples_s"].get<std::vector<double>>();
        ++measured;
      }
    }
  } catch (const json::exception& e) {
    throw std::invalid_argument(path + ": malformed benchmark entry (" + std::string(e.what()) +
                                ")");
  }
  // A run on a simulated device validates its cases without timing them: readable, with nothing
  // timed to compare.
  const bool validated = doc.contains("checks") && doc["checks"].is_array() &&
                         std::any_of(doc["checks"].begin(), doc["checks"].end(), [](const json& c) {
                           return c.is_object() && c.value("verdict", "") == "PASS" &&
                                  c.value("name", "").ends_with("/validate");
                         });
  if (measured == 0 && !validated)
    throw std::invalid_argument(path + ": holds no measured case (nor a validated one)");
  const json& bb = doc["context"]["boundbench"];
  if ((bb.contains("fingerprint") && !bb["fingerprint"].is_object()) ||
      (bb.contains("host") && !bb["host"].is_object()) ||
      (bb.contains("gpus") && !bb["gpus"].is_object()))
    throw std::invalid_argument(path +
                                ": malformed context (fingerprint, host or gpus not an object)");
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
  return std::any_of(cases.begin(), cases.end(),
                     [](const CaseDelta& c) { return c.verdict == "SLOWER"; }) ||
         std::any_of(check_changes.begin(), check_changes.end(),
                     [](const CheckChange& c) { return c.next == "FAIL"; });
}

RunComparison compare_runs(const json& base, const json& next, const CompareOptions& opts) {
  RunComparison r;
  r.base_device = device_of(base);
  r.next_device = device_of(next);
  r.base_label = label_of(base, r.base_device);
  r.next_label = label_of(next, r.next_device);
  check_identity(base, next, opts, r);
  r.check_changes = check_changes(base, next);

  const auto bc = measured_cases(base), nc = measured_cases(next);
  std::vector<double> p;  // per case; NaN: not part of the false-discovery-rate step
  std::vector<RatioInterval> intervals;
  std::size_t old_rule = 0;
  for (const auto& [name, b] : bc) {
    const auto it = nc.find(name);
    if (it == nc.end()) {
      r.only_in_base.push_back(name);
      continue;
    }
    CaseDelta d;
    d.name = name;
    RatioInterval ri;
    p.push_back(judge_case(b, it->second, opts, d, ri));
    old_rule += d.note.find("old rule") != std::string::npos;
    intervals.push_back(ri);
    r.cases.push_back(d);
  }
  // The scatter of the cases' changes beyond their intervals widens every interval (a busy
  // machine), and the tests follow.
  std::vector<RatioInterval> sampled;
  for (std::size_t i = 0; i < r.cases.size(); ++i)
    if (!std::isnan(p[i])) sampled.push_back(intervals[i]);
  const RunNoise noise = run_level_noise(sampled, 1 - opts.alpha);
  r.run_noise = noise.scale;
  r.run_noise_dof = noise.dof;
  std::size_t from_store = 0;
  for (std::size_t i = 0; i < r.cases.size(); ++i) {
    if (std::isnan(p[i])) continue;
    const bool run_level = noise.scale > 0;
    RatioInterval w =
        run_level ? widened(intervals[i], noise, opts.threshold, 1 - opts.alpha) : intervals[i];
    // The store's spread for this case too, where known: its t has the runs' degrees of freedom,
    // the run-level noise's may have heavier tails, so each side keeps the more cautious.
    if (const auto it = opts.between_runs.find(r.cases[i].name);
        it != opts.between_runs.end() && it->second.runs >= 3) {
      const RunNoise own{std::sqrt(2.0) * it->second.log_sd,
                         static_cast<double>(it->second.runs - 1)};
      RatioInterval s = widened(intervals[i], own, opts.threshold, 1 - opts.alpha);
      // The more cautious of the two: the wider interval, the larger p-values.
      if (s.high / s.low > w.high / w.low) {
        std::swap(w.low, s.low);
        std::swap(w.high, s.high);
        ++from_store;
      }
      w.p_slower = std::max(w.p_slower, s.p_slower);
      w.p_faster = std::max(w.p_faster, s.p_faster);
    } else if (!run_level) {
      continue;
    }
    r.cases[i].change_low = w.low - 1;
    r.cases[i].change_high = w.high - 1;
    p[i] = std::min(1.0, 2 * std::min(w.p_slower, w.p_faster));
  }
  if (!opts.between_runs.empty())
    r.notes.push_back(fmt::format(
        "between-run spread from the history store: {} case(s) widened by their own spread "
        "between runs of this machine (wider than this pair's run-level noise)",
        from_store));
  if (noise.scale > 0) {
    r.notes.push_back(fmt::format(
        "run-level noise: the cases' changes scatter by {:.1f}% (robust scale; {}) beyond their "
        "own intervals; each interval is widened by it (a busy or drifting machine)",
        100 * std::expm1(noise.scale),
        std::isinf(noise.dof) ? std::string("normal tails")
                              : fmt::format("tails of Student's t, nu = {:.2g}", noise.dof)));
  }
  if (sampled.size() >= kMinCasesForRunNoise) {
    const MedianChange m = median_change(sampled, 1 - opts.alpha);
    r.notes.push_back(fmt::format(
        "the run as a whole: median change {:+.1f}% [{:+.1f}%, {:+.1f}%] ({:.1f}%) over {} cases "
        "(the machine's drift as much as the code's; not a verdict)",
        100 * (m.ratio - 1), 100 * (m.low - 1), 100 * (m.high - 1), 100 * m.coverage, m.cases));
  }
  const std::vector<double> q = benjamini_hochberg(p);
  for (std::size_t i = 0; i < r.cases.size(); ++i)
    if (!std::isnan(q[i])) {
      r.cases[i].p_value = q[i];
      r.cases[i].verdict = verdict_from_interval(r.cases[i], q[i], opts);
    }
  // Issue 30: without a store, a case that moved with the cases sharing its limiter is the
  // machine as far as this pair can tell (harness/machine_moves.h).
  if (opts.between_runs.empty() && !opts.cross_device) mark_machine_moves(r, base, opts);
  if (old_rule > 0)
    r.notes.push_back(fmt::format(
        "{} of {} cases have no samples on one side (a schema-1 file): compared by the old rule "
        "(change against both runs' noise, or a rank test over repetitions)",
        old_rule, r.cases.size()));
  for (const auto& [name, n] : nc)
    if (!bc.count(name)) r.only_in_next.push_back(name);
  return r;
}

std::string comparison_table(const RunComparison& c, const CompareOptions& o) {
  std::string s = header_lines(c, o);
  for (const auto& k : c.check_changes)
    s += "check " + k.name + ": " + k.base + " -> " + k.next + "\n";
  s += fmt::format("{:<44} {:>12} {:>12} {:>9} {:>18} {:>8}  {}\n", "case", "base", "new", "change",
                   fmt::format("{:.0f}% interval", 100 * (1 - o.alpha)), "p (FDR)", "verdict");
  for (const auto& d : c.cases)
    s += fmt::format("{:<44} {:>12} {:>12} {:>9} {:>18} {:>8}  {}{}\n", d.name,
                     values_text(d, d.base, o), values_text(d, d.next, o), change_text(d),
                     interval_text(d), p_text(d.p_value), d.verdict,
                     d.note.empty() ? "" : " (" + d.note + ")");
  for (const auto& n : c.only_in_base) s += "only in base: " + n + "\n";
  for (const auto& n : c.only_in_next) s += "only in new: " + n + "\n";
  s += c.regressed() ? "REGRESSED\n" : "no regression\n";
  return s;
}

std::string comparison_markdown(const RunComparison& c, const CompareOptions& o) {
  std::string s = "## boundbench compare\n\n";
  s += "base: " + markdown_cell(c.base_label) + "; new: " + markdown_cell(c.next_label) +
       "; threshold " + fmt::format("{:.1f}%", 100 * o.threshold) + "\n\n";
  const std::string header = header_lines(c, o);
  for (std::size_t at = 0, end; at < header.size(); at = end + 1) {
    end = header.find('\n', at);
    s += markdown_cell(header.substr(at, end - at)) + "\n\n";
  }
  s += c.regressed() ? "**Regressed.**\n\n" : "No regression.\n\n";
  if (!c.check_changes.empty()) {
    s += "| check | base | new |\n|---|---|---|\n";
    for (const auto& k : c.check_changes)
      s += "| " + markdown_cell(k.name) + " | " + k.base + " | " + k.next + " |\n";
    s += "\n";
  }
  s += "| case | base | new | change | interval | p (FDR) | verdict | note |\n";
  s += "|---|---:|---:|---:|---:|---:|---|---|\n";
  for (const auto& d : c.cases)
    s += "| " + markdown_cell(d.name) + " | " + values_text(d, d.base, o) + " | " +
         values_text(d, d.next, o) + " | " + change_text(d) + " | " + interval_text(d) + " | " +
         p_text(d.p_value) + " | " + d.verdict + " | " + markdown_cell(d.note) + " |\n";
  for (const auto& n : c.only_in_base) s += "\nonly in base: " + n;
  for (const auto& n : c.only_in_next) s += "\nonly in new: " + n;
  return s + "\n";
}

json comparison_json(const RunComparison& c, const CompareOptions& o) {
  json cases = json::array(), checks = json::array();
  const auto number = [](double v, bool known) { return known ? json(v) : json(nullptr); };
  for (const auto& d : c.cases)
    cases.push_back({{"name", d.name},
                     {"base", number(d.base, d.has_values())},
                     {"new", number(d.next, d.has_values())},
                     {"unit", o.cross_device ? "pct_of_bound" : "s"},
                     {"change", number(d.change, d.has_values())},
                     {"change_low", number(d.change_low, d.from_samples())},
                     {"change_high", number(d.change_high, d.from_samples())},
                     {"base_noise", d.base_noise},
                     {"new_noise", d.next_noise},
                     {"p_value", number(d.p_value, !std::isnan(d.p_value))},
                     {"p_value_kind", d.from_samples() ? "benjamini_hochberg" : "mann_whitney"},
                     {"verdict", d.verdict},
                     {"note", d.note}});
  for (const auto& k : c.check_changes)
    checks.push_back({{"name", k.name}, {"base", k.base}, {"new", k.next}});
  return {{"base_device", c.base_device},
          {"new_device", c.next_device},
          {"base_label", c.base_label},
          {"new_label", c.next_label},
          {"threshold", o.threshold},
          {"alpha", o.alpha},
          {"cross_device", o.cross_device},
          {"machine_differences", c.machine_differences},
          {"notes", c.notes},
          {"check_changes", checks},
          {"cases", cases},
          {"only_in_base", c.only_in_base},
          {"only_in_new", c.only_in_next},
          {"regressed", c.regressed()}};
}

}  // namespace bb
