// STREAM kernels on the GPU (copy, mul, add, triad, dot, nstream; fp64 and fp32; 16-byte accesses,
// plus 4- and 8-byte ones in full runs): grid-stride, one full wave of 256-thread blocks, the three
// arrays together at least 8x the L2, validated against the CPU reference before they are timed.
#include <algorithm>
#include <span>
#include <vector>

#include "harness/gpu.h"
#include "kernels/stream.h"
#include "reference/random.h"
#include "reference/stream.h"
#include "suites/bandwidth/bandwidth_suite.h"
#include "suites/common/parallel.h"
#include "suites/suites.h"

namespace bb::suites {
namespace {

constexpr int kThreads = 256;

template <class T>
class StreamCuda final : public Instance {
 public:
  StreamCuda(const GpuDevice& gpu, StreamOp op, int access_bytes, std::size_t n)
      : op_(op),
        access_bytes_(access_bytes),
        n_(n),
        blocks_(full_wave_blocks(gpu, kThreads)),
        a_(n * sizeof(T)),
        b_(n * sizeof(T)),
        c_(n * sizeof(T)),
        partial_(static_cast<std::size_t>(blocks_) * sizeof(double)),
        host_{std::vector<T>(n), std::vector<T>(n), std::vector<T>(n)} {
    for (std::size_t k = 0; k < 3; ++k)
      parallel_for(n_, [&](std::size_t i) {
        host_[k][i] = static_cast<T>(reference::positive_test_value(k + 1, i));
      });
  }

  Comparison validate() override {
    DeviceBuffer* dev[3] = {&a_, &b_, &c_};
    for (std::size_t k = 0; k < 3; ++k) dev[k]->upload(host_[k].data(), n_ * sizeof(T));
    const std::span<const T> a(host_[0]), b(host_[1]), c(host_[2]);
    if (op_ == StreamOp::dot) {
      partial_.fill_bytes(0xFF);  // NaN poison: a block that writes nothing fails
      run(nullptr);
      std::vector<double> partial(static_cast<std::size_t>(blocks_));
      partial_.download(partial.data(), partial.size() * sizeof(double));
      long double total = 0;
      for (double p : partial) total += p;
      const reference::DotReference ref = reference::dot<T>(a, b);
      const double atol = reference::dot_abs_tolerance<T>(
          kernels::dot_cuda_depth(n_, access_bytes_, sizeof(T), blocks_, kThreads), ref.abs_sum);
      // The total and the first block's partial (against its own grid-stride share).
      const std::vector<double> out = {static_cast<double>(total), partial[0]};
      const long double first = first_block_dot(a, b);
      const std::vector<double> want = {static_cast<double>(ref.value), static_cast<double>(first)};
      return compare<double, double>(out, want, {atol, 0.0});
    }
    const std::vector<T> expected = reference::stream_expected<T>(op_, a, b, c, scalar_);
    DeviceBuffer& out = *dev[static_cast<std::size_t>(reference::written_array(op_))];
    if (op_ != StreamOp::nstream) out.fill_bytes(0xFF);  // NaN poison
    run(nullptr);
    std::vector<T> got(n_);
    out.download(got.data(), n_ * sizeof(T));
    return compare<T, T>(got, expected, {0.0, reference::stream_rtol<T>()});
  }

  void run(gpu_stream s) override {
    if (op_ == StreamOp::dot)
      kernels::dot_cuda(access_bytes_, a_.as<T>(), b_.as<T>(), n_, partial_.as<double>(), blocks_,
                        kThreads, s);
    else
      kernels::stream_cuda(op_, access_bytes_, a_.as<T>(), b_.as<T>(), c_.as<T>(), scalar_, n_,
                           blocks_, kThreads, s);
  }

