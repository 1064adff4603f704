// The GEMM precision matrix on the host: the exact reference (integer data, cancellation, fp64
// products), the host fp32 GEMM against its k-order definition and its bound, the theory's numbers
// against hand-computed values, the input-rounding term, and host cases run end to end through
// their checks — which also fail on synthetic results that break a law.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/host_info.h"
#include "kernels/gemm_precision.h"
#include "reference/formats.h"
#include "reference/gemm.h"
#include "reference/random.h"
#include "suites/precision/precision_suite.h"
#include "theory/gemm_error.h"

namespace bb {
namespace {

TEST(GemmReference, ExactOnIntegerData) {
  const int m = 5, n = 7, k = 1000;
  std::vector<double> a(m * k), b(k * n);
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<double>(reference::splitmix64(i) % 2001) - 1000;
  for (std::size_t i = 0; i < b.size(); ++i)
    b[i] = static_cast<double>(reference::splitmix64(i + 99999) % 2001) - 1000;
  const reference::GemmExact e = reference::gemm_exact(a, b, m, n, k);
  bool any_differ = false;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      std::int64_t want = 0, abs = 0;
      for (int p = 0; p < k; ++p) {
        const auto x =
            static_cast<std::int64_t>(a[i * k + p]) * static_cast<std::int64_t>(b[j * k + p]);
        want += x;
        abs += x < 0 ? -x : x;
      }
      const std::size_t idx = static_cast<std::size_t>(i + j * m);
      EXPECT_EQ(e.hi[idx], static_cast<double>(want)) << i << "," << j;
      EXPECT_EQ(e.lo[idx], 0.0);
      EXPECT_EQ(e.abs[idx], static_cast<double>(abs));
      any_differ |= e.hi[idx] != e.hi[0];
    }
  EXPECT_TRUE(any_differ);
}

TEST(GemmReference, KeepsWhatDoubleLoses) {
  // 2^60 + 1 − 2^60: a double sum gives 0, the pair keeps the 1.
  const std::vector<double> a = {0x1p30, 1, -0x1p30}, b = {0x1p30, 1, 0x1p30};
  const reference::GemmExact e = reference::gemm_exact(a, b, 1, 1, 3);
  EXPECT_EQ(e.hi[0] + e.lo[0], 1.0);
  EXPECT_EQ(reference::gemm_entry_error(1.0, e, 0), 0.0);
  EXPECT_EQ(reference::gemm_entry_error(0.0, e, 0), -1.0);
  // A product of two 53-bit significands: (1 + 2^-52)² = 1 + 2^-51 + 2^-104.
  const std::vector<double> x = {1 + 0x1p-52}, y = {1 + 0x1p-52};
  const reference::GemmExact p = reference::gemm_exact(x, y, 1, 1, 1);
  EXPECT_EQ(p.hi[0], 1 + 0x1p-51);
  EXPECT_EQ(p.lo[0], 0x1p-104);
}

TEST(GemmReference, NormalizedErrorsAndPoison) {
  const std::vector<double> a = {1, 2}, b = {3, -1};  // 1·3 + 2·(−1) = 1, |A||B| = 5
  const reference::GemmExact e = reference::gemm_exact(a, b, 1, 1, 2);
  const std::vector<double> good = {1.5}, poisoned = {std::nan("")};
  EXPECT_DOUBLE_EQ(reference::gemm_normalized_errors(good, e)[0], 0.1);
  EXPECT_TRUE(std::isnan(reference::gemm_normalized_errors(poisoned, e)[0]));
  const auto s = reference::summarize_gemm_errors(reference::gemm_normalized_errors(poisoned, e));
  EXPECT_EQ(s.not_finite, 1u);
  EXPECT_TRUE(std::isinf(s.max));
}

TEST(GemmReference, E4m3ScaleIsAPowerOfTwoAndExact) {
  std::vector<double> x(1000);
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = reference::gemm_test_value(reference::GemmData::mixed, 3, i) * 0.01;
  double amax = 0;
  for (double v : x) amax = std::max(amax, std::fabs(v));
  const auto r = reference::round_matrix(reference::GemmStorage::e4m3, x);
  int e = 0;
  EXPECT_EQ(std::frexp(r.scale, &e), 0.5);  // a power of two: 2^(e − 1)
  EXPECT_LE(amax * r.scale, 448.0);         // amax lands in [224, 448]
  EXPECT_GT(amax * r.scale, 224.0);
  const auto& f = theory::format_spec(theory::Format::e4m3);
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(r.values[i], reference::decode(f, r.bytes[i]) / r.scale);
    EXPECT_LE(std::fabs(r.values[i] * r.scale), 448.0);
  }
}

