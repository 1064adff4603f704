#include "harness/drift.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "harness/change_interval.h"
#include "harness/fit.h"
#include "harness/stats.h"

namespace bb {
namespace {

double sign(double v) { return v > 0 ? 1.0 : v < 0 ? -1.0 : 0.0; }

// P(|Z| ≥ |z|) for the standard normal.
double two_sided(double z) { return std::erfc(std::fabs(z) / std::sqrt(2.0)); }

}  // namespace

MannKendall mann_kendall(std::span<const double> x) {
  MannKendall mk;
  const std::size_t n = x.size();
  if (n < 2) return mk;
  for (std::size_t i = 0; i + 1 < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) mk.s += sign(x[j] - x[i]);
  std::vector<double> sorted(x.begin(), x.end());
  std::sort(sorted.begin(), sorted.end());
  const auto term = [](double t) { return t * (t - 1) * (2 * t + 5); };
  double ties = 0;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && sorted[j] == sorted[i]) ++j;
    ties += term(static_cast<double>(j - i));
    i = j;
  }
  mk.var_s = (term(static_cast<double>(n)) - ties) / 18;
  if (mk.var_s <= 0) return mk;
  mk.z = (mk.s - sign(mk.s)) / std::sqrt(mk.var_s);
  mk.p = two_sided(mk.z);
  return mk;
}

SenSlope sen_slope(std::span<const double> x, double var_s, double confidence) {
  const std::size_t n = x.size();
  if (n < 2) return {};
  std::vector<double> q;
  q.reserve(n * (n - 1) / 2);
  for (std::size_t i = 0; i + 1 < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) q.push_back((x[j] - x[i]) / static_cast<double>(j - i));
  const std::size_t m = q.size();
  const double c = normal_quantile(0.5 + confidence / 2) * std::sqrt(std::max(var_s, 0.0));
  const auto k = static_cast<std::size_t>(
      std::clamp(std::floor((static_cast<double>(m) - c) / 2), 1.0, static_cast<double>(m)));
  // The k-th and (N+1−k)-th smallest, then the median within [k, N − k] (1-based).
  const auto at = [&q](std::size_t i) {  // 0-based i-th smallest, q partitioned around it
    std::nth_element(q.begin(), q.begin() + static_cast<std::ptrdiff_t>(i), q.end());
    return q[i];
  };
  SenSlope s;
  s.low = at(k - 1);
  s.high = at(m - k);
  s.slope = m % 2 ? at(m / 2) : 0.5 * (at(m / 2 - 1) + at(m / 2));
  s.intercept = median_of({x.begin(), x.end()}) - s.slope * static_cast<double>(n - 1) / 2;
  return s;
}

Warmup warmup_test(std::span<const double> x) {
  Warmup best;
  const std::size_t n = x.size();
  std::size_t lengths = 0;
  double best_p = 1;
  for (std::size_t r = 2; r <= n / 4; r *= 2) {
    ++lengths;
    double u = 0;
    for (std::size_t i = 0; i < r; ++i)
      for (std::size_t j = r; j < n; ++j) u += x[i] > x[j] ? 1.0 : x[i] == x[j] ? 0.5 : 0.0;
    const double a = static_cast<double>(r), b = static_cast<double>(n - r);
    const double z = (u - a * b / 2 - 0.5) / std::sqrt(a * b * (a + b + 1) / 12);
    const double p = 0.5 * std::erfc(z / std::sqrt(2.0));
    if (p < best_p || best.samples == 0) {
      best_p = p;
      best.samples = r;
      best.ratio = median_of({x.begin(), x.begin() + static_cast<std::ptrdiff_t>(r)}) /
                   median_of({x.begin() + static_cast<std::ptrdiff_t>(r), x.end()});
    }
  }
  best.p = std::min(1.0, best_p * static_cast<double>(lengths));
  return best;
}

std::optional<Drift> sample_drift(std::span<const double> samples_s, double confidence) {
  if (samples_s.size() < kMinDriftSamples) return std::nullopt;
  Drift d;
  d.samples = samples_s.size();
  d.trend = mann_kendall(samples_s);
  const SenSlope sen = sen_slope(samples_s, d.trend.var_s, confidence);
  if (!(sen.intercept > 0)) return std::nullopt;
  const double span = static_cast<double>(d.samples - 1) / sen.intercept;
  d.relative_change = sen.slope * span;
  d.low = sen.low * span;
  d.high = sen.high * span;
  d.coverage = confidence;
  d.warmup = warmup_test(samples_s);
  d.p = std::min(1.0, 2 * std::min(d.trend.p, d.warmup.p));
  return d;
}

nlohmann::json drift_json(const Drift& d) {
  return {{"test", "mann-kendall"},
          {"samples", d.samples},
          {"s", d.trend.s},
          {"z", d.trend.z},
          {"p_trend", d.trend.p},
          {"relative_change", d.relative_change},
          {"interval", {d.low, d.high}},
          {"interval_coverage", d.coverage},
          {"warmup", {{"samples", d.warmup.samples}, {"ratio", d.warmup.ratio}, {"p", d.warmup.p}}},
          {"p", d.p}};
}

std::vector<std::string> drifting_cases(const nlohmann::json& benchmarks) {
  std::vector<const nlohmann::json*> tested;
  std::vector<double> p;
  for (const auto& e : benchmarks)
    if (e.is_object() && e.contains("drift") && e["drift"].is_object() &&
        e["drift"].contains("p") && e["drift"]["p"].is_number() && !e.contains("error_message"))
      tested.push_back(&e), p.push_back(e["drift"]["p"].get<double>());
  const std::vector<double> q = benjamini_hochberg(p);
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < tested.size(); ++i) {
    if (!(q[i] <= kDriftFdr)) continue;
    const nlohmann::json& e = *tested[i];
    const nlohmann::json& d = e["drift"];
    const nlohmann::json w = d.value("warmup", nlohmann::json::object());
    const auto iv = d.value("interval", std::vector<double>{0, 0});
    lines.push_back(fmt::format(
        "{}/{}: trend {:+.1f}% over the case [{:+.1f}%, {:+.1f}%] (Mann-Kendall p {:.1e}), "
        "warm-up: first {} samples x{:.2f} (p {:.1e}); q {:.1e}",
        e.value("suite", ""), e.value("case", ""), 100 * d.value("relative_change", 0.0),
        100 * iv.at(0), 100 * iv.at(1), d.value("p_trend", 1.0), w.value("samples", std::size_t{0}),
        w.value("ratio", 1.0), w.value("p", 1.0), q[i]));
  }
  return lines;
}

}  // namespace bb
