// GPU fp32 sums judged like the host summations: the deterministic two-pass tree
// (kernels/reduce.h) against γ_h Σ|x| with h its height, CUB's DeviceReduce::Sum against the
// any-order bound γ_{n−1} Σ|x|, over the same random-sign data sets and sizes up to 2^26; the
// suite's checks fit the median relative error's growth over n like the host's.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "harness/gpu.h"
#include "kernels/reduce.h"
#include "reference/summation.h"
#include "suites/precision/precision_suite.h"
#include "theory/summation.h"

namespace bb::suites {
namespace {

class SummationCuda final : public Instance {
 public:
  SummationCuda(bool cub, std::size_t n, int seeds)
      : cub_(cub),
        n_(n),
        seeds_(seeds),
        x0_(n * 4),
        xs_(n * 4),
        partials_(kernels::kReduceMaxBlocks * 4),
        out_(4),
        temp_(cub ? std::max<std::size_t>(kernels::cub_reduce_temp_bytes(n), 1) : 1) {
    const std::vector<float> x0 = summation_data(0, n);
    x0_.upload(x0.data(), n * 4);
  }
  Comparison validate() override {
    std::vector<double> got, want, rel;
    double atol = 0;
    worst_ratio_ = 0;
    const double h = cub_ ? static_cast<double>(n_) - 1 : kernels::reduce_tree_height(n_);
    for (int s = 0; s < seeds_; ++s) {
      const std::vector<float> x = summation_data(s, n_);
      xs_.upload(x.data(), n_ * 4);
      out_.fill_bytes(0xFF);  // poison: NaN
      sum(xs_.as<float>(), nullptr);
      float result = 0;
      out_.download(&result, 4);
      const reference::ExactSum e = reference::exact_sum<float>(x);
      const double exact = static_cast<double>(e.sum), abs_sum = static_cast<double>(e.abs_sum);
      // The long double reference's own error is part of the allowance, as on the host.
      const double bound = theory::tree_sum_bound(h, kFp32U, abs_sum) +
                           theory::gamma_n(static_cast<double>(n_), 0x1p-64) * abs_sum;
      got.push_back(result);
      want.push_back(exact);
      atol = std::max(atol, bound);
      worst_ratio_ = std::max(worst_ratio_, std::fabs(result - exact) / bound);
      rel.push_back(std::fabs(result - exact) / std::fabs(exact));
    }
    std::nth_element(rel.begin(), rel.begin() + rel.size() / 2, rel.end());
    median_relative_ = rel[rel.size() / 2];
    return compare<double, double>(got, want, Tolerance{atol, 0});
  }
  void run(gpu_stream stream) override { sum(x0_.as<float>(), stream); }
  nlohmann::json observations() override {
    return {
        {"median_relative_error", median_relative_},
        {"worst_error_over_bound", worst_ratio_},
        {"additions_height", cub_ ? static_cast<double>(n_) - 1 : kernels::reduce_tree_height(n_)}};
  }

 private:
  void sum(const float* x, gpu_stream stream) {
    if (cub_)
      kernels::reduce_cub_cuda(x, n_, temp_.get(), temp_.bytes(), out_.as<float>(), stream);
    else
      kernels::reduce_tree_cuda(x, n_, partials_.as<float>(), out_.as<float>(), stream);
  }

  bool cub_;
  std::size_t n_;
  int seeds_;
  DeviceBuffer x0_, xs_, partials_, out_, temp_;
  double worst_ratio_ = 0, median_relative_ = 0;
};

// Data sets per size: 25, 5 above 2^20 values.
int summation_seeds(std::size_t n) { return n <= (std::size_t{1} << 20) ? 25 : 5; }

Case summation_cuda_case(bool cub, std::size_t n) {
  const char* alg = cub ? "cub" : "tree";
  Case c{std::string("summation/") + alg + "/fp32/cuda/n" + std::to_string(n), Backend::cuda,
         [cub, alg, n](const CaseContext&) {
           Declared d = summation_declared(alg, n, summation_seeds(n),
                                           theory::summation_flop_per_element(false));
           // The suite fits the tree's growth only where it is one (kernels/reduce.h).
           d.params["growth_fit"] = cub || kernels::reduce_is_tree(n);
           return d;
         },
         [cub, n](const CaseContext&, Declared&) -> std::unique_ptr<Instance> {
           return std::make_unique<SummationCuda>(cub, n, summation_seeds(n));
         },
         nullptr};
  c.sweep_point = true;
  return c;
}

}  // namespace

std::vector<Case> summation_cuda_cases(const SuiteTarget& target) {
  std::vector<Case> cases;
  const std::size_t largest = affordable_elements(target.gpu, std::size_t{1} << 26);
  for (bool cub : {false, true})
    for (std::size_t n = 256; n <= largest; n *= 8) cases.push_back(summation_cuda_case(cub, n));
  return cases;
}

}  // namespace bb::suites