TEST(GemmTheory, HandComputedValues) {
  EXPECT_EQ(theory::nearest_unit(24), 0x1p-24);
  EXPECT_EQ(theory::nearest_unit(11), 0x1p-11);     // fp16: u = 2^-11 (FACTS.md)
  EXPECT_EQ(theory::nearest_unit(8), 0x1p-8);       // bf16: u = 2^-8 (FACTS.md)
  EXPECT_EQ(theory::truncation_unit(24), 0x1p-23);  // fp32 truncated: one ulp of 1, 2^(1−24)
  EXPECT_EQ(theory::truncation_unit(11), 0x1p-10);  // tf32: 11 significant bits
  EXPECT_EQ(theory::input_rounding_term(0x1p-8), 0x1p-7 + 0x1p-16);
  // fp32 host, K = 1024: γ_1024(2^-24) = 2^-14 / (1 − 2^-14).
  const double g1024 = 0x1p-14 / (1 - 0x1p-14);
  EXPECT_NEAR(theory::gemm_error_factor(kernels::kHostFp32Model, 1024), g1024, 1e-14 * g1024);
  // tf32, K = 1: (1 + 2^-10)²(1 + 2^-23/(1 − 2^-23)) − 1.
  const auto& tf32 = kernels::gemm_mode_spec(kernels::GemmMode::tf32).model;
  const double tf32_1 = (1 + 0x1p-10) * (1 + 0x1p-10) * (1 + 0x1p-23 / (1 - 0x1p-23)) - 1;
  EXPECT_NEAR(theory::gemm_error_factor(tf32, 1), tf32_1, 1e-12 * tf32_1);
  // fp8 with promotion every 128: a product meets 128 truncations in the stage (each product of
  // an instruction is cut), then K/128 fp32 roundings; never promoted: K in the stage, none after.
  const auto& e4m3 = kernels::gemm_mode_spec(kernels::GemmMode::e4m3).model;
  const auto& fast = kernels::gemm_mode_spec(kernels::GemmMode::e4m3_fast_accum).model;
  EXPECT_EQ(theory::gemm_roundings(e4m3, 1024).stage, 128);
  EXPECT_EQ(theory::gemm_roundings(e4m3, 1024).accumulate, 8);
  EXPECT_EQ(theory::gemm_roundings(fast, 1024).stage, 1024);
  EXPECT_EQ(theory::gemm_roundings(fast, 1024).accumulate, 0);
  EXPECT_EQ(theory::gemm_roundings(e4m3, 64).stage, 64);
  const double fast_1024 = 1024 * 0x1p-13 / (1 - 1024 * 0x1p-13);
  EXPECT_NEAR(theory::gemm_error_factor(fast, 1024), fast_1024, 1e-14 * fast_1024);
  // Fast accumulation at K ≥ 8192: K·2^-13 ≥ 1, no deterministic bound is left.
  EXPECT_TRUE(std::isinf(theory::gemm_error_factor(fast, 8192)));
  // bf16x9: 9 addends per k.
  const auto& x9 = kernels::gemm_mode_spec(kernels::GemmMode::bf16x9).model;
  EXPECT_EQ(theory::gemm_roundings(x9, 100).accumulate, 900);
  // λ = √(2 ln 4n): 2n·exp(−λ²/2) = 1/2.
  EXPECT_NEAR(theory::median_lambda(64), std::sqrt(2 * std::log(256.0)), 1e-15);
  EXPECT_NEAR(2 * 64 * std::exp(-std::pow(theory::median_lambda(64), 2) / 2), 0.5, 1e-12);
  // Probabilistic factor of one stage: exp(λ√n·u + n·u²/(1 − u)) − 1.
  const double u = 0x1p-24, n = 4096, lam = theory::median_lambda(n);
  const double p4096 = std::expm1(lam * 64 * u + n * u * u / (1 - u));
  EXPECT_NEAR(theory::gemm_probabilistic_factor(kernels::kHostFp32Model, n, lam), p4096,
              1e-13 * p4096);
  EXPECT_LT(theory::gemm_probabilistic_factor(kernels::kHostFp32Model, n, lam),
            theory::gemm_error_factor(kernels::kHostFp32Model, n));
  EXPECT_EQ(theory::effective_bits(0x1p-20), 20);
  EXPECT_TRUE(std::isinf(theory::effective_bits(0)));
  // Beyond n·u ≥ 1 the deterministic bound says nothing.
  EXPECT_TRUE(std::isinf(theory::gemm_error_factor(kernels::kHostFp32Model, 0x1p24)));
}

