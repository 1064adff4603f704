// The occupancy table's per-architecture constants against the device the test runs on (skips,
// with the reason, when no GPU is usable or the architecture is not in the table).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "harness/gpu.h"
#include "theory/occupancy.h"

namespace bb {
namespace {

TEST(GpuOccupancy, TableMatchesTheDevice) {
  const GpuStatus status = query_gpus();
  if (!status.usable) GTEST_SKIP() << "no usable GPU: " << status.reason;
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

}  // namespace
}  // namespace bb
