// GPGPU-Sim's timing model (PTX_SIM_MODE_FUNC unset, a config's gpgpusim.config in the cwd):
// 1. cudaEventElapsedTime gave host wall time in whole seconds (11,000 ms for a 10.5 us triad);
//    with ci/gpusim/timing.patch it gives the simulated core cycles between the two records at
//    the config's core clock, which the kernel's own %clock64 and %globaltimer agree with.
// 2. A __shfl_down_sync reduction segfaulted on SM86_RTX3070 and SM75_RTX2060, whose configs list
//    five integer latencies where the simulator reads six (SHFL's was uninitialised).
// Prints what it saw; exit 0 when the event time is simulated (the kernel's clocks fit inside it)
// and the reduction is exact, 1 otherwise. Under PTX_SIM_MODE_FUNC=1 events keep whole host
// seconds (usually 0): no cycles are simulated there.
#include <cuda_runtime.h>
#include <cstdio>

// Every thread adds `rounds` dependent steps; thread 0 notes both clocks at its start and end.
__global__ void spin(int rounds, float* out, unsigned long long* clocks) {
  unsigned long long c0 = clock64(), t0 = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  float x = static_cast<float>(threadIdx.x);
  for (int i = 0; i < rounds; ++i) x = x * 0.999f + 1.0f;
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
  __syncthreads();
  unsigned long long t1 = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    clocks[0] = clock64() - c0;
    clocks[1] = t1 - t0;
  }
}

__global__ void warp_sum(const int* in, int* out) {
  int v = in[threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  if (threadIdx.x % 32 == 0) atomicAdd(out, v);
}

int main() {
  const int blocks = 4, threads = 128;
  float* out;
  unsigned long long* clocks;
  int *in, *sum;
  cudaEvent_t start, stop;
  if (cudaMalloc(&out, blocks * threads * sizeof(float)) ||
      cudaMalloc(&clocks, 2 * sizeof(unsigned long long)) || cudaMalloc(&in, 64 * sizeof(int)) ||
      cudaMalloc(&sum, sizeof(int)) || cudaEventCreate(&start) || cudaEventCreate(&stop))
    return 2;
  int clock_khz = 0;
  cudaDeviceProp prop{};
  if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0) ||
      cudaGetDeviceProperties(&prop, 0))
    return 2;
  std::printf("device: %s\n", prop.name);

  cudaEventRecord(start);
  spin<<<blocks, threads>>>(2000, out, clocks);
  cudaEventRecord(stop);
  if (cudaEventSynchronize(stop)) return 2;
  float ms = -1;
  unsigned long long got[2] = {};
  if (cudaEventElapsedTime(&ms, start, stop) ||
      cudaMemcpy(got, clocks, sizeof got, cudaMemcpyDeviceToHost))
    return 2;
  const double event_ns = ms * 1e6, clock_ns = got[0] * 1e6 / clock_khz;
  std::printf(
      "event %.6f ms = %.0f ns; thread 0: %llu cycles (%.0f ns at %d kHz), globaltimer %llu ns\n",
      ms, event_ns, got[0], clock_ns, clock_khz, got[1]);
  // Simulated time: the kernel's own span fits inside the events' and is most of it (the rest is
  // the other warps and the drain), and %clock64 and %globaltimer agree within the few
  // instructions between their reads (100 cycles).
  const double slack_ns = 100e6 / clock_khz;
  const bool timed = event_ns >= got[1] && event_ns < 4.0 * got[1] + 1e4 &&
                     clock_ns > got[1] - slack_ns && clock_ns < got[1] + slack_ns;

  int hin[64], total = 0;
  for (int i = 0; i < 64; ++i) total += (hin[i] = i * 3 - 7);
  int zero = 0, dev_total = 0;
  if (cudaMemcpy(in, hin, sizeof hin, cudaMemcpyHostToDevice) ||
      cudaMemcpy(sum, &zero, sizeof zero, cudaMemcpyHostToDevice))
    return 2;
  warp_sum<<<1, 64>>>(in, sum);
  if (cudaMemcpy(&dev_total, sum, sizeof dev_total, cudaMemcpyDeviceToHost)) return 2;
  std::printf("shfl.down reduction: %d (host %d)\n", dev_total, total);
  return timed && dev_total == total ? 0 : 1;
}
