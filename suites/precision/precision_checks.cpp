// The precision suite's checks over its summation cases: bounds and growth laws.
#include <algorithm>
#include <map>
#include <string>

#include <fmt/format.h>

#include "harness/checks.h"
#include "harness/fit.h"
#include "suites/precision/precision_suite.h"

namespace bb::suites {

Check precision_check(const std::string& name, std::string law, double predicted, const Band& band,
                      double measured, double tolerance, std::string reason) {
  return point_check({"precision", name, std::move(law)}, predicted, band, measured, tolerance,
                     std::move(reason));
}

Check precision_skip(const std::string& name, std::string law, std::string reason) {
  return skipped({"precision", name, std::move(law)}, reason);
}

std::vector<Check> precision_suite_checks(const std::vector<CaseResult>& results) {
  struct Series {
    std::vector<double> n, median;
    double worst = 0;
  };
  std::map<std::string, Series> by_alg;
  for (const auto& r : results) {
    if (!r.params.contains("algorithm") || !r.observations.contains("median_relative_error"))
      continue;
    const std::string alg = r.params["algorithm"].get<std::string>();
    Series& s = by_alg[alg];
    s.worst = std::max(s.worst, r.observations["worst_error_over_bound"].get<double>());
    if (!r.params.value("growth_fit", true))
      continue;  // the case says its size follows another law
    s.n.push_back(r.params["n"].get<double>());
    s.median.push_back(r.observations["median_relative_error"].get<double>() + 1e-30);
  }
  std::vector<Check> checks;
  std::map<std::string, double> exponent;
  for (const auto& [alg, s] : by_alg) {
    checks.push_back(precision_check(
        "summation/" + alg + "/bound",
        alg == "recursive"  ? "|S^ - S| <= gamma_(n-1) sum|x| (Higham 4.4)"
        : alg == "pairwise" ? "|S^ - S| <= gamma_ceil(log2 n) sum|x| (Higham 4.6)"
        : alg == "tree" ? "|S^ - S| <= gamma_h sum|x|, h = ceil(n/4T) + 1 + log2 T + 8, the GPU "
                          "tree's height (Higham 4.2)"
        : alg == "cub"  ? "|S^ - S| <= gamma_(n-1) sum|x|: any order (Higham 4.2)"
                        : "|S^ - S| <= (2u + 2nu^2) sum|x| (Higham 4.8: 2u + O(nu^2); "
                          "the O-term constant 2 is an estimate)",
        1, Band::at_most(1), s.worst, 0,
        fmt::format("largest error over its bound, all n and seeds: {:.3g}", s.worst)));
    if (s.n.size() >= 3) exponent[alg] = power_law_fit(s.n, s.median).slope;
  }
  if (exponent.count("recursive")) {
    const double e = exponent["recursive"];
    checks.push_back(precision_check(
        "summation/recursive/growth",
        "median |S^ - S| / |S| ~ n^(1/2) for random-sign data (independent rounding errors; "
        "Higham & Mary 2019)",
        0.5, Band::plus_minus(0.5, 0.2), e, 0.2, fmt::format("fitted exponent {:.3f}", e)));
  }
  // Trees grow far slower than recursive summation: exponent < recursive's − 0.25 (its law's, ½,
  // in a run without host sums). The GPU tree is fitted where it is one (n ≤ 2^20: at most four
  // values per lane); beyond, the lanes' running sums grow like recursive summation.
  const bool have_recursive = exponent.count("recursive") > 0;
  const double recursive = have_recursive ? exponent["recursive"] : 0.5;
  for (const char* alg : {"pairwise", "tree"}) {
    if (!exponent.count(alg)) continue;
    const double p = exponent[alg];
    checks.push_back(precision_check(
        std::string("summation/") + alg + "/growth",
        std::string("median relative error of ") + alg +
            " summation grows far slower: exponent < recursive's - 0.25" +
            (alg == std::string("tree") ? " (GPU tree, n <= 2^20)" : ""),
        recursive - 0.25, Band::at_most(recursive - 0.25), p, 0.25,
        have_recursive
            ? fmt::format("fitted exponent {:.3f} (recursive {:.3f})", p, recursive)
            : fmt::format("fitted exponent {:.3f} (recursive's law {:.1f})", p, recursive)));
  }
  if (by_alg.count("kahan")) {
    double top = 0;
    for (double m : by_alg["kahan"].median) top = std::max(top, m);
    checks.push_back(precision_check(
        "summation/kahan/flat", "median relative error of Kahan summation <= 2u whatever n",
        2 * kFp32U, Band::at_most(2 * kFp32U), top, 0,
        fmt::format("largest median relative error {:.3g} (2u = {:.3g})", top, 2 * kFp32U)));
  }
  // The GEMM precision matrix (gemm_checks.cpp).
  for (auto& c : gemm_suite_checks(results)) checks.push_back(std::move(c));
  return checks;
}

}  // namespace bb::suites
