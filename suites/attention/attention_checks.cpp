#include <algorithm>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "harness/checks.h"
#include "harness/fit.h"
#include "harness/paired.h"
#include "suites/attention/attention_suite.h"

namespace bb::suites {
namespace {

constexpr double kExponent = 2, kExponentTolerance = 0.2;
// "Once n is large": the host is compute-bound from n = 512; a GPU needs enough blocks and tiles
// to fill its SMs (at B·H = 32, from n = 2048).
double min_fit_n(const std::string& key) { return key.rfind("cuda/", 0) == 0 ? 2048 : 256; }

// A sweep point's series: "backend/kernel/dtype/dN".
std::string sweep_key(const CaseResult& r) {
  return backend_name(r.backend) + "/" + r.params.value("kernel", "?") + "/" +
         r.params.value("dtype", "?") + "/d" + std::to_string(r.params.value("d", 0));
}

// Sweep points (params "sweep": true) by series, as (n, median time).
std::map<std::string, std::vector<std::pair<double, double>>> sweeps(
    const std::vector<CaseResult>& results) {
  std::map<std::string, std::vector<std::pair<double, double>>> out;
  for (const auto& r : results)
    if (r.params.value("sweep", false))
      out[sweep_key(r)].emplace_back(r.params.value("n", 0.0), r.summary.median_s);
  for (auto& [k, v] : out) std::sort(v.begin(), v.end());
  return out;
}

}  // namespace

std::vector<Check> attention_suite_checks(const std::vector<CaseResult>& results) {
  std::vector<Check> checks;
  for (const auto& [key, points] : sweeps(results)) {
    const double min_n = min_fit_n(key);
    // Theil–Sen (the median pairwise slope of log t against log n): one size measured in a slow
    // spell of a shared machine widens the interval (INCONCLUSIVE) instead of moving the exponent
    // out of the band, while n^3 work gives every pairwise slope near 3 (FAIL).
    const CheckHead head{"attention", key + "/time-exponent",
                         "t ~ n^2 (4 B H n^2 d flop): exponent of time vs n over n >= " +
                             std::to_string(static_cast<int>(min_n)) +
                             " (Theil-Sen: median pairwise slope; sizes sampled in rounds: median "
                             "of the per-round slopes, with its order-statistic interval)",
                         CheckKind::law, "exponent"};
    std::vector<double> n, t;
    std::vector<const CaseResult*> cases;
    for (const auto& [x, y] : points)
      if (x >= min_n) n.push_back(x), t.push_back(y);
    for (const auto& r : results)  // the series' measured cases from min_n
      if (r.params.value("sweep", false) && sweep_key(r) == key &&
          r.params.value("n", 0.0) >= min_n)
        cases.push_back(&r);
    if (n.size() < 3) {
      checks.push_back(
          skipped(head, "needs 3 sizes from n = " + std::to_string(static_cast<int>(min_n)) +
                            ", has " + std::to_string(n.size())));
      continue;
    }
    const RobustFit robust = theil_sen_power_law_fit(n, t);
    const LinearFit f = power_law_fit(n, t);
    // Sizes sampled in the same rounds (one pairing group's measurement): the median of the
    // per-round Theil–Sen exponents, with its order-statistic interval (harness/paired.h), from
    // which a slow spell common to a round cancels. Else the fit over the medians.
    bool paired = cases.size() == n.size();
    for (const auto* r : cases) paired = paired && sampled_together(*cases.front(), *r);
    std::vector<double> paired_n;
    std::vector<std::vector<double>> rounds;
    for (const auto* r : cases)
      if (paired)
        paired_n.push_back(r->params.value("n", 0.0)), rounds.push_back(r->round_samples_s);
    // Guarded by the fit over the medians: a FAIL needs both outside the band.
    const Band band = Band::plus_minus(kExponent, kExponentTolerance);
    // At the rounds' sequential confidence (stats.h): the group keeps sampling while this check is
    // undecided, so it is looked at more than once.
    const Interval exponent =
        paired ? guarded_interval(
                     paired_exponent_interval(paired_n, rounds, cases.front()->round_confidence),
                     robust.slope_interval(), band)
               : robust.slope_interval();
    Check c = fit(head, kExponent, band, exponent, n.size());
    c.tolerance = kExponentTolerance;
    c.reason += (paired ? fmt::format("; paired: median of {} per-round Theil-Sen exponents",
                                      rounds.front().size())
                        : std::string("; unpaired: Theil-Sen over the medians")) +
                fmt::format(
                    "; Theil-Sen over the medians {}; least squares {:.3f}, R^2 "
                    "{:.4f}; n = {} ... {}",
                    interval_text(robust.slope_interval()), f.slope, f.r2,
                    static_cast<long long>(n.front()), static_cast<long long>(n.back()));
    checks.push_back(c);
  }
  return checks;
}

nlohmann::json attention_suite_figures(const std::vector<CaseResult>& results) {
  nlohmann::json f = nlohmann::json::object();
  const auto all = sweeps(results);
  for (const auto& [key, points] : all) {
    const std::string backend = key.substr(0, key.find('/'));
    const std::string series = key.substr(key.find('/') + 1);
    nlohmann::json& s = f[backend]["series"][series];
    std::vector<double> n, t;
    for (const auto& [x, y] : points) {
      s["n"].push_back(x), s["median_s"].push_back(y);
      if (x >= min_fit_n(key)) n.push_back(x), t.push_back(y);
    }
    if (n.size() >= 2) s["exponent"] = theil_sen_power_law_fit(n, t).slope;
  }
  // Crossover: the smallest n from which the IO-aware kernel is faster at every larger n.
  for (auto& [backend, b] : f.items()) {
    for (auto& [series, s] : b["series"].items()) {
      if (series.rfind("naive/", 0) != 0) continue;
      const std::string rest = series.substr(6);
      for (const char* fused : {"tiled/", "fused/"}) {
        const auto it = all.find(backend + "/" + fused + rest);
        const auto naive = all.find(backend + "/" + series);
        if (it == all.end() || naive == all.end()) continue;
        std::map<double, double> tn(naive->second.begin(), naive->second.end());
        double crossover = -1;
        for (auto p = it->second.rbegin(); p != it->second.rend(); ++p) {
          if (!tn.count(p->first) || p->second >= tn[p->first]) break;
          crossover = p->first;
        }
        b["crossover"][std::string(fused) + rest] =
            crossover > 0 ? nlohmann::json(crossover) : nlohmann::json(nullptr);
      }
    }
  }
  return f;
}

}  // namespace bb::suites
