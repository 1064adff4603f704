// Least-squares fits of measurements against the laws they should follow.
#pragma once

#include <cstddef>
#include <span>

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

}  // namespace bb
