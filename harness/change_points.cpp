#include "harness/change_points.h"

#include <algorithm>
#include <cmath>

#include <boost/math/distributions/students_t.hpp>

#include "harness/stats.h"

namespace bb {
namespace {

// Each value clipped to the median of the 5 runs around it ± 2σ, Huber-like (the window shifted
// inward at the ends, so a spell of one or two runs is always the minority of its window; a
// step's new level is the majority from its third run on).
std::vector<double> clipped(std::span<const double> x, double sigma) {
  const std::size_t n = x.size(), width = std::min<std::size_t>(5, n);
  std::vector<double> z(x.begin(), x.end());
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t a = std::min(i >= 2 ? i - 2 : 0, n - width), b = a + width;
    const double m = median_of(
        {x.begin() + static_cast<std::ptrdiff_t>(a), x.begin() + static_cast<std::ptrdiff_t>(b)});
    z[i] = std::clamp(x[i], m - 2 * sigma, m + 2 * sigma);
  }
  return z;
}

}  // namespace

double difference_noise(std::span<const double> x) {
  constexpr double kFloor = 1e-4;
  if (x.size() < 3) return kFloor;
  std::vector<double> d(x.size() - 1);
  for (std::size_t i = 1; i < x.size(); ++i) d[i - 1] = x[i] - x[i - 1];
  // Tied run medians (a coarse timer, or kept samples that repeat) make most differences 0 and
  // the MAD 0: the scale is also taken from the mean square of the 90% smallest differences, which
  // for a normal is 0.623 of its variance (E[z²; |z| < 1.645] / 0.9), and the larger one kept.
  std::vector<double> sq(d.size());
  for (std::size_t i = 0; i < d.size(); ++i) sq[i] = d[i] * d[i];
  std::sort(sq.begin(), sq.end());
  const std::size_t kept = std::max<std::size_t>(1, sq.size() * 9 / 10);
  double mean_sq = 0;
  for (std::size_t i = 0; i < kept; ++i) mean_sq += sq[i];
  mean_sq /= static_cast<double>(kept);
  const double trimmed = std::sqrt(mean_sq / 0.623) / std::sqrt(2.0);
  const double m = median_of(d);
  for (auto& v : d) v = std::fabs(v - m);
  return std::max({kFloor, 1.4826 * median_of(d) / std::sqrt(2.0), trimmed});
}

std::vector<Step> find_steps(std::span<const double> x, std::span<const std::uint8_t> can_split,
                             const StepOptions& opts) {
  const std::size_t n = x.size(), m = std::max<std::size_t>(opts.min_segment_runs, 1);
  if (n < 2 * m) return {};
  const double sigma = difference_noise(x);
  const std::vector<double> z = clipped(x, sigma);
  std::vector<double> sum(n + 1, 0.0);
  for (std::size_t i = 0; i < n; ++i) sum[i + 1] = sum[i] + z[i];
  const double min_gain = opts.penalty * sigma * sigma * std::log(static_cast<double>(n));

  // Binary segmentation: split each segment where the two-mean fit gains most, while the gain
  // exceeds the penalty. An explicit stack: a long drift may be cut many times.
  std::vector<std::size_t> positions;
  std::vector<std::pair<std::size_t, std::size_t>> todo = {{0, n}};
  while (!todo.empty()) {
    const auto [a, b] = todo.back();
    todo.pop_back();
    if (b - a < 2 * m) continue;
    const double len = static_cast<double>(b - a);
    double best = 0;
    std::size_t best_k = 0;
    for (std::size_t k = a + m; k + m <= b; ++k) {
      if (!can_split.empty() && !can_split[k]) continue;
      const double nl = static_cast<double>(k - a), nr = static_cast<double>(b - k);
      const double d = (sum[k] - sum[a]) / nl - (sum[b] - sum[k]) / nr;
      const double gain = nl * nr / len * d * d;
      if (gain > best) {
        best = gain;
        best_k = k;
      }
    }
    if (best <= min_gain) continue;
    positions.push_back(best_k);
    todo.push_back({a, best_k});
    todo.push_back({best_k, b});
  }
  std::sort(positions.begin(), positions.end());

  // Each step tested on the runs between its neighbours (at most window_runs a side): a pooled
  // Student t test with the scale floored at σ (two quiet runs cannot make a tiny error), its
  // p-value multiplied by the number of splits the window allows (Bonferroni), which pays for
  // having chosen the best of them.
  std::vector<Step> steps;
  for (std::size_t j = 0; j < positions.size(); ++j) {
    const std::size_t k = positions[j];
    const std::size_t prev = j ? positions[j - 1] : 0;
    const std::size_t next = j + 1 < positions.size() ? positions[j + 1] : n;
    const std::size_t a = std::max(prev, k > opts.window_runs ? k - opts.window_runs : 0);
    const std::size_t b = std::min(next, k + opts.window_runs);
    std::size_t splits = 0;
    for (std::size_t i = a + m; i + m <= b; ++i) splits += can_split.empty() || can_split[i];
    const double nl = static_cast<double>(k - a), nr = static_cast<double>(b - k);
    const double ml = (sum[k] - sum[a]) / nl, mr = (sum[b] - sum[k]) / nr;
    double ss = 0;
    for (std::size_t i = a; i < k; ++i) ss += (z[i] - ml) * (z[i] - ml);
    for (std::size_t i = k; i < b; ++i) ss += (z[i] - mr) * (z[i] - mr);
    const double dof = std::max(nl + nr - 2, 1.0);
    const double se = std::max(sigma, std::sqrt(ss / dof)) * std::sqrt(1 / nl + 1 / nr);
    const boost::math::students_t t(dof);
    const double d = mr - ml;
    const double p_t = 2 * boost::math::cdf(boost::math::complement(t, std::fabs(d) / se));
    const double p = std::min(1.0, p_t * static_cast<double>(std::max<std::size_t>(splits, 1)));
    const double q = boost::math::quantile(t, 0.5 + opts.confidence / 2);
    steps.push_back({k, std::exp(d), std::exp(d - q * se), std::exp(d + q * se), p, k - a, b - k});
  }
  return steps;
}

}  // namespace bb
