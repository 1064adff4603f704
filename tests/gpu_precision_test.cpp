// GPU tests of the device-side conversion sweep: CUDA's conversions agree with the reference
// rounding on ranges around every rounding and overflow boundary. Skip without a usable GPU; the
// argument checks run everywhere (they fail before any CUDA call).
#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "harness/gpu.h"
#include "kernels/convert.h"
#include "reference/formats_fast.h"
#include "tests/gpu_test_support.h"

namespace bb {
namespace {

using kernels::ConvertSweepResult;
using kernels::DeviceConversion;

class GpuPrecisionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    status_ = query_gpus();
    if (!status_.usable) GTEST_SKIP() << "no usable GPU: " << status_.reason;
  }
  GpuStatus status_;
};

// The launch: on a GPU 264 blocks of 256 threads over 2^22 patterns; under a simulator, which
// pays for every thread it creates, 2 blocks of 32 threads over a 256-pattern window (4 patterns a
// thread: the grid-stride loop and the merge of several blocks' counts still run).
ConvertSweepResult sweep(DeviceConversion c, std::uint64_t first, std::uint64_t count) {
  DeviceBuffer result(sizeof(ConvertSweepResult));
  const ConvertSweepResult fresh;
  result.upload(&fresh, sizeof fresh);
  const bool simulated = gpu_test::simulated();
  kernels::convert_sweep_cuda(c, first, count, result.as<ConvertSweepResult>(), simulated ? 2 : 264,
                              simulated ? 32 : 256, nullptr);
  ConvertSweepResult r;
  result.download(&r, sizeof r);
  return r;
}

// The [offset, offset + count) windows swept from each start: on a GPU all 2^22 patterns; under a
// simulator a sample of 2^8-pattern windows at offset 0 and around every power-of-two offset 2^8 ..
// 2^21, where these starts' thresholds lie (fp16's overflow at +2^12, bf16's at +2^15, E4M3's at
// +2^19, E5M2's at +2^20; the subnormal and special starts at +0).
std::vector<std::pair<std::uint64_t, std::uint64_t>> sweep_windows() {
  if (!gpu_test::simulated()) return {{0, std::uint64_t{1} << 22}};
  std::vector<std::pair<std::uint64_t, std::uint64_t>> w{{0, 256}};
  for (int j = 8; j <= 21; ++j) w.emplace_back((std::uint64_t{1} << j) - 128, 256);
  return w;
}

TEST_F(GpuPrecisionTest, DeviceConversionsAgreeAroundTheirBoundaries) {
  // 2^22 patterns from 1.0 up, from fp16's largest finite value up through infinity, and the
  // subnormal and NaN ranges, for every conversion.
  // Positive and negative: 1.0; fp16's max to inf; E5M2's max and overflow; bf16's overflow;
  // fp32 subnormals and zero; fp16 and fp8 subnormal thresholds; 448 (E4M3's max); inf and NaN.
  std::vector<std::uint64_t> starts;
  for (std::uint64_t s : {0x3F800000u, 0x477FE000u, 0x47600000u, 0x7F7F0000u, 0x00000000u,
                          0x33000000u, 0x3A800000u, 0x3B800000u, 0x43E00000u, 0x7F800000u})
    for (std::uint64_t sign : {0x0u, 0x80000000u})
      starts.push_back(std::min(s | sign, (std::uint64_t{1} << 32) - (std::uint64_t{1} << 22)));
  for (DeviceConversion c :
       {DeviceConversion::fp16, DeviceConversion::bf16, DeviceConversion::e4m3_satfinite,
        DeviceConversion::e4m3, DeviceConversion::e5m2_satfinite, DeviceConversion::e5m2,
        DeviceConversion::e2m3, DeviceConversion::e3m2, DeviceConversion::e2m1})
    for (std::uint64_t start : starts)
      for (const auto& [offset, count] : sweep_windows()) {
        const std::uint64_t first = start + offset;
        const ConvertSweepResult r = sweep(c, first, count);
        EXPECT_EQ(r.checked, count);
        EXPECT_EQ(r.mismatches, 0u)
            << static_cast<int>(c) << " from 0x" << std::hex << first << ": first 0x"
            << r.first_input << " ref 0x" << r.reference_code << " device 0x" << r.device_code;
      }
}

