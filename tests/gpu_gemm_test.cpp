// GPU tests of the GEMM precision matrix (kernels/gemm_precision.h): every mode this device
// supports, at small odd-shaped sizes, within its bound of the exact product of the same rounded
// inputs (reference/gemm.h), output poisoned with NaN first; unsupported modes must say why.
// Skip without a GPU, and under a simulator (cuBLASLt's kernels are SASS only).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/cuda_check.h"
#include "harness/gpu.h"
#include "kernels/gemm_precision.h"
#include "reference/gemm.h"
#include "tests/gpu_test_support.h"

namespace bb {
namespace {

class GpuGemm : public ::testing::Test {
 protected:
  void SetUp() override {
    const GpuStatus st = query_gpus();
    if (!st.usable) GTEST_SKIP() << "no usable GPU: " << st.reason;
    if (st.devices.at(0).simulated) GTEST_SKIP() << gpu_test::kNoCublas << " (cuBLASLt)";
    set_current_gpu(st.devices.at(0));
  }
};

// Runs one mode on m×k·k×n; returns false (with the reason printed) when it is not supported.
bool expect_within_bound(kernels::GemmRunner& runner, const kernels::GemmModeSpec& spec, int m,
                         int n, int k) {
  std::vector<double> x(static_cast<std::size_t>(m) * k), y(static_cast<std::size_t>(k) * n);
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = reference::gemm_test_value(reference::GemmData::mixed, 61, i);
  for (std::size_t i = 0; i < y.size(); ++i)
    y[i] = reference::gemm_test_value(reference::GemmData::mixed, 62, i);
  const reference::RoundedMatrix a = reference::round_matrix(spec.input, x);
  const reference::RoundedMatrix b = reference::round_matrix(spec.input, y);
  const std::size_t w = spec.fp64_output ? 8 : 4, entries = static_cast<std::size_t>(m) * n;
  DeviceBuffer da(a.bytes.size()), db(b.bytes.size()), dc(entries * w);
  da.upload(a.bytes.data(), a.bytes.size());
  db.upload(b.bytes.data(), b.bytes.size());
  if (spec.input == reference::GemmStorage::e4m3) runner.set_fp8_descales(1 / a.scale, 1 / b.scale);
  if (const auto why = runner.unsupported(spec.mode, m, n, k, da.get(), db.get(), dc.get())) {
    EXPECT_FALSE(why->empty());
    std::cout << "[ SKIPPED  ] " << spec.name << ": " << *why << "\n";
    return false;
  }
  dc.fill_bytes(0xFF);  // NaN: an entry the library does not write fails
  runner.run(spec.mode, m, n, k, da.get(), db.get(), dc.get(), nullptr);
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  std::vector<unsigned char> bytes(entries * w);
  dc.download(bytes.data(), bytes.size());
  std::vector<double> c(entries);
  for (std::size_t i = 0; i < entries; ++i) {
    if (w == 8) {
      std::memcpy(&c[i], bytes.data() + i * 8, 8);
    } else {
      float v = 0;
      std::memcpy(&v, bytes.data() + i * 4, 4);
      c[i] = v;
    }
  }
  const reference::GemmExact e = reference::gemm_exact(a.values, b.values, m, n, k);
  const double bound =
      theory::gemm_error_factor(spec.model, k) + reference::gemm_exact_error_factor(k);
  const std::vector<double> err = reference::gemm_normalized_errors(c, e);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < entries; ++i)
    if (!(err[i] <= bound) && bad++ < 10)
      ADD_FAILURE() << spec.name << " entry " << i << ": " << c[i] << " vs " << e.hi[i]
                    << ", error/|A||B| " << err[i] << " > bound " << bound;
  EXPECT_EQ(bad, 0u) << spec.name;
  return true;
}

TEST_F(GpuGemm, EverySupportedModeWithinItsBound) {
  kernels::GemmRunner runner;
  int ran = 0;
  // Odd m and n for cuBLAS; fp8 wants multiples of 16 (and K of 16): 48 × 80, K = 272.
  for (const kernels::GemmModeSpec& spec : kernels::kGemmModes) {
    const bool fp8 = spec.input == reference::GemmStorage::e4m3;
    ran += expect_within_bound(runner, spec, fp8 ? 48 : 37, fp8 ? 80 : 51, fp8 ? 272 : 301);
  }
  EXPECT_GE(ran, 2);  // fp64 and fp32 run on every GPU
}

TEST_F(GpuGemm, LargerKStillWithinBound) {
  kernels::GemmRunner runner;
  for (auto mode : {kernels::GemmMode::fp32, kernels::GemmMode::tf32, kernels::GemmMode::bf16,
                    kernels::GemmMode::e4m3_fast_accum})
    expect_within_bound(runner, kernels::gemm_mode_spec(mode), 64, 64, 4096);
}

TEST_F(GpuGemm, Fp8NeedsKAMultipleOf16) {
  kernels::GemmRunner runner;
  DeviceBuffer d(64 * 64 * 4);
  const auto why =
      runner.unsupported(kernels::GemmMode::e4m3, 16, 16, 40, d.get(), d.get(), d.get());
  ASSERT_TRUE(why.has_value());
}

TEST_F(GpuGemm, BadArgumentsAreRefused) {
  kernels::GemmRunner runner;
  DeviceBuffer d(1024);
  EXPECT_THROW(runner.run(kernels::GemmMode::fp32, 0, 4, 4, d.get(), d.get(), d.get(), nullptr),
               std::invalid_argument);
  EXPECT_THROW(runner.run(kernels::GemmMode::fp32, 4, 4, 4, nullptr, d.get(), d.get(), nullptr),
               std::invalid_argument);
}

}  // namespace
}  // namespace bb
