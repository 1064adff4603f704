// The GEMM precision matrix's checks over its measured cases: per mode, backend and data set, the
// deterministic bound over all K, the median against the probabilistic law, the growth exponent of
// the host's k-order series, and per GPU mode the speed-up over fp32 (the "cheaper compute" claim).
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "harness/fit.h"
#include "suites/precision/precision_suite.h"

namespace bb::suites {
namespace {

// Exponent tolerance of the host series: its medians over 4096 entries follow the law within a few
// percent per point, so ±0.15 over K = 64 … 16384 leaves room for that and still fails a kernel
// that sums in blocks or pairs (exponent near 0) or one whose errors do not cancel (near 1).
constexpr double kExponentTolerance = 0.15;

double number(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number()) return std::numeric_limits<double>::quiet_NaN();
  return j[key].get<double>();
}

struct Point {
  double k, worst_over_bound, median, median_over_probabilistic, bits;
  bool bounded;  // false: the model bounds nothing at this K (n·u ≥ 1)
};

struct Series {
  std::string mode, backend, data, model;
  bool truncates = false;     // the accumulator rounds toward zero
  std::vector<Point> points;  // sorted by k
};

struct Throughput {
  double flop_per_s = 0, peak_flop_per_s = 0;
};

// "64: 22.1, 1024: 20.3, …" — effective bits per K.
std::string bits_by_k(const Series& s) {
  std::string out;
  for (const Point& p : s.points)
    out += (out.empty() ? "" : ", ") + fmt::format("K={:.0f}: {:.1f}", p.k, p.bits);
  return out;
}

void series_checks(const Series& s, std::vector<Check>& checks) {
  const std::string name = "gemm/" + s.mode + "/" + s.backend + "/" + s.data;
  double worst = 0, worst_k = 0, worst_prob = 0, worst_prob_k = 0;
  std::string unbounded;  // the K where the model bounds nothing
  for (const Point& p : s.points) {
    if (!p.bounded) unbounded += (unbounded.empty() ? "" : ", ") + fmt::format("{:.0f}", p.k);
    const double w = !p.bounded                       ? 0
                     : std::isnan(p.worst_over_bound) ? std::numeric_limits<double>::infinity()
                                                      : p.worst_over_bound;
    if (w >= worst) worst = w, worst_k = p.k;
    const double q = std::isnan(p.median_over_probabilistic)
                         ? std::numeric_limits<double>::infinity()
                         : p.median_over_probabilistic;
    if (q >= worst_prob) worst_prob = q, worst_prob_k = p.k;
  }
  const double k_lo = s.points.front().k, k_hi = s.points.back().k;
  const std::string bound_law =
      "|C^ - C|_ij <= (factor(K) + reference's) (|A||B|)_ij for every entry and K; " + s.model;
  const std::string bound_reason =
      fmt::format(
          "largest error / bound over K = {:.0f}..{:.0f}: {:.3g} (at K = {:.0f}); effective bits ",
          k_lo, k_hi, worst, worst_k) +
      bits_by_k(s) +
      (unbounded.empty() ? "" : "; no deterministic bound (n u >= 1) at K = " + unbounded);
  // No K with a deterministic bound: nothing to hold.
  checks.push_back(
      std::none_of(s.points.begin(), s.points.end(), [](const Point& p) { return p.bounded; })
          ? precision_skip(name + "/bound", bound_law, bound_reason)
          : precision_check(name + "/bound", bound_law, 1, Band::at_most(1), worst, 0,
                            bound_reason));

  // Exponent of the median normalized error in K (reported; a check for the host's k order).
  std::optional<double> exponent;
  if (s.points.size() >= 3) {
    std::vector<double> k, med;
    for (const Point& p : s.points)
      if (p.median > 0 && std::isfinite(p.median)) k.push_back(p.k), med.push_back(p.median);
    if (k.size() >= 3) exponent = power_law_fit(k, med).slope;
  }
  const std::string prob_law =
      "median |C^ - C|_ij/(|A||B|)_ij <= gamma~_K(lambda) = exp(lambda sqrt(n) u + n u^2/(1-u)) - "
      "1 per accumulation stage, lambda = sqrt(2 ln 4n): Higham & Mary 2019 Thm 3.1 then holds "
      "for at least half the entries";
  const std::string prob_reason =
      fmt::format("largest median / probabilistic bound: {:.3g} (at K = {:.0f})", worst_prob,
                  worst_prob_k) +
      (exponent ? fmt::format("; median grows like K^{:.3f}", *exponent) : std::string());
  // Rounding toward zero on partial sums of one sign: errors of one sign, no mean-zero model.
  checks.push_back(
      s.truncates && s.data != "zero_mean"
          ? precision_skip(name + "/probabilistic", prob_law,
                           "not applicable: the accumulator truncates and the data have a nonzero "
                           "mean, so its errors share a sign (the zero-mean series is checked); "
                           "measured " +
                               prob_reason)
          : precision_check(name + "/probabilistic", prob_law, 1, Band::at_most(1), worst_prob, 0,
                            prob_reason));

  if (s.backend == "host" && exponent && (s.data == "mixed" || s.data == "zero_mean")) {
    const bool mixed = s.data == "mixed";
    const double want = mixed ? 0.5 : 0.0;
    checks.push_back(precision_check(
        name + "/growth",
        mixed ? "median |C^ - C|/(|A||B|) ~ K^(1/2) for k-order sums of data with a nonzero mean "
                "(independent rounding errors; Higham & Mary 2019)"
              : "median |C^ - C|/(|A||B|) ~ K^0 for zero-mean data (Higham & Mary 2020: the "
                "partial sums grow like sqrt(K), not K)",
        want, Band::plus_minus(want, kExponentTolerance), *exponent, kExponentTolerance,
        fmt::format("fitted exponent {:.3f} over K = {:.0f}..{:.0f}", *exponent, k_lo, k_hi)));
  }
}

}  // namespace

