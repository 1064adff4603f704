// Uniform integer quantization x ≈ s·(q − z) (Jacob et al., CVPR 2018; Nagel et al., "A White Paper
// on Neural Network Quantization", 2021): scale and zero point from a range, the error inside the
// range, and the noise law. Derivations: theory/README.md, "Quantization".
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "theory/work.h"

namespace bb::theory {

enum class QuantScheme { symmetric, asymmetric };

struct IntQuant {
  double scale = 1;
  std::int64_t zero_point = 0;
  std::int64_t q_min = 0, q_max = 0;
};

// Symmetric (restricted range): q ∈ [−(2^(b−1) − 1), 2^(b−1) − 1], z = 0, s = amax / q_max.
// Asymmetric: q ∈ [0, 2^b − 1], the range widened to hold 0 (so 0 is exact), s = (max − min) /
// (2^b − 1), z = round(−min / s). An all-zero range gets s = 1 (every x is 0, exactly). Throws
// std::invalid_argument for bits outside 2 … 16 or a range that is not finite or min > max.
inline IntQuant int_quant_params(double min, double max, int bits, QuantScheme scheme) {
  if (bits < 2 || bits > 16) throw std::invalid_argument("quantization: bits must be 2 … 16");
  if (!std::isfinite(min) || !std::isfinite(max) || min > max)
    throw std::invalid_argument("quantization: the range must be finite with min <= max");
  IntQuant p;
  if (scheme == QuantScheme::symmetric) {
    p.q_max = (std::int64_t{1} << (bits - 1)) - 1;
    p.q_min = -p.q_max;
    const double amax = std::max(std::fabs(min), std::fabs(max));
    p.scale = amax > 0 ? amax / static_cast<double>(p.q_max) : 1.0;
    return p;
  }
  p.q_min = 0;
  p.q_max = (std::int64_t{1} << bits) - 1;
  const double lo = std::min(min, 0.0), hi = std::max(max, 0.0);
  p.scale = hi > lo ? (hi - lo) / static_cast<double>(p.q_max) : 1.0;
  p.zero_point = std::llround(-lo / p.scale);
  return p;
}

// Inside the representable range [s(q_min − z), s(q_max − z)], rounding to nearest errs by at most
// s/2; for x spread evenly over many steps the error is uniform: variance s²/12.
inline double quant_max_error(const IntQuant& p) { return p.scale / 2; }
inline double quant_noise_variance(const IntQuant& p) { return p.scale * p.scale / 12; }

// SQNR = 10·log10(P / (s²/12)) of a signal spread over [min, max]: uniform over it, power
// P = (min² + min·max + max²)/3; a sine spanning it, P = c² + a²/2 (centre c, amplitude a). For a
// zero-mean signal filling a symmetric range of L = q_max − q_min + 1 levels the uniform one is
// 20·log10(L − 1) dB (≈ 6.02·b) and the sine 1.76 dB more.
inline double sqnr_uniform_db(const IntQuant& p, double min, double max) {
  return 10 * std::log10((min * min + min * max + max * max) / 3 / quant_noise_variance(p));
}
inline double sqnr_sine_db(const IntQuant& p, double min, double max) {
  const double c = (max + min) / 2, a = (max - min) / 2;
  return 10 * std::log10((c * c + a * a / 2) / quant_noise_variance(p));
}

// Storage per value including the parameters: b bits, plus an fp32 scale (and, asymmetric, a
// b-bit zero point) shared by `group` values: b + (32 [+ b]) / group (int8 per group of 128,
// asymmetric: 8.31 bits). Throws std::invalid_argument for group < 1.
inline double quant_bits_per_value(int bits, QuantScheme scheme, double group) {
  if (!(group >= 1)) throw std::invalid_argument("quantization: the group size must be >= 1");
  return bits + (32.0 + (scheme == QuantScheme::asymmetric ? bits : 0)) / group;
}

// Quantizing n fp32 values to b-bit integers in two passes, the range (min/max per tensor, channel
// or group), then the quantize pass, each reading them: 2 × 4n bytes read, n·b/8 written (the
// scales and zero points, one per group, not counted), n elements. A fused pass that keeps each
// group in registers between its range and its codes (kernels/quant.cu) reads them once: passes 1.
inline WorkCount int_quant_work(double elements, int bits, int passes = 2) {
  return {passes * 4 * elements, elements * bits / 8, 0, elements};
}

}  // namespace bb::theory
