// Host block-scaled quantization (kernels/block_quant.h): OpenMP over blocks (or chunks of the
// tensor), the element arithmetic of the header.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "kernels/block_quant.h"

namespace bb::kernels {

namespace {

reference::Fp32Target element_target(const BlockQuantSpec& spec) {
  return reference::fp32_target(theory::format_spec(spec.element), true);
}
reference::Fp32Target e4m3_target() {
  return reference::fp32_target(theory::format_spec(theory::Format::e4m3), true);
}

void store_code(const BlockQuantSpec& spec, std::uint8_t* codes, std::size_t i, std::uint32_t c) {
  if (!spec.four_bit()) {
    codes[i] = static_cast<std::uint8_t>(c);
  } else if (i % 2 == 0) {
    codes[i / 2] = static_cast<std::uint8_t>((codes[i / 2] & 0xF0u) | c);
  } else {
    codes[i / 2] = static_cast<std::uint8_t>((codes[i / 2] & 0x0Fu) | (c << 4));
  }
}

std::uint32_t load_code(const BlockQuantSpec& spec, const std::uint8_t* codes, std::size_t i) {
  if (!spec.four_bit()) return codes[i];
  return i % 2 == 0 ? codes[i / 2] & 0x0Fu : codes[i / 2] >> 4;
}

float amax_of(const float* x, std::size_t n) {
  float amax = 0;
  std::size_t bad = n;
#pragma omp parallel for schedule(static) reduction(max : amax) reduction(min : bad)
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(x[i])) bad = std::min(bad, i);
    amax = std::max(amax, std::fabs(x[i]));
  }
  if (bad < n)
    throw std::invalid_argument("block quantization: element " + std::to_string(bad) +
                                " is not finite");
  return amax;
}

}  // namespace

void block_quantize_host(const BlockQuantSpec& spec, const float* x, std::size_t n,
                         std::uint8_t* codes, std::uint8_t* scale_codes, float* tensor_scale) {
  spec.validate(n);
  const reference::Fp32Target t = element_target(spec);
  const theory::FormatSpec& f = theory::format_spec(spec.element);
  const float amax = amax_of(x, n);  // also refuses non-finite input
  if (spec.scheme == BlockScheme::fp8_tensor) {
    const float s = theory::fp8_tensor_scale(amax, f, spec.margin);
    *tensor_scale = s;
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i)
      codes[i] = static_cast<std::uint8_t>(
          reference::encode_fp32_nearest(t, fp32_round_to_odd_bits(static_cast<double>(x[i]) / s)));
    return;
  }
  const std::size_t block = spec.block(), blocks = n / block;
  const float g = spec.scheme == BlockScheme::nvfp4 ? theory::nvfp4_tensor_scale(amax) : 1.0f;
  *tensor_scale = g;
  const int emax = theory::max_exponent(f);
  const double top = theory::max_finite(f);
  const reference::Fp32Target e4m3 = e4m3_target();
  const long long nb = static_cast<long long>(blocks);
#pragma omp parallel for schedule(static)
  for (long long b = 0; b < nb; ++b) {
    const float* xb = x + static_cast<std::size_t>(b) * block;
    float ab = 0;
    for (std::size_t i = 0; i < block; ++i) ab = std::max(ab, std::fabs(xb[i]));
    const std::size_t i0 = static_cast<std::size_t>(b) * block;
    if (spec.scheme == BlockScheme::nvfp4) {
      const std::uint32_t sc = e4m3_code_up(e4m3, ab / (6.0 * g));
      scale_codes[b] = static_cast<std::uint8_t>(sc);
      const double scale = decode_small(e4m3, sc) * g;  // exact: 4 × 24 significant bits
      for (std::size_t i = 0; i < block; ++i)
        store_code(spec, codes, i0 + i,
                   reference::encode_fp32_nearest(
                       t, fp32_round_to_odd_bits(static_cast<double>(xb[i]) / scale)));
    } else {
      const int e = mx_exponent(ab, emax, top, spec.scheme == BlockScheme::mx_floor);
      scale_codes[b] = static_cast<std::uint8_t>(e + 127);
      const float inv = exp2_float(-e);
      for (std::size_t i = 0; i < block; ++i)
        store_code(spec, codes, i0 + i, reference::encode_fp32_nearest(t, float_bits(xb[i] * inv)));
    }
  }
}

void block_dequantize_host(const BlockQuantSpec& spec, const std::uint8_t* codes,
                           const std::uint8_t* scale_codes, float tensor_scale, std::size_t n,
                           float* x) {
  spec.validate(n);
  const reference::Fp32Target t = element_target(spec), e4m3 = e4m3_target();
  const std::size_t block = spec.block();
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    const double scale = block == 0 ? 1.0
                         : spec.scheme == BlockScheme::nvfp4
                             ? decode_small(e4m3, scale_codes[i / block])
                             : decode_e8m0(scale_codes[i / block]);
    x[i] = static_cast<float>(decode_small(t, load_code(spec, codes, i)) * scale * tensor_scale);
  }
}

}  // namespace bb::kernels
