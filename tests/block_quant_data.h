// Test tensors for the block-scaled quantization kernels (host and GPU tests): ties on the element
// grid, zero and −0 blocks, subnormal fp32 inputs, block maxima exactly on the scale rules'
// boundaries, values near FLT_MAX, and random data over 2^±40.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/block_quant.h"
#include "reference/formats.h"
#include "reference/random.h"

namespace bb::testdata {

inline void pad_to_block(std::vector<float>& x) {
  while (x.size() % 32 != 0) x.push_back(0.0f);
}

// One block per format boundary: max_finite first (scale 1 under both MX rules), then every
// midpoint between consecutive positive codes, alternating signs — round-to-nearest-even ties.
inline std::vector<float> grid_ties(theory::Format element) {
  const theory::FormatSpec& f = theory::format_spec(element);
  std::vector<float> x = {static_cast<float>(theory::max_finite(f))};
  const std::uint64_t codes = std::uint64_t{1} << (f.bits - 1);
  for (std::uint64_t c = 0; c + 1 < codes; ++c) {
    const double a = reference::decode(f, c), b = reference::decode(f, c + 1);
    if (!std::isfinite(a) || !std::isfinite(b)) break;
    x.push_back(static_cast<float>((c % 2 ? -1 : 1) * (a + b) / 2));
    pad_to_block(x);
    if (x.size() % 32 == 0) x.push_back(static_cast<float>(theory::max_finite(f)));
  }
  pad_to_block(x);
  return x;
}

// Zero blocks, −0, fp32 subnormals, blocks of one value, maxima at max·2^k exactly and one ulp
// either side, powers of two, FLT_MAX, and random magnitudes over 2^-40 … 2^40 with random signs.
inline std::vector<float> edge_blocks(std::uint64_t seed) {
  std::vector<float> x(32, 0.0f);
  for (int i = 0; i < 32; ++i) x.push_back(-0.0f);
  for (int i = 0; i < 32; ++i) x.push_back(std::ldexp(static_cast<float>(i + 1), -149 + i % 5));
  for (float equal : {3.3f, -1e-30f})  // blocks of one value
    for (int i = 0; i < 32; ++i) x.push_back(equal);
  for (double top : {448.0, 57344.0, 6.0}) {
    for (int k : {-130, -20, 0, 7, 100}) {
      const float m = static_cast<float>(std::ldexp(top, k));
      for (float amax : {m, std::nextafter(m, 0.0f), std::nextafter(m, INFINITY)}) {
        if (!std::isfinite(amax) || amax == 0) continue;
        x.push_back(amax);
        for (int i = 1; i < 32; ++i)
          x.push_back(static_cast<float>(amax * (i % 2 ? -1 : 1) * (1 - i / 40.0)));
      }
    }
  }
  for (int i = 0; i < 32; ++i) x.push_back(std::ldexp(1.0f, i - 16));
  x.push_back(std::numeric_limits<float>::max());
  for (int i = 1; i < 32; ++i)
    x.push_back(-std::numeric_limits<float>::max() / static_cast<float>(i + 1));
  for (int i = 0; i < 32 * 64; ++i) {
    const double u = reference::uniform01(seed, static_cast<std::uint64_t>(i));
    const double mag =
        std::exp2(80 * reference::uniform01(seed + 1, static_cast<std::uint64_t>(i / 32)) - 40);
    x.push_back(static_cast<float>((2 * u - 1) * mag));
  }
  pad_to_block(x);
  return x;
}

// Every scheme with every element it takes, and fp8 per tensor with a margin.
inline std::vector<kernels::BlockQuantSpec> all_block_specs() {
  using kernels::BlockScheme;
  using theory::Format;
  std::vector<kernels::BlockQuantSpec> specs;
  for (BlockScheme s : {BlockScheme::mx_floor, BlockScheme::mx_round_up})
    for (Format f : {Format::e4m3, Format::e5m2, Format::e2m3, Format::e3m2, Format::e2m1})
      specs.push_back({f, s, 0});
  specs.push_back({Format::e4m3, BlockScheme::fp8_tensor, 0});
  specs.push_back({Format::e4m3, BlockScheme::fp8_tensor, 3});
  specs.push_back({Format::e5m2, BlockScheme::fp8_tensor, 0});
  specs.push_back({Format::e2m1, BlockScheme::nvfp4, 0});
  return specs;
}

}  // namespace bb::testdata
