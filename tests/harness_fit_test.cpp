// Least-squares fits on hand-worked data.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "harness/fit.h"

namespace bb {
namespace {

TEST(LinearFit, ExactLine) {
  const std::vector<double> x = {1, 2, 3, 4}, y = {5, 7, 9, 11};  // y = 2x + 3
  const LinearFit f = linear_fit(x, y);
  EXPECT_DOUBLE_EQ(f.slope, 2);
  EXPECT_DOUBLE_EQ(f.intercept, 3);
  EXPECT_DOUBLE_EQ(f.r2, 1);
  EXPECT_EQ(f.points, 4u);
}

TEST(LinearFit, HandWorkedNoisy) {
  // x = 0,1,2; y = 0,2,1: mean x 1, mean y 1; Sxx 2, Sxy 1 -> slope 0.5, intercept 0.5;
  // residuals -0.5, 1, -0.5 -> SSres 1.5; SStot 2 -> R² 0.25.
  const std::vector<double> x = {0, 1, 2}, y = {0, 2, 1};
  const LinearFit f = linear_fit(x, y);
  EXPECT_DOUBLE_EQ(f.slope, 0.5);
  EXPECT_DOUBLE_EQ(f.intercept, 0.5);
  EXPECT_DOUBLE_EQ(f.r2, 0.25);
}

TEST(LinearFit, RejectsDegenerateInput) {
  const std::vector<double> one = {1}, same = {2, 2, 2}, y3 = {1, 2, 3};
  EXPECT_THROW(linear_fit(one, one), std::invalid_argument);
  EXPECT_THROW(linear_fit(same, y3), std::invalid_argument);
  EXPECT_THROW(linear_fit(y3, one), std::invalid_argument);
}

TEST(PowerLawFit, RecoversTheExponent) {
  std::vector<double> x, y;
  for (double n : {512.0, 1024.0, 2048.0, 4096.0}) {
    x.push_back(n);
    y.push_back(3e-9 * n * n);  // t = c n²
  }
  const LinearFit f = power_law_fit(x, y);
  EXPECT_NEAR(f.slope, 2.0, 1e-12);
  EXPECT_NEAR(std::exp(f.intercept), 3e-9, 1e-20);
  const std::vector<double> bad = {1, -1};
  EXPECT_THROW(power_law_fit(bad, bad), std::invalid_argument);
}

}  // namespace
}  // namespace bb
