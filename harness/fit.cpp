#include "harness/fit.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "harness/stats.h"

namespace bb {
namespace {

// Up to this many points with distinct x, the slope interval uses the exact distribution.
constexpr std::size_t kExactKendallPoints = 200;

// The distribution of inversions of a random permutation of n: P_m(d) = (1/m)·Σ_{j<m} P_{m−1}(d −
// j) (the m-th element adds 0 … m − 1 inversions, equally likely), with prefix sums: O(n³).
std::vector<double> inversions_pmf(std::size_t n) {
  std::vector<double> p = {1.0};
  for (std::size_t m = 2; m <= n; ++m) {
    std::vector<double> prefix(p.size() + 1, 0.0);
    for (std::size_t d = 0; d < p.size(); ++d) prefix[d + 1] = prefix[d] + p[d];
    const std::size_t size = m * (m - 1) / 2 + 1;
    std::vector<double> next(size);
    for (std::size_t d = 0; d < size; ++d) {
      const std::size_t hi = std::min(d, p.size() - 1);  // sum p[d − j] for j < m, d − j ≥ 0
      const std::size_t lo = d >= m - 1 ? d - (m - 1) : 0;
      next[d] = lo <= hi ? (prefix[hi + 1] - prefix[lo]) / static_cast<double>(m) : 0.0;
    }
    p = std::move(next);
  }
  return p;
}

// Count of each distinct value among v, for the tie terms of Kendall's variance.
std::vector<double> tie_counts(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::vector<double> counts;
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    while (j < v.size() && v[j] == v[i]) ++j;
    if (j - i > 1) counts.push_back(static_cast<double>(j - i));
    i = j;
  }
  return counts;
}

}  // namespace

double normal_quantile(double p) {
  double lo = -40, hi = 40;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double inversions_cdf(std::size_t n, std::size_t d) {
  const std::vector<double> p = inversions_pmf(n);
  const auto terms = static_cast<std::ptrdiff_t>(std::min(d + 1, p.size()));  // P(0) … P(d)
  return std::min(std::accumulate(p.begin(), p.begin() + terms, 0.0), 1.0);
}

LinearFit linear_fit(std::span<const double> x, std::span<const double> y) {
  if (x.size() != y.size() || x.size() < 2)
    throw std::invalid_argument("linear_fit: needs two or more (x, y) pairs");
  const auto n = static_cast<double>(x.size());
  const double mx = std::accumulate(x.begin(), x.end(), 0.0) / n;
  const double my = std::accumulate(y.begin(), y.end(), 0.0) / n;
  double sxx = 0, sxy = 0, syy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx == 0) throw std::invalid_argument("linear_fit: all x are equal");
  LinearFit f;
  f.points = x.size();
  f.slope = sxy / sxx;
  f.intercept = my - f.slope * mx;
  double ss_res = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double r = y[i] - (f.slope * x[i] + f.intercept);
    ss_res += r * r;
  }
  f.r2 = syy > 0 ? 1 - ss_res / syy : 1.0;
  return f;
}

LinearFit power_law_fit(std::span<const double> x, std::span<const double> y) {
  std::vector<double> lx, ly;
  for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) {
    if (!(x[i] > 0) || !(y[i] > 0))
      throw std::invalid_argument("power_law_fit: every point must be positive");
    lx.push_back(std::log(x[i]));
    ly.push_back(std::log(y[i]));
  }
  if (x.size() != y.size()) throw std::invalid_argument("power_law_fit: sizes differ");
  return linear_fit(lx, ly);
}

RobustFit theil_sen_fit(std::span<const double> x, std::span<const double> y, double confidence) {
  if (x.size() != y.size()) throw std::invalid_argument("theil_sen_fit: sizes differ");
  const std::size_t n = x.size();
  std::vector<double> slopes;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j)
      if (x[i] != x[j]) slopes.push_back((y[j] - y[i]) / (x[j] - x[i]));
  if (slopes.empty()) throw std::invalid_argument("theil_sen_fit: needs two or more distinct x");
  std::sort(slopes.begin(), slopes.end());
  RobustFit f;
  f.points = n;
  f.pairs = slopes.size();
  const std::size_t big_n = slopes.size();
  f.slope = median_of(slopes);
  f.intercept = median_of({y.begin(), y.end()}) - f.slope * median_of({x.begin(), x.end()});

  const double tail = (1 - confidence) / 2;
  if (big_n == n * (n - 1) / 2 && n <= kExactKendallPoints) {
    // The largest l ≤ (N + 1)/2 with P(D ≤ l − 1) ≤ tail; l = 1 when none is.
    const std::vector<double> p = inversions_pmf(n);
    double cdf = 0;  // P(D ≤ l − 1)
    std::size_t low = 1;
    for (std::size_t l = 1; l <= (big_n + 1) / 2; ++l) {
      cdf += p[l - 1];
      if (cdf > tail) break;
      low = l;
    }
    f.low_rank = low;
    f.high_rank = big_n + 1 - low;
    f.coverage = 1 - 2 * inversions_cdf(n, low - 1);
  } else {
    // Var(S) = [n(n−1)(2n+5) − Σ t(t−1)(2t+5) over ties in x and in y] / 18 (Sen 1968, eq. 2.6).
    const auto term = [](double t) { return t * (t - 1) * (2 * t + 5); };
    double var = term(static_cast<double>(n));
    for (double t : tie_counts({x.begin(), x.end()})) var -= term(t);
    for (double t : tie_counts({y.begin(), y.end()})) var -= term(t);
    const double c = normal_quantile(1 - tail) * std::sqrt(std::max(var, 0.0) / 18);
    const double dn = static_cast<double>(big_n);
    // As scipy (numpy's round half to even): 0-based max(round((N − c)/2) − 1, 0) and
    // min(round((N + c)/2), N − 1).
    f.low_rank = static_cast<std::size_t>(std::max(std::nearbyint((dn - c) / 2), 1.0));
    f.high_rank = static_cast<std::size_t>(std::min(std::nearbyint((dn + c) / 2), dn - 1)) + 1;
    f.coverage = confidence;
  }
  f.slope_low = slopes[f.low_rank - 1];
  f.slope_high = slopes[f.high_rank - 1];
  return f;
}

RobustFit theil_sen_power_law_fit(std::span<const double> x, std::span<const double> y,
                                  double confidence) {
  if (x.size() != y.size()) throw std::invalid_argument("theil_sen_power_law_fit: sizes differ");
  std::vector<double> lx, ly;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!(x[i] > 0) || !(y[i] > 0))
      throw std::invalid_argument("theil_sen_power_law_fit: every point must be positive");
    lx.push_back(std::log(x[i]));
    ly.push_back(std::log(y[i]));
  }
  return theil_sen_fit(lx, ly, confidence);
}

}  // namespace bb
