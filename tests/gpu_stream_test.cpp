// GPU tests of the CUDA STREAM kernels and the GPU harness against the CPU reference. Each test
// skips, with the reason, when no GPU is usable (no driver, driver too old, no device).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <span>
#include <vector>

#include "harness/compare.h"
#include "harness/gpu.h"
#include "harness/measure.h"
#include "kernels/stream.h"
#include "reference/random.h"
#include "reference/stream.h"
#include "tests/gpu_test_support.h"

namespace bb {
namespace {

using theory::StreamOp;

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    status_ = query_gpus();
    if (!status_.usable) GTEST_SKIP() << "no usable GPU: " << status_.reason;
  }
  const GpuDevice& gpu() const { return status_.devices.at(0); }
  GpuStatus status_;
};

template <class T>
Comparison run_op(StreamOp op, int access_bytes, std::size_t n, int blocks, int threads) {
  std::vector<T> h[3];
  DeviceBuffer d[3] = {DeviceBuffer(n * sizeof(T)), DeviceBuffer(n * sizeof(T)),
                       DeviceBuffer(n * sizeof(T))};
  for (std::size_t k = 0; k < 3; ++k) {
    h[k].resize(n);
    for (std::size_t i = 0; i < n; ++i)
      h[k][i] = static_cast<T>(reference::positive_test_value(11 + k, i));
    d[k].upload(h[k].data(), n * sizeof(T));
  }
  const auto written = reference::written_array(op);
  DeviceBuffer& out = d[static_cast<int>(written)];
  if (op != StreamOp::nstream) out.fill_bytes(0xFF);  // NaN poison: an unwritten element fails
  kernels::stream_cuda(op, access_bytes, d[0].as<T>(), d[1].as<T>(), d[2].as<T>(), T(0.4), n,
                       blocks, threads, nullptr);
  std::vector<T> got(n);
  out.download(got.data(), n * sizeof(T));
  const std::vector<T> want = reference::stream_expected<T>(op, h[0], h[1], h[2], T(0.4));
  return compare<T, T>(got, want, {0.0, reference::stream_rtol<T>()});
}

// Odd sizes exercise the scalar tail after the vector loop; a small grid the grid-stride loop.
TEST_F(GpuTest, EveryStreamOpAndWidthMatchesReference) {
  const std::size_t odd = gpu_test::bulk(1000003, (std::size_t{1} << 16) + 3);
  for (const auto& k : theory::kStreamKernels) {
    if (k.op == StreamOp::dot) continue;
    for (std::size_t n : {std::size_t{3}, odd}) {
      for (int w : {8, 16}) {
        const Comparison c = run_op<double>(k.op, w, n, 7, 128);
        EXPECT_TRUE(c.ok()) << k.name << " fp64 w" << w << " n=" << n << ": " << c.describe();
      }
      for (int w : {4, 8, 16}) {
        const Comparison c = run_op<float>(k.op, w, n, gpu().sm_count * 4, 256);
        EXPECT_TRUE(c.ok()) << k.name << " fp32 w" << w << " n=" << n << ": " << c.describe();
      }
    }
  }
}

template <class T>
void expect_dot(int access_bytes, std::size_t n, int blocks, int threads) {
  std::vector<T> a(n), b(n);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = static_cast<T>(reference::positive_test_value(21, i));
    b[i] = static_cast<T>(reference::positive_test_value(22, i));
  }
  DeviceBuffer da(n * sizeof(T)), db(n * sizeof(T)), dp(static_cast<std::size_t>(blocks) * 8);
  da.upload(a.data(), n * sizeof(T));
  db.upload(b.data(), n * sizeof(T));
  dp.fill_bytes(0xFF);
  kernels::dot_cuda(access_bytes, da.as<T>(), db.as<T>(), n, dp.as<double>(), blocks, threads,
                    nullptr);
  std::vector<double> partial(static_cast<std::size_t>(blocks));
  dp.download(partial.data(), partial.size() * sizeof(double));
  long double total = 0;
  for (double p : partial) total += p;
  const reference::DotReference ref = reference::dot<T>(a, b);
  const double bound = reference::dot_abs_tolerance<T>(
      kernels::dot_cuda_depth(n, access_bytes, sizeof(T), blocks, threads), ref.abs_sum);
  EXPECT_LE(std::fabs(static_cast<double>(total - ref.value)), bound)
      << "w" << access_bytes << " n=" << n;
}

