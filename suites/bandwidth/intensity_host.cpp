// The host arithmetic-intensity sweep (mixbench-style): every element loaded once, put through k
// dependent FMAs and stored, k = 1 … 1024, fp64 and fp32. Low k is bound by DRAM bandwidth, high k
// by the FMA units: the measured ceilings and ridge point come out of one sweep.
#include <cmath>
#include <memory>
#include <vector>

#include "harness/host_threads.h"
#include "kernels/intensity.h"
#include "kernels/stream.h"
#include "suites/bandwidth/bandwidth_suite.h"
#include "suites/common/host_buffer.h"
#include "theory/intensity.h"

namespace bb::suites {
namespace {

// Up to k = 64 the array spans 2x the last-level cache; above it, each sample does about this many
// flop.
constexpr double kComputeFlop = 3e9;
constexpr std::size_t kCheckedElements = 1 << 14;

// x ← fma(x, a, b): fixed point b / (1 - a) = 0.25.
template <class T>
constexpr T kChainA = T(1) - T(1) / T(1024);
template <class T>
constexpr T kChainB = T(1) / T(4096);

template <class T>
class FmaChainHost final : public Instance {
 public:
  FmaChainHost(std::size_t n, int k) : n_(n), k_(k), x_(allocate_host<T>(n)) {
    kernels::fill_value_host(x_.get(), n_, T(0));
  }
  Comparison validate() override {
    kernels::fill_random_host(x_.get(), n_, 5);  // in [1, 2): far from the fixed point
    // Checked elements: both ends of every thread's share and a spread in between.
    std::vector<std::size_t> idx;
    const auto threads = static_cast<std::size_t>(openmp_threads());
    for (std::size_t t = 0; t <= threads; ++t)
      for (std::size_t d = 0; d < 70; ++d) {
        const std::size_t edge = n_ * t / threads;
        if (edge >= d + 1) idx.push_back(edge - d - 1);
        if (edge + d < n_) idx.push_back(edge + d);
      }
    for (std::size_t j = 0; j < kCheckedElements; ++j) idx.push_back(j * (n_ / kCheckedElements));
    std::vector<T> ref;
    for (std::size_t i : idx) {
      T v = x_[i];
      for (int j = 0; j < k_; ++j) v = std::fma(v, kChainA<T>, kChainB<T>);
      ref.push_back(v);
    }
    kernels::fma_chain_host(x_.get(), n_, k_, kChainA<T>, kChainB<T>);
    std::vector<T> out;
    for (std::size_t i : idx) out.push_back(x_[i]);
    return compare<T, T>(out, ref, Tolerance{0, 0});
  }
  void run(gpu_stream) override {
    kernels::fma_chain_host(x_.get(), n_, k_, kChainA<T>, kChainB<T>);
  }

 private:
  std::size_t n_;
  int k_;
  HostArray<T> x_;
};

template <class T>
Case intensity_case(const char* dtype, int k, bool in_quick) {
  Case c{std::string("intensity/") + dtype + "/host/k" + std::to_string(k), Backend::host,
         [dtype, k](const CaseContext& ctx) {
           const std::uint64_t llc = ctx.host.last_level_cache_bytes();
           const std::size_t n_dram = std::max<std::size_t>(kHostMinElements, 2 * llc / sizeof(T));
           const std::size_t n = intensity_elements(n_dram, k, kComputeFlop, false);
           Declared d;
           // Smaller arrays above the ridge are compute-bound wherever their bytes come from.
           d.work = work_of(theory::fma_chain_work(static_cast<double>(n), sizeof(T), k),
                            sizeof(T) == 8 ? theory::Precision::fp64 : theory::Precision::fp32,
                            n == n_dram ? "dram" : "hierarchy");
           d.params = {{"dtype", dtype},
                       {"fma_per_element", k},
                       {"elements", n},
                       {"element_bytes", sizeof(T)},
                       {"intensity_flop_per_byte", 2.0 * k / (2.0 * sizeof(T))},
                       {"isa", kernels::fma_chain_host_isa()},
                       // The host's peak estimate (lanes x 2 FMA units x 2 flop x cores x clock),
                       // for the ridge point; not a bound unless the clock is the maximum.
                       {"peak_flop_per_s",
                        ctx.host.peak_fp64_flop_per_s_estimate() * (sizeof(T) == 8 ? 1.0 : 2.0)},
                       {"peak_is_estimate", true},
                       {"threads", openmp_threads()}};
           d.host_memory_bytes = n * sizeof(T);
           return d;
         },
         [k](const CaseContext& ctx, Declared& d) -> std::unique_ptr<Instance> {
           const auto n = d.params.at("elements").get<std::size_t>();
           check_host_memory(ctx.host, n * sizeof(T));
           return std::make_unique<FmaChainHost<T>>(n, k);
         },
         nullptr};
  c.in_quick = in_quick;
  // A dtype's points sampled in the same rounds: the ceilings and the points per round.
  c.pairing_group = std::string("intensity/") + dtype;
  return c;
}

}  // namespace

std::vector<Case> intensity_host_cases() {
  std::vector<Case> cases;
  // Quick runs take every other k (1, 4, 16, …, 1024): still both sides of the ridge.
  for (int k = 1, i = 0; k <= 1024; k *= 2, ++i)
    cases.push_back(intensity_case<double>("fp64", k, i % 2 == 0));
  for (int k = 1; k <= 1024; k *= 2) cases.push_back(intensity_case<float>("fp32", k, false));
  return cases;
}

}  // namespace bb::suites