std::vector<Check> gemm_suite_checks(const std::vector<CaseResult>& results) {
  std::map<std::tuple<std::string, std::string, std::string>, Series> series;
  std::map<std::string, Throughput> throughput;  // CUDA modes at the large square size
  for (const auto& r : results) {
    if (!r.params.contains("gemm_mode")) continue;
    const std::string mode = r.params["gemm_mode"].get<std::string>();
    if (r.params.value("throughput", false)) {
      if (r.summary.median_s > 0)
        throughput[mode] = {r.work.flop / r.summary.median_s, number(r.params, "peak_flop_per_s")};
      continue;
    }
    if (!r.observations.contains("median_normalized_error")) continue;
    const std::string backend = backend_name(r.backend), data = r.params.value("data", "");
    Series& s = series[{mode, backend, data}];
    s.mode = mode, s.backend = backend, s.data = data;
    s.model = r.params.value("model", "");
    s.truncates = r.params.value("accumulation_rounding", "") == "toward zero";
    const nlohmann::json& o = r.observations;
    s.points.push_back({number(r.params, "k"), number(o, "worst_error_over_bound"),
                        number(o, "median_normalized_error"),
                        number(o, "median_over_probabilistic"), number(o, "effective_bits"),
                        o.value("deterministic_bound", true)});
  }
  std::vector<Check> checks;
  for (auto& [key, s] : series) {
    std::sort(s.points.begin(), s.points.end(),
              [](const Point& a, const Point& b) { return a.k < b.k; });
    series_checks(s, checks);
  }
  // Speed-up over fp32 pedantic: every lower precision must be faster (the claim of cheaper
  // compute); fp64 is reported through its TFLOP/s only.
  const auto fp32 = throughput.find("fp32");
  if (fp32 != throughput.end())
    for (const auto& [mode, t] : throughput) {
      if (mode == "fp32" || mode == "fp64") continue;
      const double speedup = t.flop_per_s / fp32->second.flop_per_s;
      const double peak_ratio = t.peak_flop_per_s > 0 && fp32->second.peak_flop_per_s > 0
                                    ? t.peak_flop_per_s / fp32->second.peak_flop_per_s
                                    : std::numeric_limits<double>::quiet_NaN();
      checks.push_back(precision_check(
          "gemm/" + mode + "/cuda/speedup",
          "a lower precision computes faster: TFLOP/s(mode) / TFLOP/s(fp32 pedantic) > 1 at the "
          "same size (predicted: the ratio of the peaks)",
          peak_ratio, Band::at_least(1), speedup, 0,
          fmt::format("{:.1f} TFLOP/s = {:.1f}% of the peak {:.0f} TFLOP/s; fp32 {:.1f} TFLOP/s",
                      t.flop_per_s / 1e12,
                      t.peak_flop_per_s > 0 ? 100 * t.flop_per_s / t.peak_flop_per_s : 0.0,
                      t.peak_flop_per_s / 1e12, fp32->second.flop_per_s / 1e12) +
              fmt::format("; speed-up {:.2f}x (peaks: {:.2f}x)", speedup, peak_ratio)));
    }
  return checks;
}

}  // namespace bb::suites
