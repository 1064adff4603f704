// The AVX-512 body of host block quantization (kernels/block_quant_host.cpp picks it where the
// CPU has AVX-512 F/BW/VL/DQ/CD): one pass per run of blocks, written with intrinsics, bit-exact
// with reference/mx.h like the portable body it replaces. Internal to the host kernels.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/block_quant.h"

namespace bb::kernels::detail {

// What a range of blocks needs; `tensor_scale` is fp8's s or NVFP4's g (1 for MX).
struct BlockJob {
  BlockQuantSpec spec;
  SmallTarget element, e4m3_small;
  reference::Fp32Target e4m3;
  int emax;
  double top;
  float tensor_scale;
  const float* x;
  std::size_t n;
  std::uint8_t* codes;
  std::uint8_t* scale_codes;
};

// fp8 per tensor: the unit of the ranges (elements).
constexpr std::size_t kRangeBlock = 32;

// Units [b0, b1) (blocks; fp8 per tensor: runs of kRangeBlock elements). Returns whether a block
// held a non-finite element. `portable` does the units the vector body leaves (a tail of fewer
// than 16 blocks, a scale outside the fp32 normal range).
using RangeFn = bool (*)(const BlockJob&, std::size_t, std::size_t);
bool quantize_range_intrinsics(const BlockJob& j, std::size_t b0, std::size_t b1, RangeFn portable);

}  // namespace bb::kernels::detail
