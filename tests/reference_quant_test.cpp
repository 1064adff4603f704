// Integer quantization x ≈ s(q − z): the error bound, the SQNR law, stochastic rounding's
// unbiasedness, and the defined behaviour on bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "reference/quant.h"
#include "reference/random.h"

namespace bb::reference {
namespace {

using theory::QuantScheme;

std::vector<float> test_data(std::size_t n, std::uint64_t seed) {
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double u = static_cast<double>(splitmix64(seed + i) >> 11) * 0x1p-53;
    x[i] = static_cast<float>((u - 0.3) * (i % 97 == 0 ? 40.0 : 1.0));  // with outliers
  }
  return x;
}

TEST(Quantization, ErrorAtMostHalfAStepEverywhere) {
  const std::vector<float> x = test_data(4096, 7);
  for (int bits : {4, 8})
    for (QuantScheme scheme : {QuantScheme::symmetric, QuantScheme::asymmetric})
      for (std::size_t group : {std::size_t{4096}, std::size_t{256}, std::size_t{128},
                                std::size_t{32}}) {  // per tensor, per channel (16 × 256), groups
        const Quantized qz = quantize(x, group, bits, scheme);
        const std::vector<double> back = dequantize(qz);
        for (std::size_t i = 0; i < x.size(); ++i) {
          const theory::IntQuant& p = qz.groups[i / group];
          ASSERT_LE(std::fabs(back[i] - x[i]), theory::quant_max_error(p) * (1 + 1e-12))
              << "bits " << bits << " group " << group << " i " << i;
          ASSERT_GE(qz.q[i], p.q_min);
          ASSERT_LE(qz.q[i], p.q_max);
        }
      }
}

double sqnr_db(const std::vector<float>& x, const std::vector<double>& back) {
  double signal = 0, noise = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    signal += static_cast<double>(x[i]) * x[i];
    noise += (back[i] - x[i]) * (back[i] - x[i]);
  }
  return 10 * std::log10(signal / noise);
}

TEST(Quantization, SqnrFollowsTheLaw) {
  const std::size_t n = 1 << 20;
  std::vector<float> uniform(n), sine(n);
  for (std::size_t i = 0; i < n; ++i) {
    uniform[i] = static_cast<float>(2 * (static_cast<double>(splitmix64(i) >> 11) * 0x1p-53) - 1);
    sine[i] =
        static_cast<float>(std::sin(2 * std::numbers::pi * 0.1234567 * static_cast<double>(i)));
  }
  uniform[0] = -1;  // the range is exactly [−1, 1]
  uniform[1] = 1;
  for (int bits : {4, 8}) {
    for (QuantScheme scheme : {QuantScheme::symmetric, QuantScheme::asymmetric}) {
      const Quantized qz = quantize(uniform, n, bits, scheme);
      EXPECT_NEAR(sqnr_db(uniform, dequantize(qz)), theory::sqnr_uniform_db(qz.groups[0], -1, 1),
                  0.5)
          << "uniform, bits " << bits;
    }
  }
  const Quantized qs = quantize(sine, n, 8, QuantScheme::symmetric);
  EXPECT_NEAR(sqnr_db(sine, dequantize(qs)), theory::sqnr_sine_db(qs.groups[0], -1, 1), 0.5);
  EXPECT_NEAR(theory::sqnr_uniform_db(qs.groups[0], -1, 1), 6.02 * 8, 0.1);
  // A one-sided range [0, 1], asymmetric: the signal's power is 1/3, so 54.2 dB, not 48.1.
  std::vector<float> positive(n);
  for (std::size_t i = 0; i < n; ++i) positive[i] = 0.5f * (uniform[i] + 1);
  const Quantized qp = quantize(positive, n, 8, QuantScheme::asymmetric);
  EXPECT_NEAR(sqnr_db(positive, dequantize(qp)), theory::sqnr_uniform_db(qp.groups[0], 0, 1), 0.5);
  EXPECT_NEAR(theory::sqnr_uniform_db(qp.groups[0], 0, 1), 54.2, 0.1);
}

