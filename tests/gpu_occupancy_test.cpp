// The occupancy table's per-architecture constants against the device the test runs on (skips,
// with the reason, when no GPU is usable or the architecture is not in the table).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "harness/compare.h"
#include "harness/gpu.h"
#include "kernels/occupancy.h"
#include "reference/occupancy.h"
#include "tests/gpu_test_support.h"
#include "theory/occupancy.h"

namespace bb {
namespace {

TEST(GpuOccupancy, TableMatchesTheDevice) {
  const GpuStatus status = query_gpus();
  if (!status.usable) GTEST_SKIP() << "no usable GPU: " << status.reason;
  // GPGPU-Sim's "RTX 3070" is a model, not the device: 32 blocks per SM where sm_86 has 16, and no
  // opt-in or reserved shared memory reported. The table is NVIDIA's; only a GPU can confirm it.
  if (status.devices.at(0).simulated)
    GTEST_SKIP() << "cannot run under the simulator: its limits are GPGPU-Sim's configuration, not "
                    "a GPU's (32 blocks/SM in its sm_86 model; the table and NVIDIA say 16)";
  cudaDeviceProp p{};
  ASSERT_EQ(cudaGetDeviceProperties(&p, 0), cudaSuccess);
  const theory::SmLimits* sm = theory::find_sm_limits(p.major, p.minor);
  if (!sm) GTEST_SKIP() << "sm_" << p.major << p.minor << " is not in the occupancy table";
  EXPECT_EQ(sm->max_threads_per_sm, p.maxThreadsPerMultiProcessor);
  EXPECT_EQ(sm->max_blocks_per_sm, p.maxBlocksPerMultiProcessor);
  EXPECT_EQ(sm->max_threads_per_block, p.maxThreadsPerBlock);
  EXPECT_EQ(sm->registers_per_sm, p.regsPerMultiprocessor);
  EXPECT_EQ(sm->max_registers_per_block, p.regsPerBlock);
  EXPECT_EQ(sm->warp_size, p.warpSize);
  EXPECT_EQ(sm->shared_per_sm_bytes(), p.sharedMemPerMultiprocessor);
  EXPECT_EQ(sm->shared_per_block_bytes, p.sharedMemPerBlock);
  EXPECT_EQ(sm->shared_per_block_optin_bytes, p.sharedMemPerBlockOptin);
  EXPECT_EQ(sm->reserved_shared_per_block_bytes, p.reservedSharedMemPerBlock);
}

class GpuKernels : public ::testing::Test {
 protected:
  void SetUp() override {
    status_ = query_gpus();
    if (!status_.usable) GTEST_SKIP() << "no usable GPU: " << status_.reason;
  }
  GpuStatus status_;
};

// Runs a float kernel on a NaN-poisoned buffer and compares each thread with its reference, given
// the thread's global index (lane-only kernels take its low 5 bits).
template <class Launch, class Reference>
Comparison run_float(int blocks, int threads, Launch launch, Reference reference) {
  const std::size_t n = static_cast<std::size_t>(blocks) * threads;
  DeviceBuffer buf(n * sizeof(float));
  buf.fill_bytes(0xFF);
  launch(buf.as<float>(), blocks, threads);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<float> out(n), ref(n);
  buf.download(out.data(), n * sizeof(float));
  for (std::size_t i = 0; i < n; ++i) ref[i] = reference(static_cast<int>(i));
  return compare<float, float>(out, ref, Tolerance{0, 0});
}

TEST_F(GpuKernels, DivergenceMatchesReferenceBitExactly) {
  for (int paths : {1, 3, 32}) {
    const Comparison c = run_float(
        3, 96,
        [&](float* out, int b, int t) {
          kernels::divergence_launch(out, paths, 100, b, t, nullptr);
        },
        [&](int i) { return reference::divergence_lane(i & 31, paths, 100); });
    EXPECT_TRUE(c.ok()) << "paths=" << paths << ": " << c.describe();
  }
}

TEST_F(GpuKernels, BankConflictSumsMatchReferenceBitExactly) {
  for (int stride : {1, 7, 32, 33}) {
    const Comparison c = run_float(
        3, 96,
        [&](float* out, int b, int t) {
          kernels::bank_conflict_launch(out, stride, 400, b, t, nullptr);
        },
        [&](int i) { return reference::bank_lane(i & 31, stride, 400); });
    EXPECT_TRUE(c.ok()) << "stride=" << stride << ": " << c.describe();
  }
}

TEST_F(GpuKernels, SpillVariantsMatchTheReference) {
  for (auto v : {kernels::SpillVariant::uncapped, kernels::SpillVariant::capped}) {
    const Comparison c = run_float(
        2, kernels::kSpillThreads,
        [&](float* out, int b, int) { kernels::spill_launch(v, out, 5, b, nullptr); },
        [&](int i) { return reference::spill_thread(i, 5); });
    EXPECT_TRUE(c.ok()) << c.describe();
  }
}

TEST_F(GpuKernels, OnlyTheCappedSpillVariantSpills) {
  // GPGPU-Sim reads the kernels' resources from ptxas's report but not its "N bytes stack frame":
  // it gives every kernel localSizeBytes 0 (ptxas reports 280 bytes for the capped variant).
  if (status_.devices.at(0).simulated)
    GTEST_SKIP() << "cannot run under the simulator: it reports no local memory "
                    "(cudaFuncAttributes::localSizeBytes is 0 for every kernel)";
  EXPECT_GT(kernels::spill_attributes(kernels::SpillVariant::capped).local_bytes, 0u);
  EXPECT_EQ(kernels::spill_attributes(kernels::SpillVariant::uncapped).local_bytes, 0u);
}

TEST_F(GpuKernels, StreamReadSumsEachBlocksShare) {
  const std::size_t n16 = 100003;
  const int blocks = 7, threads = 128;
  std::vector<float> host(4 * n16);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(i % 5);
  DeviceBuffer data(host.size() * sizeof(float)), out(blocks * sizeof(float));
  data.upload(host.data(), host.size() * sizeof(float));
  out.fill_bytes(0xFF);
  kernels::stream_read_allow_dynamic_shared(64 * 1024);
  kernels::stream_read_launch(data.get(), n16, out.as<float>(), blocks, threads, 64 * 1024,
                              nullptr);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<float> got(blocks), want(blocks, 0.0f);
  out.download(got.data(), got.size() * sizeof(float));
  for (std::size_t i = 0; i < n16; ++i)
    want[(i % (static_cast<std::size_t>(blocks) * threads)) / threads] += host[4 * i];
  const Comparison c = compare<float, float>(got, want, Tolerance{0, 0});
  EXPECT_TRUE(c.ok()) << c.describe();
}

TEST_F(GpuKernels, PointerChaseFollowsTheChain) {
  const std::uint32_t n = 4096;
  std::vector<std::uint32_t> next(n);
  for (std::uint32_t i = 0; i < n; ++i) next[i] = (i * 37 + 11) % n;  // a permutation of 0..n-1
  DeviceBuffer d_next(n * sizeof(std::uint32_t)), d_out(sizeof(std::uint32_t));
  d_next.upload(next.data(), n * sizeof(std::uint32_t));
  d_out.fill_bytes(0xFF);
  kernels::pointer_chase_launch(d_next.as<std::uint32_t>(), 1000, d_out.as<std::uint32_t>(),
                                nullptr);
  std::uint32_t got = 0, p = 0;
  d_out.download(&got, sizeof got);
  for (int s = 0; s < 1000; ++s) p = next[p];
  EXPECT_EQ(got, p);
}

TEST_F(GpuKernels, ResidencyRecordsEveryBlockAndCooperativeLimit) {
  const GpuDevice& gpu = status_.devices.at(0);
  const int blocks = 2 * gpu.sm_count + 3;
  // The runtime's own calculator gives the cooperative limit; the buffer holds one block more.
  const int per_sm = kernels::residency_api_blocks_per_sm(kernels::ResidencyKernel::light, 64, 0);
  ASSERT_GT(per_sm, 0);
  const int limit = per_sm * gpu.sm_count;
  DeviceBuffer rec_buf(static_cast<std::size_t>(std::max(blocks, limit + 1)) *
                       sizeof(kernels::BlockRecord));
  rec_buf.fill_bytes(0xFF);
  kernels::residency_launch(kernels::ResidencyKernel::light, rec_buf.as<kernels::BlockRecord>(),
                            blocks, 64, 0, 2000, nullptr);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<kernels::BlockRecord> rec(static_cast<std::size_t>(blocks));
  rec_buf.download(rec.data(), rec.size() * sizeof(kernels::BlockRecord));
  for (int i = 0; i < blocks; ++i) {
    EXPECT_EQ(rec[i].block, static_cast<std::uint32_t>(i));
    EXPECT_LT(rec[i].smid, static_cast<std::uint32_t>(gpu.sm_count));
    EXPECT_GE(rec[i].end_ns, rec[i].start_ns + 2000);
  }
  // A cooperative launch agrees with the calculator: the limit fits, one block more does not.
  EXPECT_EQ(
      kernels::residency_cooperative_launch(kernels::ResidencyKernel::light,
                                            rec_buf.as<kernels::BlockRecord>(), limit, 64, 0, 1000),
      "");
  EXPECT_EQ(kernels::residency_cooperative_launch(kernels::ResidencyKernel::light,
                                                  rec_buf.as<kernels::BlockRecord>(), limit + 1, 64,
                                                  0, 1000),
            "cudaErrorCooperativeLaunchTooLarge");
}

}  // namespace
}  // namespace bb
