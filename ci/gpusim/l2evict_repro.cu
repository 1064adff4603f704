// GPGPU-Sim's timing model: a cold L2 without a flush kernel (harness/gpu_cuda.cu, GpuSession).
// A host-to-device copy of 2x the L2 into a scratch buffer is written into the L2 as clean lines by
// the copy-engine model (-gpgpu_perf_sim_memcpy 1, on in the tested configs), evicting earlier data
// in zero simulated cycles. (-gpgpu_flush_l2_cache 1 would not do: tag_array::flush drops only
// dirty lines, so read-only data stays.) Reads 1 MiB three times: cold, warm (L2 hits), and after
// an 8 MiB copy (2x the 4 MiB L2 of SM86_RTX3070): cold again. Seen on SM86_RTX3070 (sm_80 build,
// nvcc -arch=sm_80 -cudart shared): run 0 7.403 us (8,380 cycles), run 1 6.169 us (6,983), run 2
// after the copy 7.404 us (8,381). Exit 0 when run 2 is as slow as run 0 (evicted) and run 1
// faster; 1 otherwise; 2 when a CUDA call fails.
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>
__global__ void rd(const float4* x, size_t n, float* out) {
  float s = 0;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    s += x[i].x;
  if (s == 12345.f) *out = s;
}
int main() {
  const size_t n = (1 << 20) / 16, flush = 8 << 20;
  float4* x;
  float* out;
  void* f;
  std::vector<char> h(flush, 0);
  cudaStream_t st;
  cudaEvent_t a, b;
  if (cudaMalloc(&x, n * 16) || cudaMalloc(&out, 4) || cudaMalloc(&f, flush) ||
      cudaMemset(x, 0, n * 16) || cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) ||
      cudaEventCreate(&a) || cudaEventCreate(&b))
    return 2;
  float us[3] = {};
  for (int r = 0; r < 3; ++r) {
    if (r == 2 && cudaMemcpyAsync(f, h.data(), flush, cudaMemcpyHostToDevice, st)) return 2;
    cudaEventRecord(a, st);
    rd<<<92, 256, 0, st>>>(x, n, out);
    cudaEventRecord(b, st);
    float ms = 0;
    if (cudaGetLastError() || cudaEventSynchronize(b) || cudaEventElapsedTime(&ms, a, b)) return 2;
    us[r] = ms * 1e3f;
    printf("run %d%s: %.3f us\n", r, r == 2 ? " (after the 8 MiB copy)" : "", us[r]);
  }
  return us[1] < 0.95f * us[0] && us[2] > 0.99f * us[0] ? 0 : 1;
}
