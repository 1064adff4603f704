// Summation and its error laws (theory/summation.h) on random data with fixed seeds: no error
// ever exceeds its deterministic bound, and the median error grows as the probabilistic analysis
// says — recursive summation's like √n, pairwise's far flatter, Kahan's not at all.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "reference/random.h"
#include "reference/summation.h"
#include "theory/summation.h"

namespace bb {
namespace {

constexpr double kLongDoubleU = 0x1p-64;

// Random signs, magnitudes in [0.5, 2): random-sign data, whose partial sums wander like √k.
template <class T>
std::vector<T> random_sign(std::size_t n, std::uint64_t seed, bool positive = false) {
  std::vector<T> x(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t r = reference::splitmix64(seed * 0x9E3779B97F4A7C15ull + i);
    const double mag = 0.5 + 1.5 * static_cast<double>(r >> 11) * 0x1p-53;
    x[i] = static_cast<T>(!positive && (r & 1) ? -mag : mag);
  }
  return x;
}

template <class T>
double u_of() {
  return sizeof(T) == 4 ? 0x1p-24 : 0x1p-53;
}

template <class T>
void expect_within_bounds() {
  for (std::size_t n = 16; n <= 16384; n *= 4)
    for (std::uint64_t seed = 0; seed < 20; ++seed)
      for (bool positive : {false, true}) {
        const std::vector<T> x = random_sign<T>(n, seed, positive);
        const reference::ExactSum e = reference::exact_sum<T>(x);
        const auto nn = static_cast<double>(n), abs_sum = static_cast<double>(e.abs_sum);
        const double ref_err = theory::gamma_n(nn - 1, kLongDoubleU) * abs_sum;
        const auto err = [&](T s) { return std::fabs(static_cast<double>(s - e.sum)); };
        EXPECT_LE(err(reference::recursive_sum<T>(x)),
                  theory::recursive_sum_bound(nn, u_of<T>(), abs_sum) + ref_err);
        EXPECT_LE(err(reference::pairwise_sum<T>(x)),
                  theory::pairwise_sum_bound(nn, u_of<T>(), abs_sum) + ref_err);
        EXPECT_LE(err(reference::kahan_sum<T>(x)),
                  theory::kahan_sum_bound(nn, u_of<T>(), abs_sum) + ref_err);
      }
}

TEST(Summation, ErrorsNeverExceedTheirBoundsFp32) { expect_within_bounds<float>(); }
TEST(Summation, ErrorsNeverExceedTheirBoundsFp64) { expect_within_bounds<double>(); }

// Least-squares slope of log y against log x.
double loglog_slope(const std::vector<double>& x, const std::vector<double>& y) {
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    mx += std::log(x[i]);
    my += std::log(y[i]);
  }
  mx /= static_cast<double>(x.size());
  my /= static_cast<double>(y.size());
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (std::log(x[i]) - mx) * (std::log(y[i]) - my);
    sxx += (std::log(x[i]) - mx) * (std::log(x[i]) - mx);
  }
  return sxy / sxx;
}

TEST(Summation, MedianErrorGrowsAsTheProbabilisticLawSays) {
  // Median over 101 seeds of the relative error |Ŝ − S| / |S|, fp32, random-sign data (the sum
  // S ~ √n), n = 2^4 … 2^16. With independent rounding errors (Higham & Mary 2019), recursive
  // summation's E = Σ δ_k s_k over partial sums s_k ~ √k gives |E| ~ u·n, so |E|/|S| ~ u·√n:
  // exponent ½; pairwise, whose tree has n/2^l sums of size ~√(2^l) at level l, gives
  // |E| ~ u·√(n log n): |E|/|S| ~ u·√(log n), nearly flat; Kahan's stays at a few u.
  std::vector<double> ns, rec, pair, kahan;
  for (std::size_t n = 16; n <= 65536; n *= 2) {
    std::vector<double> r, p, k;
    for (std::uint64_t seed = 0; seed < 101; ++seed) {
      const std::vector<float> x = random_sign<float>(n, 1000 + seed);
      const reference::ExactSum e = reference::exact_sum<float>(x);
      const auto err = [&](float s) {  // + 1e-30: an exact sum stays loggable
        return std::fabs(static_cast<double>(s - e.sum)) / std::fabs(static_cast<double>(e.sum)) +
               1e-30;
      };
      r.push_back(err(reference::recursive_sum<float>(x)));
      p.push_back(err(reference::pairwise_sum<float>(x)));
      k.push_back(err(reference::kahan_sum<float>(x)));
    }
    const auto median = [](std::vector<double> v) {
      std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
      return v[v.size() / 2];
    };
    ns.push_back(static_cast<double>(n));
    rec.push_back(median(r));
    pair.push_back(median(p));
    kahan.push_back(median(k));
  }
  const double s_rec = loglog_slope(ns, rec), s_pair = loglog_slope(ns, pair);
  std::printf("median relative error exponents: recursive %.3f, pairwise %.3f\n", s_rec, s_pair);
  EXPECT_NEAR(s_rec, 0.5, 0.15) << "recursive";
  EXPECT_NEAR(s_pair, 0.0, 0.2) << "pairwise";
  EXPECT_LT(s_pair, s_rec - 0.3);
  for (double k : kahan) EXPECT_LE(k, 2 * 0x1p-24);  // Kahan: the final rounding, whatever n
}

