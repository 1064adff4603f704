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
  StreamHost(StreamOp op, bool non_temporal, std::size_t n)
      : op_(op),
        non_temporal_(non_temporal),
        n_(n),
        a_(allocate_host<T>(n)),
        b_(allocate_host<T>(n)),
        c_(allocate_host<T>(n)) {}

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
    stream();
    return compare<T, T>({out, n_}, expected, {0.0, reference::stream_rtol<T>()});
  }

  void run(gpu_stream) override {
    if (op_ == StreamOp::dot)
      sink_ += kernels::dot_host(a_.get(), b_.get(), n_);
    else
      stream();
  }

 private:
  void stream() {
    if (non_temporal_)
      kernels::stream_host_nt(op_, a_.get(), b_.get(), c_.get(), scalar_, n_);
    else
      kernels::stream_host(op_, a_.get(), b_.get(), c_.get(), scalar_, n_);
  }

  StreamOp op_;
  bool non_temporal_;
  std::size_t n_;
  HostArray<T> a_, b_, c_;
  T scalar_ = T(0.4);
  T sink_ = 0;
};

// `non_temporal`: the written array with streaming stores ("<kernel>-nt/…"): no write-allocate
// read, so the STREAM count of bytes (theory/stream.h) is the bytes moved; with plain stores the
// machine moves one more n·size per written array (the line read before it is written), which the
// count leaves out, as STREAM and likwid-bench do. Both variants are DRAM cases: the run's ceiling
// (best STREAM) is the faster.
template <class T>
Case stream_case(StreamOp op, const char* dtype, bool in_quick, bool non_temporal = false) {
  const theory::StreamKernel& k = theory::stream_kernel(op);
  Case c{
      std::string(k.name) + (non_temporal ? "-nt/" : "/") + dtype + "/host", Backend::host,
      [k, op, dtype, non_temporal](const CaseContext& ctx) {
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
            {"threads", openmp_threads()},
            {"stores", non_temporal ? "non-temporal" : "plain"}};
        if (non_temporal) d.params["isa"] = kernels::stream_host_nt_isa();
        return d;
      },
      [op, non_temporal](const CaseContext& ctx, Declared& d) -> std::unique_ptr<Instance> {
        const auto n = d.params.at("elements").get<std::size_t>();
        // a, b, c and the reference's copy of the written array.
        check_host_memory(ctx.host, 4 * n * sizeof(T));
        return std::make_unique<StreamHost<T>>(op, non_temporal, n);
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
  // Streaming stores: the kernels that write an array they do not read (nstream reads a, dot
  // writes nothing); fp64 for all four, fp32 for the triad.
  for (StreamOp op : {StreamOp::copy, StreamOp::mul, StreamOp::add, StreamOp::triad})
    cases.push_back(
        stream_case<double>(op, "fp64", op == StreamOp::triad || op == StreamOp::copy, true));
  cases.push_back(stream_case<float>(StreamOp::triad, "fp32", false, true));
  return cases;
}

}  // namespace bb::suites
