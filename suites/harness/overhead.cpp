// The harness measuring itself: a tiny L1-resident host triad whose samples are far shorter than
// the harness's bookkeeping, so (wall time − sum of samples) / samples is the per-sample overhead.
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "harness/checks.h"
#include "kernels/stream.h"
#include "reference/random.h"
#include "reference/stream.h"
#include "suites/common/stream.h"
#include "suites/suites.h"

namespace bb::suites {
namespace {

constexpr std::size_t kElements = 256;
constexpr double kMaxOverheadS = 5e-6;  // the foundation's target: ≤ 5 µs per sample

class SmallTriad final : public Instance {
 public:
  SmallTriad() : a_(kElements), b_(kElements), c_(kElements) {
    for (std::size_t i = 0; i < kElements; ++i) {
      b_[i] = reference::positive_test_value(3, i);
      c_[i] = reference::positive_test_value(4, i);
    }
  }
  Comparison validate() override {
    std::fill(a_.begin(), a_.end(), std::numeric_limits<double>::quiet_NaN());
    run(nullptr);
    std::vector<double> ref(kElements);
    reference::triad<double>(ref, b_, c_, 0.4);
    return compare<double, double>(a_, ref, {0.0, reference::stream_rtol<double>()});
  }
  void run(gpu_stream) override {
    kernels::stream_host(theory::StreamOp::triad, a_.data(), b_.data(), c_.data(), 0.4, kElements);
  }

 private:
  std::vector<double> a_, b_, c_;
};

std::vector<Check> overhead_check(const Prepared&, const Measurement& m) {
  // The harness's own target, not physics: time the machine gives to other work between samples
  // counts in it, so a miss is a finding (an expectation), not a failure.
  const CheckHead head{"harness", "overhead/host/per_sample",
                       "(wall time - sum of samples) / samples <= 5 us", CheckKind::expectation,
                       "overhead per sample"};
  return {point_check(
      head, kMaxOverheadS, Band::at_most(kMaxOverheadS), m.harness_overhead_s, 0,
      fmt::format("{:.3f} us per sample over {} samples (samples: median {:.3f} us)",
                  m.harness_overhead_s * 1e6, m.summary.samples, m.summary.median_s * 1e6))};
}

}  // namespace

std::vector<Case> harness_host_cases() {
  return {{"overhead/host", Backend::host,
           [](const CaseContext&) {
             Declared d;
             d.work = stream_work<double>(*theory::find_stream_kernel("triad"), kElements);
             d.work.memory_level = "l1";
             d.params = {{"kernel", "triad"}, {"dtype", "fp64"}, {"elements", kElements}};
             return d;
           },
           [](const CaseContext&, Declared&) -> std::unique_ptr<Instance> {
             return std::make_unique<SmallTriad>();
           },
           overhead_check}};
}

}  // namespace bb::suites
