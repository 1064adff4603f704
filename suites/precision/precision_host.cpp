// Host precision cases: fp32 → fp16 conversion (the CPU's instructions) bit-exact against the
// reference over a spread of every exponent, and recursive / pairwise / Kahan summation of
// random-sign fp32 data, its error against Higham's bounds (theory/summation.h).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "harness/host_threads.h"
#include "kernels/convert.h"
#include "reference/formats_fast.h"
#include "reference/random.h"
#include "reference/summation.h"
#include "suites/common/memory_guards.h"
#include "suites/precision/precision_suite.h"
#include "theory/formats.h"
#include "theory/summation.h"

namespace bb::suites {
namespace {

class ConvertFp16 final : public Instance {
 public:
  explicit ConvertFp16(std::size_t n) : x_(n), out_(n) {
    // Bit patterns spread over all of fp32 (a multiplicative hash of the index): every exponent,
    // subnormals, ±0 and ±inf; NaN patterns (whose payloads the instructions keep) become ±inf.
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t bits = static_cast<std::uint32_t>(i * 2654435761u);
      if ((bits & 0x7F800000u) == 0x7F800000u) bits &= 0xFF800000u;
      std::memcpy(&x_[i], &bits, 4);
    }
  }
  Comparison validate() override {
    std::fill(out_.begin(), out_.end(), std::uint16_t{0x7E01});  // poison: a NaN code
    kernels::fp32_to_fp16_host(x_.data(), out_.data(), x_.size());
    const auto& fp16 = theory::format_spec(theory::Format::fp16);
    std::vector<double> got(x_.size()), want(x_.size());
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < x_.size(); ++i) {
      std::uint32_t bits;
      std::memcpy(&bits, &x_[i], 4);
      // Codes, not values: −0 and +0 must differ too.
      got[i] = out_[i];
      want[i] = static_cast<double>(
          reference::encode_fp32_nearest(fp16, bits, reference::Overflow::non_saturating));
    }
    return compare<double, double>(got, want, Tolerance{0, 0});
  }
  void run(gpu_stream) override { kernels::fp32_to_fp16_host(x_.data(), out_.data(), x_.size()); }

 private:
  std::vector<float> x_;
  std::vector<std::uint16_t> out_;
};

// A host summation: its sum (reference/summation.h) and its bound (theory/summation.h).
struct SumAlgorithm {
  const char* name;
  float (*sum)(std::span<const float> x);
  double (*bound)(double n, double u, double abs_sum);
  bool compensated;
};

constexpr SumAlgorithm kSumAlgorithms[] = {
    {"recursive", reference::recursive_sum<float>, theory::recursive_sum_bound, false},
    {"pairwise", reference::pairwise_sum<float>, theory::pairwise_sum_bound, false},
    {"kahan", reference::kahan_sum<float>, theory::kahan_sum_bound, true}};

// `seeds` data sets of n random-sign values in ±[0.5, 2); one is summed per sample.
class Summation final : public Instance {
 public:
  Summation(SumAlgorithm a, std::size_t n, int seeds) : a_(a), n_(n), data_(seeds) {
    for (int s = 0; s < seeds; ++s) data_[s] = summation_data(s, n);
  }
  Comparison validate() override {
    std::vector<double> got, want, rel;
    double atol = 0;
    worst_ratio_ = 0;
    for (const auto& x : data_) {
      const reference::ExactSum e = reference::exact_sum<float>(x);
      const double s = a_.sum(x), exact = static_cast<double>(e.sum);
      // The long double reference's own error is part of the allowance (2^-40 of fp32's u).
      const double bound =
          a_.bound(static_cast<double>(n_), kFp32U, static_cast<double>(e.abs_sum)) +
          theory::gamma_n(static_cast<double>(n_), 0x1p-64) * static_cast<double>(e.abs_sum);
      got.push_back(s);
      want.push_back(exact);
      atol = std::max(atol, bound);
      worst_ratio_ = std::max(worst_ratio_, std::fabs(s - exact) / bound);
      rel.push_back(std::fabs(s - exact) / std::fabs(exact));
    }
    std::nth_element(rel.begin(), rel.begin() + rel.size() / 2, rel.end());
    median_relative_ = rel[rel.size() / 2];
    return compare<double, double>(got, want, Tolerance{atol, 0});
  }
  void run(gpu_stream) override { sink_ += a_.sum(data_[0]); }
  nlohmann::json observations() override {
    return {{"median_relative_error", median_relative_}, {"worst_error_over_bound", worst_ratio_}};
  }