TEST_F(GpuTest, DotWithinItsErrorBound) {
  for (std::size_t n : {std::size_t{5}, gpu_test::bulk(1000003, (std::size_t{1} << 16) + 3)}) {
    expect_dot<double>(8, n, 9, 128);
    expect_dot<double>(16, n, gpu().sm_count, 256);
    expect_dot<float>(4, n, 9, 64);
    expect_dot<float>(16, n, gpu().sm_count, 1024);
  }
}

TEST_F(GpuTest, StreamRefusesBadGeometry) {
  DeviceBuffer a(64), b(64), c(64);
  EXPECT_THROW(kernels::stream_cuda(StreamOp::copy, 4, a.as<double>(), b.as<double>(),
                                    c.as<double>(), 1.0, 8, 1, 32, nullptr),
               std::invalid_argument);  // narrower than the element
  EXPECT_THROW(kernels::stream_cuda(StreamOp::copy, 12, a.as<float>(), b.as<float>(), c.as<float>(),
                                    1.0f, 8, 1, 32, nullptr),
               std::invalid_argument);
  EXPECT_THROW(kernels::stream_cuda(StreamOp::dot, 16, a.as<float>(), b.as<float>(), c.as<float>(),
                                    1.0f, 8, 1, 32, nullptr),
               std::invalid_argument);
  EXPECT_THROW(
      kernels::dot_cuda(16, a.as<float>(), b.as<float>(), 8, c.as<double>(), 1, 96, nullptr),
      std::invalid_argument);  // threads not a power of two
}

TEST_F(GpuTest, DeviceInfoIsPlausible) {
  EXPECT_GT(gpu().sm_count, 0);
  EXPECT_GT(gpu().l2_bytes, 0u);
  EXPECT_GT(gpu().peak_dram_bytes_per_s, 1e11);  // every supported GPU exceeds 100 GB/s
  EXPECT_FALSE(gpu().name.empty());
}

// One event-timed fp64 triad of n elements on `gpu` (a = b + 0.5 c; b and c filled, not zeros).
double time_triad_s(GpuSession& session, const GpuDevice& gpu, std::size_t n) {
  DeviceBuffer a(n * sizeof(double)), b(n * sizeof(double)), c(n * sizeof(double));
  b.fill_bytes(0x3F);
  c.fill_bytes(0x3F);
  return session.time_sample_s([&](gpu_stream s) {
    kernels::stream_cuda(StreamOp::triad, 16, a.as<double>(), b.as<double>(), c.as<double>(), 0.5,
                         n, gpu.sm_count * 8, 256, s);
  });
}

TEST_F(GpuTest, SessionTimesAndReadsClock) {
  if (gpu().simulated) GTEST_SKIP() << gpu_test::kNoTiming;
  GpuSession session(gpu(), true);
  const double clock_hz = session.measure_sm_clock_hz();
  EXPECT_GT(clock_hz, 1e8);
  EXPECT_LT(clock_hz, 1.2 * gpu().sm_clock_hz + 1e8);
  const std::size_t n = std::size_t{1} << 24;  // 3 x 128 MiB: DRAM-resident
  const double t = time_triad_s(session, gpu(), n);
  // The event-timed triad cannot beat the DRAM bound (3 arrays) and takes well under a second.
  EXPECT_GE(t, 0.95 * 3.0 * static_cast<double>(n * sizeof(double)) / gpu().peak_dram_bytes_per_s);
  EXPECT_LT(t, 1.0);
}