TEST(DotProduct, WithinGammaNAndMedianErrorGrowsAsSqrtN) {
  // A recursive fp32 dot product of random-sign vectors: every error within γ_n Σ|x_i y_i|, and
  // the median relative error over 101 seeds grows like √n, as for summation (the products'
  // roundings add n more independent errors of the same size).
  std::vector<double> ns, med;
  for (std::size_t n = 16; n <= 65536; n *= 4) {
    std::vector<double> rel;
    for (std::uint64_t seed = 0; seed < 101; ++seed) {
      const std::vector<float> x = random_sign<float>(n, 5000 + seed),
                               y = random_sign<float>(n, 9000 + seed);
      float s = 0;
      long double exact = 0, abs_sum = 0;
      for (std::size_t i = 0; i < n; ++i) {
        s = s + x[i] * y[i];  // no FMA contraction (-ffp-contract=off): product, then sum
        exact += static_cast<long double>(x[i]) * y[i];
        abs_sum += std::fabs(static_cast<long double>(x[i]) * y[i]);
      }
      const double err = std::fabs(static_cast<double>(s - exact));
      ASSERT_LE(err,
                theory::dot_bound(static_cast<double>(n), 0x1p-24, static_cast<double>(abs_sum)) *
                    (1 + 1e-9));
      rel.push_back(err / std::fabs(static_cast<double>(exact)) + 1e-30);
    }
    std::nth_element(rel.begin(), rel.begin() + rel.size() / 2, rel.end());
    ns.push_back(static_cast<double>(n));
    med.push_back(rel[rel.size() / 2]);
  }
  const double slope = loglog_slope(ns, med);
  std::printf("dot product median relative error exponent %.3f\n", slope);
  EXPECT_NEAR(slope, 0.5, 0.15);
}

TEST(SummationBounds, HandWorked) {
  const double u = 0x1p-24;
  EXPECT_DOUBLE_EQ(theory::gamma_n(2, 0.25), 1.0);
  EXPECT_TRUE(std::isinf(theory::gamma_n(4, 0.25)));
  EXPECT_DOUBLE_EQ(theory::recursive_sum_bound(1025, u, 1.0), theory::gamma_n(1024, u));
  EXPECT_DOUBLE_EQ(theory::pairwise_sum_bound(1025, u, 1.0), theory::gamma_n(11, u));
  EXPECT_NEAR(theory::probabilistic_dot_bound(1e4, u, 5, 1.0), 5 * 100 * u, 1e-3 * 5 * 100 * u);
  // n products at once: 2n·exp(−λ²(1 − u)²/2); (1 − u)² moves it by ~1.5e-6 relative.
  EXPECT_NEAR(theory::probabilistic_bound_failure(1e4, 5, u), 2e4 * std::exp(-12.5), 1e-5 * 0.075);
  EXPECT_EQ(theory::probabilistic_bound_failure(1e6, 5, u), 1.0);  // vacuous: capped at 1
}

TEST(SummationBounds, SecondValuesInOtherRegimes) {
  const double u = 0x1p-24;
  // Kahan: (2u + 2n·u²)·Σ|x|; n = 1024: 2^-23 + 2·2^10·2^-48 = 2^-23 + 2^-37, ×3 for Σ|x| = 3;
  // no bound once n·u ≥ 1 (n = 2^24 in fp32).
  EXPECT_EQ(theory::kahan_sum_bound(1024, u, 1.0), 0x1p-23 + 0x1p-37);
  EXPECT_DOUBLE_EQ(theory::kahan_sum_bound(1024, u, 3.0), 3 * (0x1p-23 + 0x1p-37));
  EXPECT_TRUE(std::isinf(theory::kahan_sum_bound(0x1p24, u, 1.0)));
  // Dot product γ_n: n = 1000, fp32: 1000u / (1 − 1000u) = 5.9608197700840286e-05 (Python, from
  // the formula in doubles), × Σ|x·y| = 2. fp16 (u = 2^-11, FACTS.md) at n = 2048: n·u = 1, none.
  EXPECT_NEAR(theory::dot_bound(1000, u, 2.0), 2 * 5.9608197700840286e-05, 1e-19);
  EXPECT_TRUE(std::isinf(theory::dot_bound(2048, 0x1p-11, 1.0)));
  // A tree of height 3: γ_3 = 3u / (1 − 3u) = 1.788139663006007e-07.
  EXPECT_NEAR(theory::tree_sum_bound(3, u, 1.0), 1.788139663006007e-07, 1e-22);
  // Pairwise at a power of two: ⌈log2 1024⌉ = 10 (not 11); one term: no addition, no error.
  EXPECT_DOUBLE_EQ(theory::pairwise_sum_bound(1024, u, 1.0), theory::gamma_n(10, u));
  EXPECT_EQ(theory::pairwise_sum_bound(1, u, 1.0), 0.0);
  // Probabilistic, fp16 (u = 2^-11), n = 100, λ = 1: expm1(λ√n·u + n·u²/(1 − u)) =
  // expm1(10·2^-11 + 100·2^-22/(1 − 2^-11)) = 0.004918723403248078 (Python math.expm1), a tenth
  // of the deterministic γ_100 = 100u/(1 − 100u) = 0.0513.
  EXPECT_NEAR(theory::probabilistic_dot_bound(100, 0x1p-11, 1, 1.0), 0.004918723403248078, 1e-17);
}

}  // namespace
}  // namespace bb
