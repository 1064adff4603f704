// Host int8 quantization x ≈ s·(q − z): per tensor, per channel (rows of 4096) and per group of
// 128, symmetric and asymmetric, nearest and stochastic rounding, over 2^24 values uniform in
// [−1.5, 2.5] (each group's own range). Bit-exact against reference/quant.h; per case the laws:
// |x − x̂| ≤ s/2 (nearest; < s stochastic), noise power s²/12 (nearest) or s²/6 (stochastic) as
// SQNR within 0.5 dB, and stochastic rounding unbiased.
#include <cmath>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "harness/host_threads.h"
#include "kernels/quant.h"
#include "reference/quant.h"
#include "reference/random.h"
#include "suites/common/memory_guards.h"
#include "suites/common/parallel.h"
#include "suites/precision/precision_suite.h"
#include "theory/quant.h"

namespace bb::suites {
namespace {

constexpr std::size_t kElements = std::size_t{1} << 24, kChannel = 4096, kGroup = 128;

template <class Q>
class QuantHost final : public Instance {
 public:
  explicit QuantHost(QuantSetup s)
      : s_(s),
        x_(quant_data(kElements)),
        q_(kElements),
        xr_(kElements),
        mins_(kElements / s.group),
        maxs_(kElements / s.group),
        params_(kElements / s.group) {}
  Comparison validate() override {
    std::fill(q_.begin(), q_.end(), Q{0x5A});
    std::fill(xr_.begin(), xr_.end(), std::nanf(""));
    run(nullptr);
    kernels::dequantize_host(q_.data(), kElements, s_.group, params_.data(), xr_.data());
    const Comparison c = quant_compare<Q>(s_, x_, q_, params_, xr_);
    measure_laws();
    return c;
  }
  void run(gpu_stream) override {
    if (s_.group < kElements) {  // per channel, per group: one fused pass, each group in cache
      kernels::quantize_groups_host(x_.data(), kElements, s_.group, 8, s_.scheme, s_.stochastic, 7,
                                    q_.data(), params_.data());
      return;
    }
    kernels::group_minmax_host(x_.data(), kElements, s_.group, mins_.data(), maxs_.data());
    for (std::size_t g = 0; g < params_.size(); ++g)
      params_[g] = theory::int_quant_params(mins_[g], maxs_[g], 8, s_.scheme);
    kernels::quantize_host(x_.data(), kElements, s_.group, params_.data(), s_.stochastic, 7,
                           q_.data());
  }
  nlohmann::json observations() override { return laws_; }

 private:
  // Error bound, noise power and bias over the whole tensor, from the validated output.
  void measure_laws() {
    double worst = 0, signal = 0, noise = 0, law_noise = 0, sum_error = 0;
    for (std::size_t i = 0; i < kElements; ++i) {
      const double s = params_[i / s_.group].scale, e = static_cast<double>(xr_[i]) - x_[i];
      // x̂ is stored as a float: its own rounding (half an ulp of x̂) adds to the bound.
      const double half_ulp = (std::nextafter(std::fabs(xr_[i]), INFINITY) - std::fabs(xr_[i])) / 2;
      worst = std::max(worst, std::fabs(e) / (s / 2 + half_ulp));
      signal += static_cast<double>(x_[i]) * x_[i];
      noise += e * e;
      law_noise += s * s / (s_.stochastic ? 6 : 12);
      sum_error += e;
    }
    laws_ = {{"worst_error_over_half_step", worst},
             {"sqnr_db", 10 * std::log10(signal / noise)},
             {"sqnr_law_db", 10 * std::log10(signal / law_noise)},
             {"mean_error_z", sum_error / std::sqrt(law_noise)}};
  }

