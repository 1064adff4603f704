// The GPU's launch overhead, measured: a kernel of one thread that writes one int, timed by CUDA
// events like every CUDA case. Its fastest sample is the run's launch ceiling: every CUDA case
// launches at least one kernel per sample, so launches × that time bounds it (harness/bound.h), and
// an empty or tiny kernel's limiter is "overhead".
#include <vector>

#include "harness/gpu.h"
#include "kernels/empty.h"
#include "suites/suites.h"

namespace bb::suites {
namespace {

constexpr int kMark = 0x5eed;

class MarkCuda final : public Instance {
 public:
  MarkCuda() : out_(sizeof(int)) {}

  // Poisoned with 0xFF (-1), the kernel's one write must land.
  Comparison validate() override {
    out_.fill_bytes(0xFF);
    run(nullptr);
    int got = 0;
    out_.download(&got, sizeof(int));
    const std::vector<double> out = {static_cast<double>(got)}, want = {kMark};
    Comparison c = compare<double, double>(out, want, Tolerance{0, 0});
    // One value is "all equal" by count; but the poison (-1) is not the mark, so a missing or
    // wrong write is caught: not a trivial reference.
    c.reference_trivial = false;
    return c;
  }

  void run(gpu_stream s) override { kernels::launch_mark(out_.as<int>(), kMark, s); }

 private:
  DeviceBuffer out_;
};

}  // namespace

std::vector<Case> harness_cuda_cases() {
  return {{"overhead/cuda", Backend::cuda,
           [](const CaseContext&) {
             Declared d;
             d.work.bytes_written = sizeof(int);
             d.params = {{"kernel", "mark"}, {"blocks", 1}, {"threads", 1}};
             return d;
           },
           [](const CaseContext&, Declared&) -> std::unique_ptr<Instance> {
             return std::make_unique<MarkCuda>();
           }}};
}

}  // namespace bb::suites
