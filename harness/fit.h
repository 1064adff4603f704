// Fits of measurements against the laws they should follow: least squares, and Theil–Sen with a
// confidence interval for the slope (robust to outlying points, which timings on a shared machine
// have).
#pragma once

#include <cstddef>
#include <span>

#include "harness/interval.h"

namespace bb {

struct LinearFit {
  double slope = 0;
  double intercept = 0;
  double r2 = 0;  // coefficient of determination, 1 − SS_res / SS_tot
  std::size_t points = 0;
};

// Ordinary least squares y ≈ slope·x + intercept. Throws std::invalid_argument for fewer than two
// points, mismatched sizes, or x all equal.
LinearFit linear_fit(std::span<const double> x, std::span<const double> y);

// log y ≈ exponent·log x + log c (y ≈ c·x^exponent): the slope is the exponent. Points must be > 0.
LinearFit power_law_fit(std::span<const double> x, std::span<const double> y);

struct RobustFit {
  double slope = 0;      // median of the pairwise slopes (y_j − y_i)/(x_j − x_i), x_i ≠ x_j
  double intercept = 0;  // median(y) − slope·median(x), as scipy.stats.theilslopes
  double slope_low = 0, slope_high = 0;  // the slope's confidence interval
  double coverage = 0;  // exact (Kendall) where the x are distinct and ≤ 200, else nominal
  std::size_t points = 0;
  std::size_t pairs = 0;                    // pairwise slopes: pairs with x_i ≠ x_j
  std::size_t low_rank = 0, high_rank = 0;  // 1-based ranks of the ends among the sorted slopes
  Interval slope_interval() const { return {slope, slope_low, slope_high, coverage}; }
};

// Theil–Sen (Sen 1968, JASA 63:1379): y ≈ slope·x + intercept. The interval [S_(l), S_(N+1−l)]
// over the N sorted pairwise slopes covers the true slope unless the residuals' Kendall
// discordance D falls below l or above N − l, so its coverage is 1 − 2·P(D ≤ l − 1). With distinct
// x and n ≤ 200 points, D has the exact distribution of inversions of a random permutation
// and l is the largest with coverage ≥ `confidence` (below it, [min, max] and its coverage
// 1 − 2/n!: n < 5 at 95%); otherwise Sen's normal approximation with the tie-corrected variance
// of Kendall's S (Sen eq. 2.6), ranks as scipy.stats.theilslopes, coverage = `confidence`.
// O(n²) pairs: meant for sweeps of tens to hundreds of points. Throws std::invalid_argument for
// mismatched sizes or fewer than two distinct x.
RobustFit theil_sen_fit(std::span<const double> x, std::span<const double> y,
                        double confidence = 0.95);

// log y ≈ exponent·log x + log c: the slope (and its interval) is the exponent. Points must be > 0.
RobustFit theil_sen_power_law_fit(std::span<const double> x, std::span<const double> y,
                                  double confidence = 0.95);

// Φ⁻¹(p), the standard normal quantile, by bisection on erfc (p in (0, 1); 200 halvings of
// [−40, 40] reach the double next to the root).
double normal_quantile(double p);

// P(D ≤ d) for D the number of inversions of a uniformly random permutation of n elements
// (Kendall's discordant pairs under independence).
double inversions_cdf(std::size_t n, std::size_t d);

}  // namespace bb
