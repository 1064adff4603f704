// The precision suite's checks over its summation cases: bounds and growth laws.
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "harness/fit.h"
#include "suites/precision/precision_suite.h"

namespace bb::suites {
namespace {

Check make_check(const std::string& name, const std::string& law, double predicted, double measured,
                 double tolerance, bool ok, const std::string& reason) {
  return {
      "precision", name, law, predicted, measured, tolerance, ok ? Verdict::pass : Verdict::fail,
      reason};
}

std::string fmt(const char* f, double a, double b = 0) {
  char buf[200];
  std::snprintf(buf, sizeof buf, f, a, b);
  return buf;
}

}  // namespace

std::vector<Check> precision_suite_checks(const std::vector<CaseResult>& results) {
  struct Series {
    std::vector<double> n, median;
    double worst = 0;
  };
  std::map<std::string, Series> by_alg;
  for (const auto& r : results) {
    if (!r.params.contains("algorithm") || !r.observations.contains("median_relative_error"))
      continue;
    Series& s = by_alg[r.params["algorithm"].get<std::string>()];
    s.n.push_back(r.params["n"].get<double>());
    s.median.push_back(r.observations["median_relative_error"].get<double>() + 1e-30);
    s.worst = std::max(s.worst, r.observations["worst_error_over_bound"].get<double>());
  }
  std::vector<Check> checks;
  std::map<std::string, double> exponent;
  for (const auto& [alg, s] : by_alg) {
    checks.push_back(
        make_check("summation/" + alg + "/bound",
                   alg == "recursive" ? "|S^ - S| <= gamma_(n-1) sum|x| (Higham 4.4)"
                   : alg == "pairwise"
                       ? "|S^ - S| <= gamma_ceil(log2 n) sum|x| (Higham 4.6)"
                       : "|S^ - S| <= (2u + 2nu^2) sum|x| (Higham 4.8: 2u + O(nu^2); the O-term "
                         "constant 2 is an estimate)",
                   1, s.worst, 0, s.worst <= 1,
                   fmt("largest error over its bound, all n and seeds: %.3g", s.worst)));
    if (s.n.size() >= 3) exponent[alg] = power_law_fit(s.n, s.median).slope;
  }
  if (exponent.count("recursive")) {
    const double e = exponent["recursive"];
    checks.push_back(make_check(
        "summation/recursive/growth",
        "median |S^ - S| / |S| ~ n^(1/2) for random-sign data (independent rounding errors; "
        "Higham & Mary 2019)",
        0.5, e, 0.2, std::fabs(e - 0.5) <= 0.2, fmt("fitted exponent %.3f", e)));
    if (exponent.count("pairwise")) {
      const double p = exponent["pairwise"];
      checks.push_back(make_check(
          "summation/pairwise/growth",
          "median relative error of pairwise summation grows far slower: exponent < recursive's "
          "- 0.25",
          e - 0.25, p, 0.25, p < e - 0.25, fmt("fitted exponent %.3f (recursive %.3f)", p, e)));
    }
  }
  if (by_alg.count("kahan")) {
    double top = 0;
    for (double m : by_alg["kahan"].median) top = std::max(top, m);
    checks.push_back(make_check(
        "summation/kahan/flat", "median relative error of Kahan summation <= 2u whatever n",
        2 * 0x1p-24, top, 0, top <= 2 * 0x1p-24,
        fmt("largest median relative error %.3g (2u = %.3g)", top, 2 * 0x1p-24)));
  }
  return checks;
}

}  // namespace bb::suites