TEST(Quantization, StochasticRoundingIsUnbiasedNearestIsNot) {
  // Every x sits 0.3 of a step above a level: nearest always rounds down (bias −0.3 s); stochastic
  // rounding up with probability 0.3 averages to x.
  const std::size_t n = 1 << 20;
  std::vector<float> x(n, 0.0f);
  x[0] = 127.0f;  // symmetric int8: s = 1
  for (std::size_t i = 1; i < n; ++i) x[i] = static_cast<float>(i % 100) + 0.3f;
  const auto mean_error = [&](QuantRounding r) {
    const std::vector<double> back = dequantize(quantize(x, n, 8, QuantScheme::symmetric, r, 11));
    double e = 0;
    for (std::size_t i = 1; i < n; ++i) e += back[i] - x[i];
    return e / static_cast<double>(n - 1);
  };
  EXPECT_NEAR(mean_error(QuantRounding::nearest), -0.3, 1e-5);
  // σ of one error ≤ 0.5: 4σ/√n bounds the mean with overwhelming probability.
  EXPECT_LT(std::fabs(mean_error(QuantRounding::stochastic)), 4 * 0.5 / std::sqrt(double(n)));
}

TEST(Quantization, DefinedBehaviourOnBadInput) {
  const std::vector<float> zeros(64, 0.0f), same(64, 3.5f), neg(64, -2.0f);
  for (QuantScheme scheme : {QuantScheme::symmetric, QuantScheme::asymmetric}) {
    const Quantized z = quantize(zeros, 64, 8, scheme);
    EXPECT_EQ(z.groups[0].scale, 1.0);  // no division by zero: any scale represents 0
    for (double v : dequantize(z)) EXPECT_EQ(v, 0.0);
    for (const auto* data : {&same, &neg}) {  // one value: represented exactly
      const Quantized q = quantize(*data, 64, 8, scheme);
      const std::vector<double> back = dequantize(q);
      for (std::size_t i = 0; i < back.size(); ++i)
        EXPECT_NEAR(back[i], (*data)[i], 1e-6) << static_cast<int>(scheme);
    }
  }
  std::vector<float> bad = same;
  bad[5] = NAN;
  EXPECT_THROW(quantize(bad, 64, 8, QuantScheme::symmetric), std::invalid_argument);
  bad[5] = -INFINITY;
  EXPECT_THROW(quantize(bad, 64, 8, QuantScheme::asymmetric), std::invalid_argument);
  EXPECT_THROW(quantize(same, 48, 8, QuantScheme::symmetric), std::invalid_argument);  // 48 ∤ 64
  EXPECT_THROW(quantize(same, 0, 8, QuantScheme::symmetric), std::invalid_argument);
  EXPECT_THROW(quantize(same, 64, 1, QuantScheme::symmetric), std::invalid_argument);
  EXPECT_THROW(theory::int_quant_params(2, 1, 8, QuantScheme::asymmetric), std::invalid_argument);
}

TEST(Quantization, ParamsHandWorked) {
  const auto s = theory::int_quant_params(-2.0, 1.0, 8, QuantScheme::symmetric);
  EXPECT_DOUBLE_EQ(s.scale, 2.0 / 127);
  EXPECT_EQ(s.zero_point, 0);
  const auto a = theory::int_quant_params(-1.0, 3.0, 8, QuantScheme::asymmetric);
  EXPECT_DOUBLE_EQ(a.scale, 4.0 / 255);
  EXPECT_EQ(a.zero_point, 64);  // round(1 / (4/255)) = round(63.75)
  const auto u4 = theory::int_quant_params(0.5, 2.0, 4, QuantScheme::asymmetric);
  EXPECT_DOUBLE_EQ(u4.scale, 2.0 / 15);  // widened to hold 0
  EXPECT_EQ(u4.zero_point, 0);
}

}  // namespace
}  // namespace bb::reference
