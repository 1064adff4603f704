// GPGPU-Sim did not know the fp8 conversions of sm_89+ (cvt.rn.satfinite.e4m3x2.f32 and
// .e5m2x2.f32, what cuda_fp8.h's __nv_cvt_float_to_fp8(x, __NV_SATFINITE, …) compiles to there):
// a compute_90 binary stopped at the parser. Converts pairs (a, b) — a goes to the upper byte —
// across round-to-nearest-even ties, subnormals, saturation, infinity and NaN, and prints the
// 16-bit results against the PTX ISA's (hand-worked below). Build for compute_90 PTX:
//   nvcc -arch=compute_90 -cudart shared ci/gpusim/fp8cvt_repro.cu
// Exit 0: all as the ISA says (a GPU of sm_89+, or the simulator with ci/gpusim/fp8cvt.patch).
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>

constexpr int kPairs = 5;

__global__ void convert(const float2* in, unsigned short* e4m3, unsigned short* e5m2) {
  for (int i = 0; i < kPairs; ++i) {
    unsigned short d;
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(d) : "f"(in[i].x), "f"(in[i].y));
    e4m3[i] = d;
    asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(d) : "f"(in[i].x), "f"(in[i].y));
    e5m2[i] = d;
  }
}

int main() {
  const float inf = INFINITY, nan = NAN;
  // (a, b): a's code in the upper byte. E4M3: bias 7, 3 mantissa bits, MAX_NORM 448 (0x7e),
  // quantum 2^-9 below 2^-6; E5M2: bias 15, 2 bits, MAX_NORM 57344 (0x7b), quantum 2^-16.
  const float2 in[kPairs] = {
      {1.0f, 1.0625f},       // E4M3 0x38 | 1.0625 ties to 1.0: 0x38; E5M2 0x3c | 0x3c
      {1.1875f, 500.0f},     // E4M3 tie to 1.25 0x3a | 500 > 448 saturates 0x7e;
                             // E5M2 1.1875 -> 1.25 0x3d | 500 -> 512 0x60
      {-inf, 60000.0f},      // E4M3 -MAX 0xfe | MAX 0x7e; E5M2 -MAX 0xfb | 60000 > 57344: 0x7b
      {0x1p-10f, 0x3p-10f},  // E4M3 half the least subnormal ties to 0: 0x00 | 1.5 quanta tie
                             // to 2: 0x02; E5M2 both normal: 2^-10 0x14 | 1.5 x 2^-9 0x1a
      {-0.0f, nan},          // -0: 0x80 | NaN (any NaN code) in both
  };
  const unsigned short want_e4m3[kPairs] = {0x3838, 0x3a7e, 0xfe7e, 0x0002, 0x8000};
  const unsigned short want_e5m2[kPairs] = {0x3c3c, 0x3d60, 0xfb7b, 0x141a, 0x8000};
  float2* d_in;
  unsigned short *d_e4m3, *d_e5m2;
  unsigned short e4m3[kPairs] = {}, e5m2[kPairs] = {};
  if (cudaMalloc(&d_in, sizeof in) || cudaMalloc(&d_e4m3, sizeof e4m3) ||
      cudaMalloc(&d_e5m2, sizeof e5m2) || cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice))
    return 2;
  convert<<<1, 1>>>(d_in, d_e4m3, d_e5m2);
  if (cudaMemcpy(e4m3, d_e4m3, sizeof e4m3, cudaMemcpyDeviceToHost) ||
      cudaMemcpy(e5m2, d_e5m2, sizeof e5m2, cudaMemcpyDeviceToHost))
    return 2;
  bool ok = true;
  for (int i = 0; i < kPairs; ++i) {
    // The last pair's low byte is a NaN: E4M3 S.1111.111, E5M2 S.11111.mm with mm != 0.
    const bool last = i == kPairs - 1;
    const bool nan_e4m3 = (e4m3[i] & 0x7f) == 0x7f;
    const bool nan_e5m2 = (e5m2[i] & 0x7c) == 0x7c && (e5m2[i] & 0x3) != 0;
    const bool good = last ? (e4m3[i] >> 8) == (want_e4m3[i] >> 8) && nan_e4m3 &&
                                 (e5m2[i] >> 8) == (want_e5m2[i] >> 8) && nan_e5m2
                           : e4m3[i] == want_e4m3[i] && e5m2[i] == want_e5m2[i];
    std::printf("(%a, %a): e4m3x2 0x%04x (ISA 0x%04x%s) e5m2x2 0x%04x (ISA 0x%04x%s) %s\n", in[i].x,
                in[i].y, e4m3[i], want_e4m3[i], last ? ", low byte any NaN" : "", e5m2[i],
                want_e5m2[i], last ? ", low byte any NaN" : "", good ? "ok" : "WRONG");
    ok = ok && good;
  }
  return ok ? 0 : 1;
}