TEST(GemmTheory, InputRoundingTermHoldsAndIsNearlyAttained) {
  // Truncation into tf32 (11 significant bits) of random fp32 pairs: |âb̂ − ab| ≤ (2u + u²)|ab|
  // with u = 2^(1−11), and the worst of 10^5 pairs comes within a factor 2 of it.
  const auto& tf32 = theory::format_spec(theory::Format::tf32);
  const double u = theory::truncation_unit(11), term = theory::input_rounding_term(u);
  double worst = 0;
  for (std::uint64_t i = 0; i < 100000; ++i) {
    const double a = static_cast<float>(0.1 + 9.9 * reference::uniform01(7, i));
    const double b = static_cast<float>(-(0.1 + 9.9 * reference::uniform01(8, i)));
    const double at =
        reference::decode(tf32, reference::encode(tf32, a, reference::Rounding::toward_zero));
    const double bt =
        reference::decode(tf32, reference::encode(tf32, b, reference::Rounding::toward_zero));
    const double ratio = std::fabs(at * bt - a * b) / (std::fabs(a * b) * term);
    ASSERT_LE(ratio, 1.0) << a << " * " << b;
    worst = std::max(worst, ratio);
  }
  EXPECT_GT(worst, 0.5);
}

TEST(GemmHostKernel, SumsEachEntryInKOrderInFp32) {
  const int m = 9, n = 13, k = 777;  // odd sizes
  std::vector<float> a(m * k), b(k * n), c(m * n, std::nanf(""));
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<float>(reference::gemm_test_value(reference::GemmData::mixed, 1, i));
  for (std::size_t i = 0; i < b.size(); ++i)
    b[i] = static_cast<float>(reference::gemm_test_value(reference::GemmData::mixed, 2, i));
  kernels::gemm_fp32_host(a.data(), b.data(), c.data(), m, n, k);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float s = 0;
      for (int p = 0; p < k; ++p) s = s + a[i * k + p] * b[j * k + p];
      ASSERT_EQ(c[i + j * m], s) << i << "," << j;  // bit-exact: the same roundings in order
    }
  EXPECT_THROW(kernels::gemm_fp32_host(a.data(), b.data(), c.data(), 0, n, k),
               std::invalid_argument);
}

