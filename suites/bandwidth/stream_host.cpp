// STREAM triad on the host: OpenMP threads, vectorised, at a working set of at least 8x the
// last-level cache, validated against the long-double reference before it is timed.
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <stdexcept>
#include <vector>

#include "harness/host_threads.h"
#include "kernels/stream.h"
#include "reference/stream.h"
#include "suites/bandwidth/stream_sizes.h"
#include "suites/suites.h"
#include "theory/stream.h"

namespace bb::suites {
namespace {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

template <class T>
using HostArray = std::unique_ptr<T[], FreeDeleter>;

// Uninitialised, 64-byte aligned: the first touch happens in the parallel fill.
template <class T>
HostArray<T> allocate(std::size_t n) {
  const std::size_t bytes = (n * sizeof(T) + 63) / 64 * 64;
  auto* p = static_cast<T*>(std::aligned_alloc(64, bytes));
  if (!p) throw std::runtime_error("cannot allocate " + std::to_string(bytes) + " host bytes");
  return HostArray<T>(p);
}

template <class T>
class TriadHost final : public Instance {
 public:
  explicit TriadHost(std::size_t n)
      : n_(n), a_(allocate<T>(n)), b_(allocate<T>(n)), c_(allocate<T>(n)) {
    kernels::fill_random_host(b_.get(), n_, 1);
    kernels::fill_random_host(c_.get(), n_, 2);
    kernels::fill_value_host(a_.get(), n_, T(0));
  }

  Comparison validate() override {
    kernels::fill_value_host(a_.get(), n_, std::numeric_limits<T>::quiet_NaN());  // poison
    kernels::triad_host(a_.get(), b_.get(), c_.get(), scalar_, n_);
    std::vector<T> ref(n_);
    reference::triad<T>(ref, {b_.get(), n_}, {c_.get(), n_}, scalar_);
    return compare<T, T>({a_.get(), n_}, ref, {0.0, reference::triad_rtol<T>()});
  }

  void run(gpu_stream) override { kernels::triad_host(a_.get(), b_.get(), c_.get(), scalar_, n_); }

 private:
  std::size_t n_;
  HostArray<T> a_, b_, c_;
  T scalar_ = T(0.4);
};

template <class T>
Case triad_case(const char* dtype) {
  return {std::string("triad/") + dtype + "/host", Backend::host,
          [dtype](const CaseContext& ctx) {
            const std::uint64_t llc = ctx.host.last_level_cache_bytes();
            const std::size_t n = stream_elements(llc, sizeof(T), 3, kHostMinElements);
            check_host_memory(ctx.host, 4 * n * sizeof(T));  // a, b, c and the reference
            const theory::StreamKernel k = *theory::find_stream_kernel("triad");
            Prepared p;
            p.instance = std::make_unique<TriadHost<T>>(n);
            p.work = stream_work<T>(k, n);
            p.params = {{"kernel", "triad"},
                        {"dtype", dtype},
                        {"elements", n},
                        {"element_bytes", sizeof(T)},
                        {"working_set_bytes", 3 * n * sizeof(T)},
                        {"last_level_cache_bytes", llc},
                        {"threads", openmp_threads()}};
            return p;
          },
          nullptr};
}

}  // namespace

std::vector<Case> stream_host_cases() {
  return {triad_case<double>("fp64"), triad_case<float>("fp32")};
}

}  // namespace bb::suites