 private:
  // Σ a_i b_i over the elements block 0's grid-stride loop reads, in increasing i: vector v goes
  // to thread v mod grid (elements v·per … v·per + per − 1), the tail element i to thread
  // (i − vec_n·per) mod grid. Visits only block 0's 1/blocks of the elements.
  long double first_block_dot(std::span<const T> a, std::span<const T> b) const {
    const std::size_t per = static_cast<std::size_t>(access_bytes_) / sizeof(T);
    const std::size_t grid = static_cast<std::size_t>(blocks_) * kThreads;
    const std::size_t vec_n = n_ / per;
    long double first = 0;
    for (std::size_t v0 = 0; v0 < vec_n; v0 += grid)
      for (std::size_t v = v0; v < std::min(v0 + kThreads, vec_n); ++v)
        for (std::size_t i = v * per; i < v * per + per; ++i)
          first += static_cast<long double>(a[i]) * b[i];
    for (std::size_t i = vec_n * per; i < n_; ++i)
      if ((i - vec_n * per) % grid < kThreads) first += static_cast<long double>(a[i]) * b[i];
    return first;
  }

  StreamOp op_;
  int access_bytes_;
  std::size_t n_;
  int blocks_;
  DeviceBuffer a_, b_, c_, partial_;
  std::vector<T> host_[3];
  T scalar_ = T(0.4);
};

template <class T>
Case stream_case(StreamOp op, const char* dtype, int access_bytes, bool in_quick) {
  const theory::StreamKernel& k = theory::stream_kernel(op);
  std::string name = std::string(k.name) + "/" + dtype + "/cuda";
  if (access_bytes != 16) name.append("/").append(std::to_string(access_bytes)).append("B");
  Case c{name, Backend::cuda,
         [k, dtype, access_bytes](const CaseContext& ctx) {
           const GpuDevice& gpu = *ctx.gpu;
           const std::size_t n = affordable_elements(
               &gpu,
               stream_elements(gpu.l2_bytes, kCudaCacheMultiple, sizeof(T), kCudaMinElements));
           Declared d;
           d.params = {{"kernel", k.name},
                       {"dtype", dtype},
                       {"elements", n},
                       {"element_bytes", sizeof(T)},
                       {"access_bytes", access_bytes},
                       {"working_set_bytes", 3 * n * sizeof(T)},
                       {"l2_bytes", gpu.l2_bytes},
                       {"peak_bytes_per_s", gpu.peak_dram_bytes_per_s},
                       {"blocks", full_wave_blocks(gpu, kThreads)},
                       {"threads_per_block", kThreads}};
           d.work = stream_work<T>(k, n);
           return d;
         },
         [op, access_bytes](const CaseContext& ctx, Declared& d) -> std::unique_ptr<Instance> {
           const auto n = d.params.at("elements").get<std::size_t>();
           check_host_memory(ctx.host, 4 * n * sizeof(T));  // host copies of a, b, c, expected
           check_gpu_memory(*ctx.gpu, 3 * n * sizeof(T));
           return std::make_unique<StreamCuda<T>>(*ctx.gpu, op, access_bytes, n);
         },
         nullptr};
  c.in_quick = in_quick;
  return c;
}

}  // namespace

std::vector<Case> stream_cuda_cases() {
  std::vector<Case> cases;
  for (const auto& k : theory::kStreamKernels) {
    cases.push_back(stream_case<double>(k.op, "fp64", 16, true));
    cases.push_back(stream_case<float>(k.op, "fp32", 16, true));
  }
  // Narrower accesses, same bytes in flight (kernels/stream.cu unrolls them to 16 bytes per thread
  // and array: one narrow load in flight per thread, not instructions per byte, starved them).
  for (StreamOp op : {StreamOp::copy, StreamOp::triad, StreamOp::dot}) {
    cases.push_back(stream_case<double>(op, "fp64", 8, false));
    cases.push_back(stream_case<float>(op, "fp32", 8, false));
    cases.push_back(stream_case<float>(op, "fp32", 4, false));
  }
  return cases;
}

}  // namespace bb::suites
