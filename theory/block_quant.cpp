#include "theory/block_quant.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace bb::theory {

int mx_scale_exponent(double amax, const FormatSpec& element, MxScaleRule rule) {
  if (!std::isfinite(amax) || amax < 0)
    throw std::invalid_argument("mx scale: the block amax must be finite and non-negative");
  if (amax == 0) return -127;
  int e = 0;
  if (rule == MxScaleRule::ocp_floor) {
    e = std::ilogb(amax) - max_exponent(element);
  } else {
    const double top = max_finite(element);
    e = std::ilogb(amax) - std::ilogb(top);  // within one of the answer: adjust exactly
    while (std::ldexp(top, e) < amax) ++e;
    while (std::ldexp(top, e - 1) >= amax) --e;
  }
  return std::clamp(e, -127, 127);
}

float fp8_tensor_scale(double amax, const FormatSpec& element, int margin) {
  if (!std::isfinite(amax) || amax < 0 || margin < 0)
    throw std::invalid_argument("fp8 scale: amax must be finite and >= 0, margin >= 0");
  return amax > 0 ? static_cast<float>(std::ldexp(amax, margin) / max_finite(element)) : 1.0f;
}

float nvfp4_tensor_scale(double amax) {
  if (!std::isfinite(amax) || amax < 0)
    throw std::invalid_argument("nvfp4 scale: amax must be finite and >= 0");
  const double top = max_finite(format_spec(Format::e4m3)) * max_finite(format_spec(Format::e2m1));
  return amax > 0 ? static_cast<float>(amax / top) : 1.0f;
}

double nvfp4_block_scale(double block_amax, float tensor_scale) {
  const FormatSpec& e4m3 = format_spec(Format::e4m3);
  const double v = block_amax / (max_finite(format_spec(Format::e2m1)) * tensor_scale);
  // The least E4M3 value ≥ v within [min_subnormal, max_finite] (a zero block: the smallest).
  if (v >= max_finite(e4m3)) return max_finite(e4m3);
  if (v <= min_subnormal(e4m3)) return min_subnormal(e4m3);
  const double q = element_quantum(e4m3, v);
  return std::ceil(v / q) * q;  // v / q < 2^(m+1): exact
}

double element_quantum(const FormatSpec& element, double v_abs) {
  const int e =
      v_abs > 0 ? std::max(std::ilogb(v_abs), min_exponent(element)) : min_exponent(element);
  return std::ldexp(1.0, e - element.mantissa_bits);
}

double scaled_element_max_error(const FormatSpec& element, double scale, double x_abs) {
  const double v = x_abs / scale, top = max_finite(element);
  if (v > top) return x_abs - scale * top;
  return scale * element_quantum(element, v) / 2;
}

double float_quant_sqnr_uniform_db(const FormatSpec& element, double scale, double amax) {
  if (!(amax > 0) || !(scale > 0) || !std::isfinite(amax) || !std::isfinite(scale))
    throw std::invalid_argument("sqnr: amax and the scale must be finite and > 0");
  const double top = max_finite(element);
  const double v_end = amax / scale;  // the signal's end, in element units
  // ∫ over [0, min(v_end, top)] of q(v)²/12, binade by binade (subnormals: one quantum).
  double noise_v = 0;  // ∫ q²/12 dv, element units
  double lo = 0;
  int e = min_exponent(element);
  const double clip = std::min(v_end, top);
  while (lo < clip) {
    const double hi = std::min(std::ldexp(1.0, e + 1), clip);
    const double q = std::ldexp(1.0, e - element.mantissa_bits);
    noise_v += (hi - lo) * q * q / 12;
    lo = hi;
    ++e;
  }
  // Clipping: x/S beyond top errs by (v − top): ∫ (v − top)² dv = (v_end − top)³ / 3.
  if (v_end > top) noise_v += std::pow(v_end - top, 3) / 3;
  const double noise = noise_v * scale * scale * scale / amax;  // (1/amax)·∫ … dx, dx = S dv
  const double power = amax * amax / 3;
  if (noise == 0) return std::numeric_limits<double>::infinity();
  return 10 * std::log10(power / noise);
}

WorkCount block_quant_work(double elements, int code_bits, double block_elements,
                           bool tensor_amax_pass) {
  const double scales = block_elements > 0 ? elements / block_elements : 0;
  return {(tensor_amax_pass ? 2 : 1) * 4 * elements, elements * code_bits / 8 + scales, 0,
          elements};
}

}  // namespace bb::theory
