// Block-scaled formats: OCP MX (v1.0, §6.3) — blocks of 32 elements (FP8 E4M3/E5M2, FP6, FP4)
// sharing one E8M0 scale X = 2^e — and NVFP4 — blocks of 16 FP4 E2M1 elements sharing an E4M3
// scale, under one fp32 tensor scale. x ≈ X·P.
//
// MX scale rules: `ocp_floor` is the specification's e = floor(log2 amax) − emax_elem: amax / X
// lands in [2^emax, 2^(emax+1)), whose top reaches past every element format's max finite (E4M3
// 448 < 512, E5M2 57344 < 65536, E2M1 6 < 8 …), so the largest elements can clip (saturate);
// `round_up` takes e = ceil(log2(amax / max_elem)), so
// amax / X ≤ max_elem and nothing clips, at up to one binade of resolution.
// NVFP4: block scale s = e4m3_up(amax_b / (6 · g)) with the tensor scale g = amax / (448 · 6), the
// E4M3 rounding taken upward so that amax_b / (s·g) ≤ 6: no clipping either. (NVIDIA's recipe
// rounds the block scale to nearest, saturating, so its blocks can clip by up to one E4M3 step;
// results here will then differ from NVFP4 data made by NVIDIA's tools.)
// Bad input is refused (std::invalid_argument): NaN or ±inf, a block size not dividing the length.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "reference/formats.h"
#include "theory/block_quant.h"

namespace bb::reference {

using theory::MxScaleRule;  // its rules are computed here from log2, independently of theory/

struct BlockQuantized {
  std::vector<std::uint8_t> codes;        // one element code each
  std::vector<double> block_scales;       // X per block (decoded)
  std::vector<std::uint8_t> scale_codes;  // E8M0 (MX) or E4M3 (NVFP4) per block
  double tensor_scale = 1;                // NVFP4's fp32 g; 1 for MX
  std::size_t block = 0;
  theory::Format element{};
};

namespace detail {
inline void check_blocks(std::span<const float> x, std::size_t block) {
  if (block == 0 || x.size() % block != 0)
    throw std::invalid_argument("block quantization: block size " + std::to_string(block) +
                                " does not divide the length " + std::to_string(x.size()));
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!std::isfinite(x[i]))
      throw std::invalid_argument("block quantization: element " + std::to_string(i) +
                                  " is not finite");
}
inline double block_amax(std::span<const float> b) {
  double a = 0;
  for (float v : b) a = std::max(a, std::fabs(static_cast<double>(v)));
  return a;
}
}  // namespace detail

inline BlockQuantized mx_quantize(std::span<const float> x, theory::Format element,
                                  MxScaleRule rule, std::size_t block = 32) {
  detail::check_blocks(x, block);
  if (element != theory::Format::e4m3 && element != theory::Format::e5m2 &&
      element != theory::Format::e2m3 && element != theory::Format::e3m2 &&
      element != theory::Format::e2m1)
    throw std::invalid_argument("mx_quantize: MX elements are E4M3, E5M2, E2M3, E3M2 or E2M1");
  const FormatSpec& f = theory::format_spec(element);
  const FormatSpec& e8m0 = theory::format_spec(theory::Format::e8m0);
  BlockQuantized q{.block = block, .element = element};
  for (std::size_t b0 = 0; b0 < x.size(); b0 += block) {
    const double amax = detail::block_amax(x.subspan(b0, block));
    long e = -127;  // an all-zero block: the smallest scale (E8M0 has no zero)
    if (amax > 0)
      e = rule == MxScaleRule::ocp_floor
              ? static_cast<long>(std::floor(std::log2(amax))) - theory::max_exponent(f)
              : static_cast<long>(std::ceil(std::log2(amax / theory::max_finite(f))));
    e = std::clamp(e, -127L, 127L);
    const std::uint8_t code = static_cast<std::uint8_t>(e + 127);
    const double scale = decode(e8m0, code);
    q.scale_codes.push_back(code);
    q.block_scales.push_back(scale);
    for (std::size_t i = 0; i < block; ++i)  // elements saturate: MX conversions clip
      q.codes.push_back(static_cast<std::uint8_t>(encode(
          f, static_cast<double>(x[b0 + i]) / scale, Rounding::nearest_even, Overflow::saturate)));
  }
  return q;
}

inline BlockQuantized nvfp4_quantize(std::span<const float> x, std::size_t block = 16) {
  detail::check_blocks(x, block);
  const FormatSpec& fp4 = theory::format_spec(theory::Format::e2m1);
  const FormatSpec& e4m3 = theory::format_spec(theory::Format::e4m3);
  BlockQuantized q{.block = block, .element = theory::Format::e2m1};
  const double amax = detail::block_amax(x);
  // The tensor scale is an fp32 value, as stored.
  q.tensor_scale = static_cast<float>(
      amax > 0 ? amax / (theory::max_finite(e4m3) * theory::max_finite(fp4)) : 1.0);
  for (std::size_t b0 = 0; b0 < x.size(); b0 += block) {
    const double ab = detail::block_amax(x.subspan(b0, block));
    // Rounded up, so that no element of the block exceeds 6 after scaling; a zero block keeps the
    // smallest positive E4M3 scale.
    std::uint8_t code =
        static_cast<std::uint8_t>(encode(e4m3, ab / (theory::max_finite(fp4) * q.tensor_scale),
                                         Rounding::toward_positive, Overflow::saturate));
    if (code == 0) code = 1;
    const double scale = decode(e4m3, code);
    q.scale_codes.push_back(code);
    q.block_scales.push_back(scale);
    for (std::size_t i = 0; i < block; ++i)
      q.codes.push_back(static_cast<std::uint8_t>(
          encode(fp4, static_cast<double>(x[b0 + i]) / (scale * q.tensor_scale),
                 Rounding::nearest_even, Overflow::saturate)));
  }
  return q;
}

// Per-tensor fp8: one scale s = fp32(amax·2^margin / max_finite) (1 for an all-zero tensor),
// elements RNE(x / s) saturating; stored as one block of the whole length.
inline BlockQuantized fp8_tensor_quantize(std::span<const float> x, theory::Format element,
                                          int margin = 0) {
  detail::check_blocks(x, std::max<std::size_t>(x.size(), 1));
  if (element != theory::Format::e4m3 && element != theory::Format::e5m2)
    throw std::invalid_argument("fp8_tensor_quantize: the elements are E4M3 or E5M2");
  if (margin < 0) throw std::invalid_argument("fp8_tensor_quantize: the margin must be >= 0");
  const FormatSpec& f = theory::format_spec(element);
  const double amax = detail::block_amax(x);
  const double s =
      amax > 0 ? static_cast<float>(amax * std::pow(2.0, margin) / theory::max_finite(f)) : 1.0;
  BlockQuantized q{.block_scales = {s}, .block = x.size(), .element = element};
  for (float v : x)
    q.codes.push_back(static_cast<std::uint8_t>(
        encode(f, static_cast<double>(v) / s, Rounding::nearest_even, Overflow::saturate)));
  return q;
}

inline std::vector<double> block_dequantize(const BlockQuantized& q) {
  const FormatSpec& f = theory::format_spec(q.element);
  std::vector<double> x(q.codes.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = decode(f, q.codes[i]) * q.block_scales[i / q.block] * q.tensor_scale;
  return x;
}

}  // namespace bb::reference
