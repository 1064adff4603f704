// The GEMM precision matrix on the host: an fp32 GEMM summing each entry in k order
// (kernels/gemm_precision_host.cpp) over K = 64 … 16384, against the exact product of the same fp32
// inputs (reference/gemm.h), on two data sets — random signs with a positive mean, whose median
// error grows like √K·u (Higham & Mary 2019), and zero-mean data, whose error relative to |A||B|
// stays flat (Higham & Mary 2020). Also the error report every GEMM error case shares.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/host_threads.h"
#include "kernels/gemm_precision.h"
#include "reference/gemm.h"
#include "suites/precision/precision_suite.h"
#include "theory/gemm.h"
#include "theory/gemm_error.h"

namespace bb::suites {
namespace {

constexpr int kHostM = 64, kHostN = 64;  // 4096 entries: a stable median, ~0.1 s per K = 16384
constexpr std::uint64_t kSeedA = 41, kSeedB = 42;
constexpr int kMinK = 64, kMaxK = 16384;

class GemmErrorHost final : public Instance {
 public:
  GemmErrorHost(reference::GemmData data, int m, int n, int k)
      : m_(m), n_(n), k_(k), c_(static_cast<std::size_t>(m) * static_cast<std::size_t>(n)) {
    const auto mk = static_cast<std::size_t>(m) * static_cast<std::size_t>(k);
    const auto kn = static_cast<std::size_t>(k) * static_cast<std::size_t>(n);
    a_.resize(mk), b_.resize(kn);
    for (std::size_t i = 0; i < mk; ++i)
      a_[i] = static_cast<float>(reference::gemm_test_value(data, kSeedA, i));
    for (std::size_t i = 0; i < kn; ++i)
      b_[i] = static_cast<float>(reference::gemm_test_value(data, kSeedB, i));
    a_exact_.assign(a_.begin(), a_.end()), b_exact_.assign(b_.begin(), b_.end());
  }
  Comparison validate() override {
    std::fill(c_.begin(), c_.end(), std::numeric_limits<float>::quiet_NaN());  // poison
    kernels::gemm_fp32_host(a_.data(), b_.data(), c_.data(), m_, n_, k_);
    if (!exact_) exact_ = reference::gemm_exact(a_exact_, b_exact_, m_, n_, k_);
    const std::vector<double> c(c_.begin(), c_.end());
    report_ = gemm_error_report(c, *exact_, kernels::kHostFp32Model);
    return report_.comparison;
  }
  void run(gpu_stream) override {
    kernels::gemm_fp32_host(a_.data(), b_.data(), c_.data(), m_, n_, k_);
  }
  nlohmann::json observations() override { return report_.observations; }

 private:
  int m_, n_, k_;
  std::vector<float> a_, b_, c_;
  std::vector<double> a_exact_, b_exact_;
  std::optional<reference::GemmExact> exact_;
  GemmErrorReport report_;
};

Case host_case(reference::GemmData data, int k, bool in_quick) {
  const std::string data_name = reference::gemm_data_name(data);
  Case c{"gemm/fp32/host/" + data_name + "/k" + std::to_string(k), Backend::host,
         [data_name, k](const CaseContext&) {
           Declared d;
           d.work = work_of(theory::gemm_work(kHostM, kHostN, k, 4, 4), theory::Precision::fp32,
                            "hierarchy");
           d.params = {{"gemm_mode", "fp32"},
                       {"library", "gemm_fp32_host: fp32 products and sums, k order"},
                       {"model", "gamma_K(2^-24)|A||B| (Higham 3.13)"},
                       {"accumulation_rounding", "nearest"},
                       {"data", data_name},
                       {"m", kHostM},
                       {"n", kHostN},
                       {"k", k},
                       {"threads", openmp_threads()}};
           return d;
         },
         [data, k](const CaseContext&, Declared&) -> std::unique_ptr<Instance> {
           return std::make_unique<GemmErrorHost>(data, kHostM, kHostN, k);
         },
         nullptr};
  c.sweep_point = true;
  c.in_quick = in_quick;
  return c;
}

}  // namespace

GemmErrorReport gemm_error_report(std::span<const double> c, const reference::GemmExact& exact,
                                  const theory::GemmErrorModel& model) {
  const double k = exact.k;
  const double model_factor = theory::gemm_error_factor(model, k);
  const double reference_factor = reference::gemm_exact_error_factor(k);
  const double bound_factor = model_factor + reference_factor;
  const theory::GemmRoundings r = theory::gemm_roundings(model, k);
  const double lambda = theory::median_lambda(r.stage + r.accumulate);
  const double probabilistic =
      theory::gemm_probabilistic_factor(model, k, lambda) + reference_factor;

  // Each entry's signed error over its own bound, compared with 0 at atol 1: |ĉ − c| ≤ β_ij entry
  // by entry; NaN (an entry never written) fails; the max abs error is the worst error / bound.
  GemmErrorReport rep;
  std::vector<double> scaled(c.size()), zero(c.size(), 0.0);
  for (std::size_t i = 0; i < c.size(); ++i) {
    const double bound =
        std::max(bound_factor * exact.abs[i], std::numeric_limits<double>::denorm_min());
    scaled[i] = reference::gemm_entry_error(c[i], exact, i) / bound;
  }
  rep.comparison = compare<double, double>(scaled, zero, Tolerance{1, 0});
  // The comparison's reference is 0 by construction; the product itself must not be trivial.
  rep.comparison.reference_trivial =
      std::all_of(exact.hi.begin(), exact.hi.end(), [&](double v) { return v == exact.hi[0]; });

  const reference::GemmErrorSummary s =
      reference::summarize_gemm_errors(reference::gemm_normalized_errors(c, exact));
  rep.observations = {{"k", exact.k},
                      {"entries", c.size()},
                      {"median_normalized_error", s.median},
                      {"max_normalized_error", s.max},
                      {"not_finite_entries", s.not_finite},
                      {"effective_bits", theory::effective_bits(s.median)},
                      {"reference_error_factor", reference_factor},
                      {"probabilistic_factor", probabilistic},
                      {"probabilistic_lambda", lambda},
                      {"median_over_probabilistic", s.median / probabilistic}};
  // A model whose γ has n·u ≥ 1 bounds nothing (fp8 never promoted, K ≥ 8192): no bound to hold.
  rep.observations["deterministic_bound"] = std::isfinite(bound_factor);
  if (std::isfinite(bound_factor)) {
    rep.observations["worst_error_over_bound"] = s.max / bound_factor;
    rep.observations["bound_factor"] = bound_factor;
    rep.observations["model_bound_factor"] = model_factor;
  }
  return rep;
}

std::vector<Case> gemm_host_cases() {
  std::vector<Case> cases;
  // Nonzero mean: every power of two (quick: 64, 256, …, 16384); zero mean: every power of four
  // (quick: 64, 1024, 16384). About 6 s in all on 2 cores, 1 s quick.
  for (int k = kMinK, i = 0; k <= kMaxK; k *= 2, ++i)
    cases.push_back(host_case(reference::GemmData::mixed, k, i % 2 == 0));
  for (int k = kMinK, i = 0; k <= kMaxK; k *= 4, ++i)
    cases.push_back(host_case(reference::GemmData::zero_mean, k, i % 2 == 0));
  return cases;
}

}  // namespace bb::suites
