// Three GPGPU-Sim conversions that differed from a GPU at the edges (found by the conversion sweep
// and by NVFP4 block quantization, whose tensors hold ties, NaNs and -0):
//  - cvt.rn.f16.f32 rounded ties away from zero (1 + 2^-11 gave 0x3C01, not 0x3C00) and turned a
//    NaN whose payload lies in the low 13 bits into infinity (0x7F800001 gave 0x7C00);
//  - cvt.rz.f32.f64 ignored .rz (rounded to nearest: 1 - 2^-30 gave 1.0f, not 0x3F7FFFFF);
//  - abs.f32 of -0.0 gave -0.0 (the sign bit must be cleared).
// Prints the four results: 3c00 7fff 3f7fffff 00000000 on a GPU and with ci/gpusim/*.patch
// (any f16 NaN, 7c01-7fff or fc01-ffff, passes); 3c01 7c00 3f800000 80000000 without.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

__global__ void edges(const float* f, const double* d, unsigned* out) {
  out[0] = __half_as_ushort(__float2half_rn(f[0]));  // a tie: to even
  out[1] = __half_as_ushort(__float2half_rn(f[1]));  // a NaN
  out[2] = __float_as_uint(__double2float_rz(d[0]));
  out[3] = __float_as_uint(fabsf(f[2]));
}

int main() {
  float f[3];
  const std::uint32_t bits[3] = {0x3F801000u, 0x7F800001u, 0x80000000u};
  std::memcpy(f, bits, sizeof f);
  const double d = 1.0 - 0x1p-30;
  float* df;
  double* dd;
  unsigned* dout;
  unsigned got[4] = {};
  if (cudaMalloc(&df, sizeof f) || cudaMalloc(&dd, sizeof d) || cudaMalloc(&dout, sizeof got) ||
      cudaMemcpy(df, f, sizeof f, cudaMemcpyHostToDevice) ||
      cudaMemcpy(dd, &d, sizeof d, cudaMemcpyHostToDevice))
    return 2;
  edges<<<1, 1>>>(df, dd, dout);
  if (cudaMemcpy(got, dout, sizeof got, cudaMemcpyDeviceToHost)) return 2;
  std::printf("f16 tie, f16 NaN, rz f64->f32, |-0|: %04x %04x %08x %08x\n", got[0], got[1], got[2],
              got[3]);
  const bool nan16 = (got[1] & 0x7C00u) == 0x7C00u && (got[1] & 0x3FFu) != 0;
  return got[0] == 0x3C00u && nan16 && got[2] == 0x3F7FFFFFu && got[3] == 0 ? 0 : 1;
}