TEST(GemmHostKernel, WithinItsBound) {
  const int m = 16, n = 16, k = 4096;
  std::vector<float> a(m * k), b(k * n), c(m * n);
  std::vector<double> ad(a.size()), bd(b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    ad[i] = a[i] = static_cast<float>(reference::gemm_test_value(reference::GemmData::mixed, 5, i));
  for (std::size_t i = 0; i < b.size(); ++i)
    bd[i] = b[i] = static_cast<float>(reference::gemm_test_value(reference::GemmData::mixed, 6, i));
  kernels::gemm_fp32_host(a.data(), b.data(), c.data(), m, n, k);
  const reference::GemmExact e = reference::gemm_exact(ad, bd, m, n, k);
  const std::vector<double> cd(c.begin(), c.end());
  const suites::GemmErrorReport r = suites::gemm_error_report(cd, e, kernels::kHostFp32Model);
  EXPECT_TRUE(r.comparison.ok()) << r.comparison.describe();
  EXPECT_LE(r.observations["worst_error_over_bound"].get<double>(), 1.0);
  EXPECT_GT(r.observations["median_normalized_error"].get<double>(), 0.0);  // not exact by luck
  // A dropped term (one product of ~0.25 against a bound of ~4096·2^-24·|A||B|) is caught.
  std::vector<double> wrong = cd;
  wrong[3] -= ad[3 * k + 7] * bd[0 * k + 7];
  EXPECT_FALSE(suites::gemm_error_report(wrong, e, kernels::kHostFp32Model).comparison.ok());
}

CaseResult run_case(const Case& c) {
  HostInfo host;
  const CaseContext ctx{host, nullptr, true};
  Prepared p = prepare_case(c, ctx);
  const Comparison cmp = p.instance->validate();
  EXPECT_TRUE(cmp.ok()) << c.name << ": " << cmp.describe();
  p.instance->run(nullptr);
  CaseResult r;
  r.name = c.name;
  r.backend = c.backend;
  r.params = p.params;
  r.observations = p.instance->observations();
  r.work = p.work;
  r.summary.median_s = 1e-3;
  return r;
}

const Check* find(const std::vector<Check>& checks, const std::string& name) {
  for (const Check& c : checks)
    if (c.name == name) return &c;
  return nullptr;
}

TEST(GemmHostCases, RunEndToEndAndTheirChecksPass) {
  std::vector<CaseResult> results;
  for (const Case& c : suites::gemm_host_cases())
    if (c.name.find("/mixed/") != std::string::npos &&
        (c.name.ends_with("/k64") || c.name.ends_with("/k512") || c.name.ends_with("/k4096")))
      results.push_back(run_case(c));
  ASSERT_EQ(results.size(), 3u);
  const std::vector<Check> checks = suites::gemm_suite_checks(results);
  for (const char* name : {"gemm/fp32/host/mixed/bound", "gemm/fp32/host/mixed/probabilistic",
                           "gemm/fp32/host/mixed/growth"}) {
    const Check* c = find(checks, name);
    ASSERT_NE(c, nullptr) << name;
    EXPECT_EQ(c->verdict, Verdict::pass) << name << ": " << c->reason;
  }
  EXPECT_NEAR(find(checks, "gemm/fp32/host/mixed/growth")->measured, 0.5, 0.15);
  EXPECT_EQ(find(checks, "gemm/fp32/host/zero_mean/bound"), nullptr);  // no cases: no check
}

CaseResult synthetic(const std::string& mode, const std::string& data, double k, double worst,
                     double median, double over_prob) {
  CaseResult r;
  r.name = "gemm/" + mode + "/host/" + data + "/k" + std::to_string(static_cast<int>(k));
  r.params = {{"gemm_mode", mode}, {"data", data}, {"k", k}};
  r.observations = {{"worst_error_over_bound", worst},
                    {"median_normalized_error", median},
                    {"median_over_probabilistic", over_prob},
                    {"effective_bits", -std::log2(median)}};
  return r;
}

TEST(GemmChecks, FailOnResultsThatBreakALaw) {
  // Errors growing like K (no cancellation) beyond the bound at one K and the probabilistic law.
  std::vector<CaseResult> results;
  for (double k : {64.0, 1024.0, 16384.0})
    results.push_back(synthetic("fp32", "mixed", k, k == 1024 ? 1.2 : 0.5, 1e-9 * k, k / 8000));
  const std::vector<Check> checks = suites::gemm_suite_checks(results);
  EXPECT_EQ(find(checks, "gemm/fp32/host/mixed/bound")->verdict, Verdict::fail);
  EXPECT_EQ(find(checks, "gemm/fp32/host/mixed/probabilistic")->verdict, Verdict::fail);
  EXPECT_EQ(find(checks, "gemm/fp32/host/mixed/growth")->verdict, Verdict::fail);
  EXPECT_NEAR(find(checks, "gemm/fp32/host/mixed/growth")->measured, 1.0, 1e-9);
  // A NaN (unwritten) entry is never within the bound.
  const std::vector<Check> nan =
      suites::gemm_suite_checks({synthetic("fp32", "zero_mean", 64, std::nan(""), 1e-8, 0.01)});
  EXPECT_EQ(find(nan, "gemm/fp32/host/zero_mean/bound")->verdict, Verdict::fail);
}

TEST(GemmChecks, ProbabilisticLawOnlyWhereItsModelHolds) {
  // A truncating accumulator on nonzero-mean data: the median may pass the probabilistic bound
  // or not, the law does not apply (SKIP); on zero-mean data it is checked (here: it fails).
  std::vector<CaseResult> results;
  for (double k : {64.0, 1024.0, 16384.0})
    for (const char* data : {"mixed", "zero_mean"}) {
      CaseResult r = synthetic("bf16", data, k, 0.5, 1e-9 * k, k / 8000);
      r.backend = Backend::cuda;
      r.params["accumulation_rounding"] = "toward zero";
      results.push_back(r);
    }
  const std::vector<Check> checks = suites::gemm_suite_checks(results);
  EXPECT_EQ(find(checks, "gemm/bf16/cuda/mixed/probabilistic")->verdict, Verdict::skip);
  EXPECT_EQ(find(checks, "gemm/bf16/cuda/zero_mean/probabilistic")->verdict, Verdict::fail);
  EXPECT_EQ(find(checks, "gemm/bf16/cuda/mixed/bound")->verdict, Verdict::pass);
}

TEST(GemmChecks, KWithoutADeterministicBoundIsNotHeld) {
  // fp8 never promoted: at K = 16384 the model bounds nothing; the other K are still held.
  std::vector<CaseResult> results;
  for (double k : {64.0, 1024.0, 16384.0}) {
    CaseResult r = synthetic("e4m3-fast-accum", "zero_mean", k, 0.5, 1e-4, 0.5);
    if (k == 16384) {
      r.observations.erase("worst_error_over_bound");
      r.observations["deterministic_bound"] = false;
    }
    results.push_back(r);
  }
  const std::vector<Check> checks = suites::gemm_suite_checks(results);
  const Check* bound = find(checks, "gemm/e4m3-fast-accum/host/zero_mean/bound");
  EXPECT_EQ(bound->verdict, Verdict::pass);
  EXPECT_EQ(bound->measured, 0.5);
  EXPECT_NE(bound->reason.find("no deterministic bound (n u >= 1) at K = 16384"), std::string::npos)
      << bound->reason;
  results.erase(results.begin(), results.begin() + 2);
  EXPECT_EQ(find(suites::gemm_suite_checks(results), "gemm/e4m3-fast-accum/host/zero_mean/bound")
                ->verdict,
            Verdict::skip);
}

TEST(GemmChecks, SpeedupOverFp32) {
  const auto throughput = [](const std::string& mode, double seconds, double peak) {
    CaseResult r;
    r.name = "gemm/" + mode + "/cuda/throughput/n8192";
    r.backend = Backend::cuda;
    r.params = {{"gemm_mode", mode}, {"throughput", true}, {"peak_flop_per_s", peak}};
    r.work.flop = 2.0 * 8192 * 8192 * 8192;
    r.summary.median_s = seconds;
    return r;
  };
  const std::vector<Check> checks = suites::gemm_suite_checks(
      {throughput("fp32", 0.02, 67e12), throughput("bf16", 0.0015, 989e12),
       throughput("fast-bf16", 0.03, 989e12), throughput("fp64", 0.03, 67e12)});
  EXPECT_EQ(find(checks, "gemm/bf16/cuda/speedup")->verdict, Verdict::pass);
  EXPECT_NEAR(find(checks, "gemm/bf16/cuda/speedup")->measured, 0.02 / 0.0015, 1e-9);
  EXPECT_NEAR(find(checks, "gemm/bf16/cuda/speedup")->predicted, 989.0 / 67, 1e-9);
  EXPECT_EQ(find(checks, "gemm/fast-bf16/cuda/speedup")->verdict, Verdict::fail);
  EXPECT_EQ(find(checks, "gemm/fp64/cuda/speedup"), nullptr);  // not a lower precision
}

}  // namespace
}  // namespace bb
