// Array conversions between number formats. Host: fp32 → fp16 with the CPU's conversion
// instructions (AVX-512F vcvtps2ph 16 at a time, else F16C 8 at a time, else the bit-level
// reference), OpenMP static split. Versions: 1 = intrinsics, round to nearest even.
#pragma once

#include <cstddef>
#include <cstdint>

struct CUstream_st;

namespace bb::kernels {

void fp32_to_fp16_host(const float* x, std::uint16_t* out, std::size_t n);
// The instruction set fp32_to_fp16_host uses here: "avx512f", "f16c" or "scalar".
const char* fp32_to_fp16_host_isa();

// CUDA: an exhaustive check of a device conversion against the reference rounding over the fp32
// bit patterns [first, first + count) (count up to 2^32). The caller zeroes `result` on the device
// (first_input set to 0xFFFFFFFF) before the launch; the kernel adds to it.
// FP6 and FP4 (cuda_fp6.h, cuda_fp4.h) have neither infinity nor NaN: they saturate, and a NaN
// input gives +max (CUDA's convention, and the reference's).
enum class DeviceConversion {
  fp16,
  bf16,
  e4m3_satfinite,
  e4m3,
  e5m2_satfinite,
  e5m2,
  e2m3,
  e3m2,
  e2m1
};
struct ConvertSweepResult {
  unsigned long long checked = 0, mismatches = 0;
  unsigned int first_input = 0xFFFFFFFFu;  // the lowest disagreeing pattern
  unsigned int reference_code = 0, device_code = 0;
};
void convert_sweep_cuda(DeviceConversion c, std::uint64_t first, std::uint64_t count,
                        ConvertSweepResult* result, int blocks, int threads, CUstream_st* stream);

}  // namespace bb::kernels
