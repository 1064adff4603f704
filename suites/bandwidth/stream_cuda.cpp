// STREAM triad on the GPU: 16-byte accesses, grid-stride, one full wave of 256-thread blocks, at a
// working set of at least 8x the L2 (and 2^25 elements), validated against the CPU reference.
#include <limits>
#include <vector>

#include "harness/gpu.h"
#include "kernels/stream.h"
#include "reference/random.h"
#include "reference/stream.h"
#include "suites/bandwidth/stream_sizes.h"
#include "suites/suites.h"

namespace bb::suites {
namespace {

constexpr int kThreads = 256;

template <class T>
class TriadCuda final : public Instance {
 public:
  TriadCuda(const GpuDevice& gpu, std::size_t n)
      : n_(n),
        blocks_(gpu.sm_count * std::max(1, gpu.max_threads_per_sm / kThreads)),
        a_(n * sizeof(T)),
        b_(n * sizeof(T)),
        c_(n * sizeof(T)),
        b_host_(n),
        c_host_(n) {
    for (std::size_t i = 0; i < n_; ++i) {
      b_host_[i] = static_cast<T>(reference::positive_test_value(1, i));
      c_host_[i] = static_cast<T>(reference::positive_test_value(2, i));
    }
    b_.upload(b_host_.data(), n_ * sizeof(T));
    c_.upload(c_host_.data(), n_ * sizeof(T));
  }

  Comparison validate() override {
    a_.fill_bytes(0xFF);  // poison: all-ones bytes are NaN in fp32 and fp64
    kernels::triad_cuda(a_.as<T>(), b_.as<T>(), c_.as<T>(), scalar_, n_, blocks_, kThreads,
                        nullptr);
    std::vector<T> out(n_), ref(n_);
    a_.download(out.data(), n_ * sizeof(T));
    reference::triad<T>(ref, b_host_, c_host_, scalar_);
    return compare<T, T>(out, ref, {0.0, reference::triad_rtol<T>()});
  }

  void run(gpu_stream s) override {
    kernels::triad_cuda(a_.as<T>(), b_.as<T>(), c_.as<T>(), scalar_, n_, blocks_, kThreads, s);
  }

  int blocks() const { return blocks_; }

 private:
  std::size_t n_;
  int blocks_;
  DeviceBuffer a_, b_, c_;
  std::vector<T> b_host_, c_host_;
  T scalar_ = T(0.4);
};

template <class T>
Case triad_case(const char* dtype) {
  return {std::string("triad/") + dtype + "/cuda", Backend::cuda,
          [dtype](const CaseContext& ctx) {
            const GpuDevice& gpu = *ctx.gpu;
            const std::size_t n = stream_elements(gpu.l2_bytes, sizeof(T), 3, kCudaMinElements);
            check_host_memory(ctx.host, 4 * n * sizeof(T));  // host copies of b, c, out, ref
            auto instance = std::make_unique<TriadCuda<T>>(gpu, n);
            Prepared p;
            p.params = {{"kernel", "triad"},
                        {"dtype", dtype},
                        {"elements", n},
                        {"element_bytes", sizeof(T)},
                        {"access_bytes", 16},
                        {"working_set_bytes", 3 * n * sizeof(T)},
                        {"l2_bytes", gpu.l2_bytes},
                        {"blocks", instance->blocks()},
                        {"threads_per_block", kThreads}};
            p.instance = std::move(instance);
            p.work = stream_work<T>(*theory::find_stream_kernel("triad"), n);
            return p;
          },
          nullptr};
}

}  // namespace

std::vector<Case> stream_cuda_cases() {
  return {triad_case<double>("fp64"), triad_case<float>("fp32")};
}

}  // namespace bb::suites
