#include "base/cuda_check.h"
#include "base/device_timers.cuh"
#include "kernels/timer_wait.h"

namespace bb::kernels {
namespace {

__global__ void timer_wait(std::uint64_t duration_ns) {
  const std::uint64_t start = global_timer_ns();
  std::uint64_t now = start;
  while (now - start < duration_ns) {
    __nanosleep(256);
    now = global_timer_ns();
  }
}

}  // namespace

void launch_timer_wait(std::uint64_t duration_ns, CUstream_st* stream) {
  timer_wait<<<1, 1, 0, stream>>>(duration_ns);
  check_launch("timer_wait");
}

}  // namespace bb::kernels
