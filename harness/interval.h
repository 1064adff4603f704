// A measured value with its confidence interval, and the band of values a law or an expectation
// allows. A check's verdict comes from how the two lie (harness/checks.h).
#pragma once

#include <limits>

namespace bb {

// `value` with the interval [low, high] that holds the true value with probability `coverage`.
// A point measurement (an exact quantity: a count, a rounding error, an order statistic judged as
// such) has low == high == value and no coverage (NaN).
struct Interval {
  double value = std::numeric_limits<double>::quiet_NaN();
  double low = std::numeric_limits<double>::quiet_NaN();
  double high = std::numeric_limits<double>::quiet_NaN();
  double coverage = std::numeric_limits<double>::quiet_NaN();

  static Interval point(double v) { return {v, v, v, std::numeric_limits<double>::quiet_NaN()}; }
  // Ends unknown (NaN) count as a point at `value`.
  bool is_point() const { return !(low < high); }
  // The ends a verdict is judged on: `value` for both of a point's.
  double lo() const { return is_point() ? value : low; }
  double hi() const { return is_point() ? value : high; }
};

// The closed band [low, high] of allowed values; an infinite end makes it one-sided.
struct Band {
  double low = -std::numeric_limits<double>::infinity();
  double high = std::numeric_limits<double>::infinity();

  // predicted·(1 ∓ tolerance) for a relative tolerance (predicted > 0).
  static Band relative(double predicted, double tolerance) {
    return {predicted * (1 - tolerance), predicted * (1 + tolerance)};
  }
  // predicted ∓ tolerance.
  static Band plus_minus(double predicted, double tolerance) {
    return {predicted - tolerance, predicted + tolerance};
  }
  static Band at_most(double limit) { return {-std::numeric_limits<double>::infinity(), limit}; }
  static Band at_least(double limit) { return {limit, std::numeric_limits<double>::infinity()}; }

  bool contains(double v) const { return v >= low && v <= high; }
};

}  // namespace bb
