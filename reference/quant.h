// Quantize/dequantize x ≈ s·(q − z) (theory/quant.h) per tensor, per channel (rows of a
// channels × k matrix) or per group (consecutive runs of g elements), with round to nearest (ties
// away from zero, as std::lround) or stochastic rounding, and clamping to [q_min, q_max].
// Bad input is refused, never turned into a silently wrong scale: NaN or ±inf in x, a group size
// that does not divide the length, channels that do not divide it (std::invalid_argument).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/host_device.h"
#include "reference/random.h"
#include "theory/quant.h"

namespace bb::reference {

enum class QuantRounding { nearest, stochastic };

// Stochastic rounding of v with element i's draw from `seed`: up with probability frac(v), so
// E[r] = v. The host and GPU kernels (kernels/quant.h) call it too: one stream of draws for all.
BB_HOST_DEVICE inline double round_stochastic(double v, std::uint64_t seed, std::uint64_t i) {
  const double f = floor(v);  // CUDA's math API on the device, <cmath> on the host
  const double u01 =
      static_cast<double>(splitmix64(seed * 0x9E3779B97F4A7C15ull + i) >> 11) * 0x1p-53;
  return f + (u01 < v - f ? 1 : 0);
}

struct Quantized {
  std::vector<std::int32_t> q;
  std::vector<theory::IntQuant> groups;  // one per tensor, channel or group
  std::size_t group_elements = 0;        // elements sharing one scale
};

// `group_elements`: x.size() for per tensor, the row length for per channel, g for per group.
inline Quantized quantize(std::span<const float> x, std::size_t group_elements, int bits,
                          theory::QuantScheme scheme,
                          QuantRounding rounding = QuantRounding::nearest, std::uint64_t seed = 0) {
  if (group_elements == 0 || x.size() % group_elements != 0)
    throw std::invalid_argument("quantize: group size " + std::to_string(group_elements) +
                                " does not divide the length " + std::to_string(x.size()));
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!std::isfinite(x[i]))
      throw std::invalid_argument("quantize: element " + std::to_string(i) + " is " +
                                  (std::isnan(x[i]) ? "NaN" : "infinite") +
                                  ": no finite scale represents it");
  Quantized out;
  out.group_elements = group_elements;
  out.q.resize(x.size());
  for (std::size_t g0 = 0; g0 < x.size(); g0 += group_elements) {
    const auto part = x.subspan(g0, group_elements);
    const auto [lo, hi] = std::minmax_element(part.begin(), part.end());
    const theory::IntQuant p = theory::int_quant_params(*lo, *hi, bits, scheme);
    out.groups.push_back(p);
    for (std::size_t i = 0; i < part.size(); ++i) {
      const double v = static_cast<double>(part[i]) / p.scale + static_cast<double>(p.zero_point);
      double r = rounding == QuantRounding::nearest ? static_cast<double>(std::llround(v))
                                                    : round_stochastic(v, seed, g0 + i);
      r = std::clamp(r, static_cast<double>(p.q_min), static_cast<double>(p.q_max));
      out.q[g0 + i] = static_cast<std::int32_t>(r);
    }
  }
  return out;
}

inline std::vector<double> dequantize(const Quantized& qz) {
  std::vector<double> x(qz.q.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const theory::IntQuant& p = qz.groups[i / qz.group_elements];
    x[i] = p.scale * static_cast<double>(qz.q[i] - p.zero_point);
  }
  return x;
}

}  // namespace bb::reference