 private:
  SumAlgorithm a_;
  std::size_t n_;
  std::vector<std::vector<float>> data_;
  double worst_ratio_ = 0, median_relative_ = 0;
  float sink_ = 0;
};

Case convert_case() {
  return {"convert/fp32-fp16/host", Backend::host,
          [](const CaseContext& ctx) {
            // Input and output together span at least 2x the last-level cache (≥ 2^25 values).
            const std::size_t n = std::max<std::size_t>(std::size_t{1} << 25,
                                                        2 * ctx.host.last_level_cache_bytes() / 6);
            Declared d;
            d.work = work_of(theory::conversion_work(static_cast<double>(n), 4, 2));
            d.params = {{"from", "fp32"},
                        {"to", "fp16"},
                        {"rounding", "nearest_even"},
                        {"elements", n},
                        {"isa", kernels::fp32_to_fp16_host_isa()},
                        {"threads", openmp_threads()}};
            return d;
          },
          [](const CaseContext& ctx, Declared& d) -> std::unique_ptr<Instance> {
            const auto n = d.params.at("elements").get<std::size_t>();
            check_host_memory(ctx.host, n * 6 + n * 16);  // data, output, validation copies
            return std::make_unique<ConvertFp16>(n);
          },
          nullptr};
}

constexpr int kSummationSeeds = 25;  // data sets per size

Case summation_case(const SumAlgorithm& a, std::size_t n) {
  Case c{std::string("summation/") + a.name + "/fp32/host/n" + std::to_string(n), Backend::host,
         [a, n](const CaseContext&) {
           return summation_declared(a.name, n, kSummationSeeds,
                                     theory::summation_flop_per_element(a.compensated));
         },
         [a, n](const CaseContext&, Declared&) -> std::unique_ptr<Instance> {
           return std::make_unique<Summation>(a, n, kSummationSeeds);
         },
         nullptr};
  c.sweep_point = true;
  return c;
}

}  // namespace

Declared summation_declared(const char* algorithm, std::size_t n, int seeds,
                            double flop_per_element) {
  Declared d;
  d.work = work_of(theory::summation_work(static_cast<double>(n), 4, flop_per_element),
                   theory::Precision::fp32, "hierarchy");
  d.params = {{"algorithm", algorithm},
              {"dtype", "fp32"},
              {"n", n},
              {"seeds", seeds},
              {"unit_roundoff", kFp32U},
              {"data", "random signs, magnitudes in [0.5, 2)"}};
  return d;
}

std::vector<float> summation_data(int seed, std::size_t n) {
  std::vector<float> x(n);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t r = reference::splitmix64((seed + 1) * 0x9E3779B97F4A7C15ull + i);
    const double mag = 0.5 + 1.5 * static_cast<double>(r >> 11) * 0x1p-53;
    x[i] = static_cast<float>(r & 1 ? -mag : mag);
  }
  return x;
}

std::vector<Case> precision_host_cases() {
  std::vector<Case> cases = {convert_case()};
  for (const SumAlgorithm& a : kSumAlgorithms)
    for (std::size_t n = 256; n <= (std::size_t{1} << 20); n *= 8)
      cases.push_back(summation_case(a, n));
  for (auto& c : quant_host_cases()) cases.push_back(std::move(c));
  for (auto& c : block_quant_host_cases()) cases.push_back(std::move(c));
  return cases;
}

}  // namespace bb::suites
