// STREAM kernels on the host (copy, mul, add, triad, dot, nstream; fp64 and fp32): OpenMP
// threads, vectorised, every array at least 4x the last-level cache, validated against the
// long-double reference before they are timed.
#include <algorithm>
#include <limits>
#include <memory>
#include <vector>

#include "harness/host_threads.h"
#include "kernels/stream.h"
#include "reference/stream.h"
#include "suites/bandwidth/bandwidth_suite.h"
#include "suites/common/host_buffer.h"
#include "suites/suites.h"

namespace bb::suites {
namespace {

template <class T>
class StreamHost final : public Instance {
 public:
  StreamHost(StreamOp op, std::size_t n)
      : op_(op), n_(n), a_(allocate_host<T>(n)), b_(allocate_host<T>(n)), c_(allocate_host<T>(n)) {}

  Comparison validate() override {
    // Fresh inputs (seeds 1, 2, 3); also the first touch of every page, by the thread that will
    // stream it (validate runs before any sample).
    T* arrays[] = {a_.get(), b_.get(), c_.get()};
    for (std::size_t k = 0; k < 3; ++k) kernels::fill_random_host(arrays[k], n_, k + 1);
    const std::span<const T> a(a_.get(), n_), b(b_.get(), n_), c(c_.get(), n_);
    if (op_ == StreamOp::dot) {
      // The whole array and its first third: two sums, each within its own bound.
      std::vector<double> o, r;
      double atol = 0;
      for (std::size_t m : {n_ / 3, n_}) {
        const reference::DotReference ref = reference::dot<T>(a.first(m), b.first(m));
        o.push_back(static_cast<double>(kernels::dot_host(a_.get(), b_.get(), m)));
        r.push_back(static_cast<double>(ref.value));
        atol = std::max(atol, reference::dot_abs_tolerance<T>(
                                  kernels::dot_host_depth(m, openmp_threads()), ref.abs_sum));
      }
      return compare<double, double>(o, r, {atol, 0.0});
    }
    const std::vector<T> expected = reference::stream_expected<T>(op_, a, b, c, scalar_);
    T* out = arrays[static_cast<std::size_t>(reference::written_array(op_))];
    if (op_ != StreamOp::nstream)  // nstream reads what it writes: its input is the poison check
      kernels::fill_value_host(out, n_, std::numeric_limits<T>::quiet_NaN());
    kernels::stream_host(op_, a_.get(), b_.get(), c_.get(), scalar_, n_);
    return compare<T, T>({out, n_}, expected, {0.0, reference::stream_rtol<T>()});
  }

  void run(gpu_stream) override {
    if (op_ == StreamOp::dot)
      sink_ += kernels::dot_host(a_.get(), b_.get(), n_);
    else
      kernels::stream_host(op_, a_.get(), b_.get(), c_.get(), scalar_, n_);
  }

 private:
  StreamOp op_;
  std::size_t n_;
  HostArray<T> a_, b_, c_;
  T scalar_ = T(0.4);
  T sink_ = 0;
};

template <class T>
Case stream_case(StreamOp op, const char* dtype, bool in_quick) {
  const theory::StreamKernel& k = theory::stream_kernel(op);
  Case c{
      std::string(k.name) + "/" + dtype + "/host", Backend::host,
      [k, op, dtype](const CaseContext& ctx) {
        const std::uint64_t llc = ctx.host.last_level_cache_bytes();
        const std::size_t n = stream_elements(llc, kHostCacheMultiple, sizeof(T), kHostMinElements);
        Declared d;
        d.work = stream_work<T>(k, n);
        d.params = {
            {"kernel", k.name},
            {"dtype", dtype},
            {"elements", n},
            {"element_bytes", sizeof(T)},
            {"working_set_bytes",
             (k.arrays_read + (k.arrays_written > 0 && op != StreamOp::nstream)) * n * sizeof(T)},
            {"last_level_cache_bytes", llc},
            {"threads", openmp_threads()}};
        return d;
      },
      [op](const CaseContext& ctx, Declared& d) -> std::unique_ptr<Instance> {
        const auto n = d.params.at("elements").get<std::size_t>();
        // a, b, c and the reference's copy of the written array.
        check_host_memory(ctx.host, 4 * n * sizeof(T));
        return std::make_unique<StreamHost<T>>(op, n);
      },
      nullptr};
  c.in_quick = in_quick;
  return c;
}

}  // namespace

std::vector<Case> stream_host_cases() {
  std::vector<Case> cases;
  for (const auto& k : theory::kStreamKernels) {
    cases.push_back(stream_case<double>(k.op, "fp64", true));
    // fp32: the triad in quick runs (the foundation's case), the rest in full runs.
    cases.push_back(stream_case<float>(k.op, "fp32", k.op == StreamOp::triad));
  }
  return cases;
}

}  // namespace bb::suites
