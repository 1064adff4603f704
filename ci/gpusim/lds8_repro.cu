// GPGPU-Sim sign-extended ld.s16 and ld.s32 into a wider register but not ld.s8: a signed byte
// was zero-extended, so int8 -1 read as 255 (GpuQuant's symmetric int8 dequantization gave 84.3
// for -0.33). Prints the two values read (-1 -128 on a GPU and with ci/gpusim/*.patch; 255 128
// without).
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

__global__ void widen(const std::int8_t* q, double* out) {
  out[0] = static_cast<double>(q[0]);  // ld.global.s8 into a 16-bit register, cvt.rn.f64.s16
  out[1] = static_cast<double>(q[1]);
}

int main() {
  const std::int8_t hq[2] = {-1, -128};
  std::int8_t* q;
  double* out;
  double got[2] = {};
  if (cudaMalloc(&q, sizeof hq) || cudaMalloc(&out, sizeof got) ||
      cudaMemcpy(q, hq, sizeof hq, cudaMemcpyHostToDevice))
    return 2;
  widen<<<1, 1>>>(q, out);
  if (cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost)) return 2;
  std::printf("ld.s8: %g %g\n", got[0], got[1]);
  return got[0] == -1 && got[1] == -128 ? 0 : 1;
}
