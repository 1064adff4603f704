// GPU tests of the CUDA STREAM kernels and the GPU harness against the CPU reference. Each test
// skips, with the reason, when no GPU is usable (no driver, driver too old, no device).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "harness/compare.h"
#include "harness/gpu.h"
#include "kernels/stream.h"
#include "reference/random.h"
#include "reference/stream.h"

namespace bb {
namespace {

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
Comparison run_triad(std::size_t n, int blocks, int threads) {
  std::vector<T> b(n), c(n), out(n), ref(n);
  for (std::size_t i = 0; i < n; ++i) {
    b[i] = static_cast<T>(reference::positive_test_value(11, i));
    c[i] = static_cast<T>(reference::positive_test_value(12, i));
  }
  DeviceBuffer da(n * sizeof(T)), db(n * sizeof(T)), dc(n * sizeof(T));
  db.upload(b.data(), n * sizeof(T));
  dc.upload(c.data(), n * sizeof(T));
  da.fill_bytes(0xFF);  // NaN poison: an unwritten element fails the comparison
  kernels::triad_cuda(da.as<T>(), db.as<T>(), dc.as<T>(), T(0.4), n, blocks, threads, nullptr);
  da.download(out.data(), n * sizeof(T));
  reference::triad<T>(ref, b, c, T(0.4));
  return compare<T, T>(out, ref, {0.0, reference::triad_rtol<T>()});
}

// Odd sizes exercise the scalar tail after the 16-byte vector loop; a small grid exercises the
// grid-stride loop.
TEST_F(GpuTest, TriadFp64MatchesReference) {
  for (std::size_t n :
       {std::size_t{2}, std::size_t{3}, std::size_t{1000003}, (std::size_t{1} << 22) + 5}) {
    const Comparison c = run_triad<double>(n, 7, 128);
    EXPECT_TRUE(c.ok()) << "n=" << n << ": " << c.describe();
  }
}

TEST_F(GpuTest, TriadFp32MatchesReference) {
  for (std::size_t n : {std::size_t{5}, std::size_t{1000003}, (std::size_t{1} << 22) + 3}) {
    const Comparison c = run_triad<float>(n, gpu().sm_count * 8, 256);
    EXPECT_TRUE(c.ok()) << "n=" << n << ": " << c.describe();
  }
}

TEST_F(GpuTest, DeviceInfoIsPlausible) {
  EXPECT_GT(gpu().sm_count, 0);
  EXPECT_GT(gpu().l2_bytes, 0u);
  EXPECT_GT(gpu().peak_dram_bytes_per_s, 1e11);  // every supported GPU exceeds 100 GB/s
  EXPECT_FALSE(gpu().name.empty());
}

TEST_F(GpuTest, SessionTimesAndReadsClock) {
  GpuSession session(gpu(), true);
  const double clock_hz = session.measure_sm_clock_hz();
  EXPECT_GT(clock_hz, 1e8);
  EXPECT_LT(clock_hz, 1.2 * gpu().sm_clock_hz + 1e8);
  const std::size_t n = std::size_t{1} << 24;  // 3 x 128 MiB: DRAM-resident
  DeviceBuffer a(n * sizeof(double)), b(n * sizeof(double)), c(n * sizeof(double));
  b.fill_bytes(0x3F);
  c.fill_bytes(0x3F);
  const double t = session.time_sample_s([&](gpu_stream s) {
    kernels::triad_cuda(a.as<double>(), b.as<double>(), c.as<double>(), 0.5, n, gpu().sm_count * 8,
                        256, s);
  });
  // The event-timed triad cannot beat the DRAM bound (3 arrays) and takes well under a second.
  EXPECT_GE(t, 0.95 * 3.0 * static_cast<double>(n * sizeof(double)) / gpu().peak_dram_bytes_per_s);
  EXPECT_LT(t, 1.0);
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
