// GPGPU-Sim computed fma.rn.f32 as a*b+c in two roundings (a float product, then a float sum):
// fmaf() on the device then differs from the host's fmaf() in the last bit for some inputs.
// Prints how many of 4096 lanes differ (0 on a GPU and with ci/gpusim/*.patch).
#include <cmath>
#include <cstdio>
#include <cuda_runtime.h>

__global__ void fma_kernel(const float* x, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fmaf(x[i], 0.9999f, 1e-4f);
}

int main() {
  const int n = 4096;
  float hx[n], got[n];
  for (int i = 0; i < n; ++i) hx[i] = 1.0f + static_cast<float>(i) * 1e-3f;
  float *dx, *dout;
  cudaMalloc(&dx, n * 4);
  cudaMalloc(&dout, n * 4);
  cudaMemcpy(dx, hx, n * 4, cudaMemcpyHostToDevice);
  fma_kernel<<<n / 256, 256>>>(dx, dout, n);
  cudaMemcpy(got, dout, n * 4, cudaMemcpyDeviceToHost);
  int differ = 0, first = -1;
  for (int i = 0; i < n; ++i)
    if (got[i] != std::fmaf(hx[i], 0.9999f, 1e-4f)) differ += (first < 0 ? (first = i) : i) >= 0;
  std::printf("fma.rn.f32: %d of %d lanes differ from the host's fmaf", differ, n);
  if (first >= 0)
    std::printf(" (first: x=%.9g device %.9g host %.9g)", hx[first], got[first],
                std::fmaf(hx[first], 0.9999f, 1e-4f));
  std::printf("\n");
  return differ != 0;
}