TEST_F(GpuPrecisionTest, AllPatternsInWellUnderASecond) {
  if (status_.devices.at(0).simulated)
    GTEST_SKIP() << gpu_test::kNoTiming << "; all 2^32 patterns would take it days";
  GpuSession session(status_.devices.at(0), false);
  DeviceBuffer result(sizeof(ConvertSweepResult));
  const ConvertSweepResult fresh;
  result.upload(&fresh, sizeof fresh);
  const double t = session.time_sample_s([&](gpu_stream s) {
    kernels::convert_sweep_cuda(DeviceConversion::fp16, 0, std::uint64_t{1} << 32,
                                result.as<ConvertSweepResult>(), status_.devices.at(0).sm_count * 8,
                                256, s);
  });
  ConvertSweepResult r;
  result.download(&r, sizeof r);
  EXPECT_EQ(r.checked, std::uint64_t{1} << 32);
  EXPECT_EQ(r.mismatches, 0u);
  EXPECT_LT(t, 1.0);
}

// The fp8 conversions with __NV_SATFINITE over every fp32 pattern: on sm_89+ they are the hardware
// cvt.rn.satfinite.e4m3x2/e5m2x2.f32 (cuda_fp8.h), on older GPUs cuda_fp8.h's software rounding;
// either way each of the 2^32 inputs must give the reference's code (NaN: a NaN). On a simulator
// only the windows above run (ci/gpusim.sh runs them from compute_90 PTX: the hardware path).
TEST_F(GpuPrecisionTest, Fp8SatfiniteAgreesOnEveryPattern) {
  const GpuDevice& gpu = status_.devices.at(0);
  if (gpu.simulated)
    GTEST_SKIP() << "cannot run under the simulator: all 2^32 patterns would take it days (the "
                    "windows of DeviceConversionsAgreeAroundTheirBoundaries run there)";
  for (DeviceConversion c : {DeviceConversion::e4m3_satfinite, DeviceConversion::e5m2_satfinite}) {
    DeviceBuffer result(sizeof(ConvertSweepResult));
    const ConvertSweepResult fresh;
    result.upload(&fresh, sizeof fresh);
    kernels::convert_sweep_cuda(c, 0, std::uint64_t{1} << 32, result.as<ConvertSweepResult>(),
                                gpu.sm_count * 8, 256, nullptr);
    ConvertSweepResult r;
    result.download(&r, sizeof r);
    EXPECT_EQ(r.checked, std::uint64_t{1} << 32);
    EXPECT_EQ(r.mismatches, 0u) << static_cast<int>(c) << " sm_" << gpu.cc_major << gpu.cc_minor
                                << ": first 0x" << std::hex << r.first_input << " ref 0x"
                                << r.reference_code << " device 0x" << r.device_code;
  }
}

TEST(ConvertSweepArguments, RefusedBeforeAnyLaunch) {
  EXPECT_THROW(kernels::convert_sweep_cuda(DeviceConversion::fp16, 1, std::uint64_t{1} << 32,
                                           nullptr, 1, 256, nullptr),
               std::invalid_argument);
  EXPECT_THROW(kernels::convert_sweep_cuda(DeviceConversion::fp16, 0, 16, nullptr, 0, 256, nullptr),
               std::invalid_argument);
  EXPECT_THROW(
      kernels::convert_sweep_cuda(DeviceConversion::fp16, 0, 16, nullptr, 1, 2048, nullptr),
      std::invalid_argument);
}

}  // namespace
}  // namespace bb
