#include "harness/fit.h"

#include <cmath>
#include <stdexcept>
#include <vector>

namespace bb {

LinearFit linear_fit(std::span<const double> x, std::span<const double> y) {
  if (x.size() != y.size() || x.size() < 2)
    throw std::invalid_argument("linear_fit: needs two or more (x, y) pairs");
  const auto n = static_cast<double>(x.size());
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= n;
  my /= n;
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

}  // namespace bb