  QuantSetup s_;
  std::vector<float> x_;
  std::vector<Q> q_;
  std::vector<float> xr_, mins_, maxs_;
  std::vector<theory::IntQuant> params_;
  nlohmann::json laws_;
};

Case quant_case(QuantSetup s, bool in_quick) {
  const std::string name = quant_case_name(s, Backend::host);
  Case c{name, Backend::host,
         [s](const CaseContext&) {
           Declared d = quant_declared(s, kElements);
           d.params["data"] = "uniform in [-1.5, 2.5)";
           d.params["threads"] = openmp_threads();
           return d;
         },
         [s](const CaseContext& ctx, Declared&) -> std::unique_ptr<Instance> {
           check_host_memory(ctx.host, kElements * 10);
           if (s.symmetric()) return std::make_unique<QuantHost<std::int8_t>>(s);
           return std::make_unique<QuantHost<std::uint8_t>>(s);
         },
         [name, s](const Prepared& p, const Measurement&) {
           const nlohmann::json o = p.instance->observations();
           const double worst = o.value("worst_error_over_half_step", 0.0);
           const double sqnr = o.value("sqnr_db", 0.0), law = o.value("sqnr_law_db", 0.0);
           const double z = o.value("mean_error_z", 0.0);
           std::vector<Check> checks;
           const double limit = s.stochastic ? 2 : 1 + 1e-9;  // 1e-9: the double arithmetic of x^
           checks.push_back(precision_check(
               name + "/error-bound",
               s.stochastic ? "|x - x^| < s (stochastic)"
                            : "|x - x^| <= s/2 (+ x^'s own float rounding)",
               limit, Band::at_most(limit), worst, 0,
               fmt::format("largest |x - x^| is {:.6f} of s/2 + ulp(x^)/2", worst)));
           checks.push_back(
               precision_check(name + "/sqnr", "SQNR = 10 log10(P / (s^2/12)) (stochastic: s^2/6)",
                               law, Band::plus_minus(law, 0.5), sqnr, 0.5,
                               fmt::format("SQNR {:.3f} dB, law {:.3f} dB (noise s^2/{})", sqnr,
                                           law, s.stochastic ? 6 : 12)));
           if (s.stochastic) {
             checks.push_back(
                 precision_check(name + "/unbiased", "E[x^ - x] = 0: |mean| <= 4 standard errors",
                                 0, Band::plus_minus(0, 4), z, 4,
                                 fmt::format("mean error {:.3f} standard errors from 0", z)));
           }
           return checks;
         }};
  c.in_quick = in_quick;
  return c;
}

}  // namespace

std::string quant_case_name(const QuantSetup& s, Backend backend) {
  return std::string("quantize/int8/") + s.granularity + "/" +
         (s.symmetric() ? "symmetric" : "asymmetric") + (s.stochastic ? "/stochastic" : "") + "/" +
         backend_name(backend);
}

Declared quant_declared(const QuantSetup& s, std::size_t elements) {
  Declared d;
  const double n = static_cast<double>(elements);
  d.work = work_of(theory::int_quant_work(n, 8));  // the range pass and the quantize pass
  d.params = {{"granularity", s.granularity},
              {"group_elements", s.group},
              {"scheme", s.symmetric() ? "symmetric" : "asymmetric"},
              {"rounding", s.stochastic ? "stochastic" : "nearest"},
              {"bits", 8},
              {"elements", elements}};
  return d;
}

std::vector<float> quant_data(std::size_t elements) {
  std::vector<float> x(elements);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < elements; ++i)
    x[i] = static_cast<float>(-1.5 + 4.0 * reference::uniform01(11, i));
  return x;
}

template <class Q>
Comparison quant_compare(const QuantSetup& s, std::span<const float> x, std::span<const Q> q,
                         std::span<const theory::IntQuant> params, std::span<const float> xr) {
  const reference::Quantized ref = reference::quantize(
      x, s.group, 8, s.scheme,
      s.stochastic ? reference::QuantRounding::stochastic : reference::QuantRounding::nearest, 7);
  const std::vector<double> ref_x = reference::dequantize(ref);
  const std::size_t wrong_codes = parallel_count(
      x.size(), [&](std::size_t i) { return static_cast<std::int32_t>(q[i]) != ref.q[i]; });
  const std::size_t wrong_values = parallel_count(
      x.size(), [&](std::size_t i) { return xr[i] != static_cast<float>(ref_x[i]); });
  std::size_t wrong_params = 0;
  for (std::size_t g = 0; g < params.size(); ++g)
    wrong_params +=
        params[g].scale != ref.groups[g].scale || params[g].zero_point != ref.groups[g].zero_point;
  const std::vector<double> got = {static_cast<double>(wrong_codes),
                                   static_cast<double>(wrong_values),
                                   static_cast<double>(wrong_params), 1.0};
  const std::vector<double> want = {0, 0, 0, 1.0};
  Comparison c = compare<double, double>(got, want, Tolerance{0, 0});
  c.reference_trivial = false;  // counts of wrong codes, values, parameters: all must be 0
  return c;
}
template Comparison quant_compare<std::int8_t>(const QuantSetup&, std::span<const float>,
                                               std::span<const std::int8_t>,
                                               std::span<const theory::IntQuant>,
                                               std::span<const float>);
template Comparison quant_compare<std::uint8_t>(const QuantSetup&, std::span<const float>,
                                                std::span<const std::uint8_t>,
                                                std::span<const theory::IntQuant>,
                                                std::span<const float>);

std::vector<Case> quant_host_cases() {
  const auto sym = theory::QuantScheme::symmetric, asym = theory::QuantScheme::asymmetric;
  return {quant_case({"per-tensor", kElements, sym, false}, true),
          quant_case({"per-tensor", kElements, asym, false}, false),
          quant_case({"per-channel", kChannel, sym, false}, false),
          quant_case({"per-channel", kChannel, asym, false}, false),
          quant_case({"per-group128", kGroup, sym, false}, false),
          quant_case({"per-group128", kGroup, asym, false}, true),
          quant_case({"per-group128", kGroup, sym, true}, true)};
}

}  // namespace bb::suites