// A one-kernel case for the harness's GPU loop that counts its launches.
class CountedCopy : public Instance {
 public:
  CountedCopy() : a_(kN * sizeof(float)), b_(kN * sizeof(float)) {
    a_.fill_bytes(0);
    b_.fill_bytes(0);
  }
  Comparison validate() override { return {}; }
  void run(gpu_stream s) override {
    ++runs;
    kernels::stream_cuda(StreamOp::copy, 4, a_.as<float>(), b_.as<float>(), b_.as<float>(), 1.0f,
                         kN, 1, 64, s);
  }
  std::size_t runs = 0;

 private:
  static constexpr std::size_t kN = 256;
  DeviceBuffer a_, b_;
};

// measure_cuda_group: the warm-up runs by wall time (the case's own launches, back to back) before
// the clock is probed, and none of it is kept as a sample; without NVML the measurement says so.
TEST_F(GpuTest, MeasureWarmsUpByWallTimeThenProbes) {
  CountedCopy copy;
  Instance* const live[] = {&copy};
  StoppingRule rule;
  rule.warmup_samples = 1;
  rule.min_samples = 3;
  rule.min_time_s = 0;
  rule.timeout_s = 1e-3;  // stop at the minimum count
  // The hard cap (10 × timeout) would stop it at 2 samples where one takes longer than 5 ms: a
  // simulator on a busy machine (a CI run beside other work stopped at 2).
  rule.hard_timeout_factor = 1e5;
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<Measurement> ms =
      measure_cuda_group(live, std::span<const StoppingRule>(&rule, 1), gpu(), true, nullptr, 0.05);
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(ms.size(), 1u);
  const Measurement& m = ms[0];
  EXPECT_GE(wall_s, 0.05);
  EXPECT_GE(m.summary.samples, 3u);
  EXPECT_EQ(m.samples_s.size(), m.summary.samples);  // warm-up launches are not samples
  // One warm-up sample, then back-to-back launches: thousands in 50 ms of a ~3 µs kernel on a GPU
  // (under a simulator the first sample alone may take the 50 ms).
  EXPECT_GE(copy.runs, 1 + m.summary.samples + (gpu().simulated ? 0 : 100));
  EXPECT_FALSE(m.clock_reasons_known);
  EXPECT_EQ(m.clock_reasons_missing, "NVML not consulted");
  if (!gpu().simulated) {
    EXPECT_GT(m.clock_start_hz, 1e8);
    EXPECT_GT(m.clock_end_hz, 1e8);
  }
}

// GPGPU-Sim's timing model (ci/gpusim/timing.patch; run without PTX_SIM_MODE_FUNC): the clock
// probe reads the config's core clock, and an event-timed triad gives simulated time that the
// config's DRAM peak bounds. Skipped on GPUs and in the functional simulator.
TEST_F(GpuTest, TimingSimulatorGivesSimulatedTime) {
  if (gpu().simulated && !gpu().simulated_timing) GTEST_SKIP() << gpu_test::kNoTiming;
  if (!gpu().simulated_timing) GTEST_SKIP() << "not GPGPU-Sim's timing model";
  GpuSession session(gpu(), false);
  EXPECT_NEAR(session.measure_sm_clock_hz(), gpu().sm_clock_hz, 0.01 * gpu().sm_clock_hz);
  const std::size_t n = std::size_t{1} << 15;  // 3 x 256 KiB
  const double t = time_triad_s(session, gpu(), n);
  // Simulated microseconds (host seconds before the patch), never faster than the DRAM peak moves
  // the two arrays read (cold: the simulator's memset bypasses its L2; the written one may stay in
  // the L2).
  EXPECT_GE(t, 2.0 * static_cast<double>(n * sizeof(double)) / gpu().peak_dram_bytes_per_s);
  EXPECT_LT(t, 1e-3);
}

TEST(GpuAbsent, QueryNeverThrowsAndExplains) {
  const GpuStatus s = query_gpus();
  if (!s.usable) {
    EXPECT_FALSE(s.reason.empty());
    EXPECT_TRUE(s.devices.empty());
  } else {
    EXPECT_FALSE(s.devices.empty());
  }
}

}  // namespace
}  // namespace bb
