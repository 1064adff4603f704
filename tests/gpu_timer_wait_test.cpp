// The strategies' synthetic compute on a GPU (kernels/timer_wait.h): the kernel waits the declared
// duration on %globaltimer, as CUDA events around it see it (skips, with the reason, without a
// usable GPU or under the simulator, which times nothing).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "harness/gpu.h"
#include "kernels/timer_wait.h"
#include "tests/gpu_test_support.h"

namespace bb {
namespace {

TEST(GpuTimerWait, WaitsTheDeclaredDurationAndNoMore) {
  const GpuStatus status = query_gpus();
  if (!status.usable) GTEST_SKIP() << "no usable GPU: " << status.reason;
  if (gpu_test::simulated()) GTEST_SKIP() << gpu_test::kNoTiming;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&start), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&stop), cudaSuccess);
  kernels::launch_timer_wait(1000, stream);  // loads the kernel's module
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  for (double duration_ms : {0.1, 1.0, 5.0}) {
    ASSERT_EQ(cudaEventRecord(start, stream), cudaSuccess);
    kernels::launch_timer_wait(static_cast<std::uint64_t>(duration_ms * 1e6), stream);
    ASSERT_EQ(cudaEventRecord(stop, stream), cudaSuccess);
    ASSERT_EQ(cudaEventSynchronize(stop), cudaSuccess);
    float elapsed_ms = 0;
    ASSERT_EQ(cudaEventElapsedTime(&elapsed_ms, start, stop), cudaSuccess);
    // Events resolve about 0.5 µs; the wait ends within one update of %globaltimer (1 µs on many
    // GPUs) and the sleeps between reads (256 ns), after a launch of a few µs. 0.5 ms of margin
    // above: a GPU shared with other work may start the kernel late, never end it early.
    EXPECT_GE(elapsed_ms, duration_ms - 0.002) << duration_ms;
    EXPECT_LE(elapsed_ms, duration_ms + 0.5) << duration_ms;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaStreamDestroy(stream);
}

}  // namespace
}  // namespace bb
