// GPGPU-Sim converted a 64-bit integer to floating point (cvt.rn.f64.s64 / .u64) from an
// uninitialised register: the result was 0 whatever the input. Prints the converted values
// (-127 127 18446744073709551615 on a GPU and with ci/gpusim/*.patch; 0 0 0 without).
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

__global__ void convert(const std::int64_t* s, const std::uint64_t* u, double* out) {
  out[0] = static_cast<double>(s[0]);
  out[1] = static_cast<double>(s[1]);
  out[2] = static_cast<double>(u[0]);
}

int main() {
  const std::int64_t hs[2] = {-127, 127};
  const std::uint64_t hu = ~std::uint64_t{0};
  std::int64_t* s;
  std::uint64_t* u;
  double* out;
  double got[3] = {};
  if (cudaMalloc(&s, sizeof hs) || cudaMalloc(&u, sizeof hu) || cudaMalloc(&out, sizeof got) ||
      cudaMemcpy(s, hs, sizeof hs, cudaMemcpyHostToDevice) ||
      cudaMemcpy(u, &hu, sizeof hu, cudaMemcpyHostToDevice))
    return 2;
  convert<<<1, 1>>>(s, u, out);
  if (cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost)) return 2;
  std::printf("cvt.rn.f64.s64/u64: %.17g %.17g %.17g\n", got[0], got[1], got[2]);
  return got[0] == -127 && got[1] == 127 && got[2] == 18446744073709551615.0 ? 0 : 1;
}
