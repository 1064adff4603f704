// Array conversions between number formats. Host: fp32 → fp16 with the CPU's conversion
// instructions (AVX-512F vcvtps2ph 16 at a time, else F16C 8 at a time, else the bit-level
// reference), OpenMP static split. Versions: 1 = intrinsics, round to nearest even.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bb::kernels {

void fp32_to_fp16_host(const float* x, std::uint16_t* out, std::size_t n);
// The instruction set fp32_to_fp16_host uses here: "avx512f", "f16c" or "scalar".
const char* fp32_to_fp16_host_isa();

}  // namespace bb::kernels
