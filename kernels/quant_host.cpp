#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/quant.h"
#include "reference/quant.h"

namespace bb::kernels {

void group_minmax_host(const float* x, std::size_t n, std::size_t group, float* mins, float* maxs) {
  // Chunks (quant_chunk_elements), so that one large group (per tensor) is still shared by every
  // thread; then the chunks of each group.
  const std::size_t chunk = quant_chunk_elements(group);
  const std::size_t chunks = n / chunk, per_group = group / chunk;
  std::vector<float> lo(chunks), hi(chunks);
#pragma omp parallel for schedule(static)
  for (std::size_t c = 0; c < chunks; ++c) {
    const float* p = x + c * chunk;
    float l = p[0], h = p[0];
#pragma omp simd reduction(min : l) reduction(max : h)
    for (std::size_t i = 0; i < chunk; ++i) l = std::min(l, p[i]), h = std::max(h, p[i]);
    lo[c] = l, hi[c] = h;
  }
  for (std::size_t g = 0; g < n / group; ++g) {
    mins[g] = *std::min_element(lo.begin() + g * per_group, lo.begin() + (g + 1) * per_group);
    maxs[g] = *std::max_element(hi.begin() + g * per_group, hi.begin() + (g + 1) * per_group);
  }
}

template <class Q>
void quantize_host(const float* x, std::size_t n, std::size_t group, const theory::IntQuant* params,
                   bool stochastic, std::uint64_t seed, Q* q) {
  // Over elements, not groups: one group (per tensor) still uses every thread.
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    const theory::IntQuant& p = params[i / group];
    const double v = static_cast<double>(x[i]) / p.scale + static_cast<double>(p.zero_point);
    const double r = stochastic ? reference::round_stochastic(v, seed, i) : std::round(v);
    q[i] =
        static_cast<Q>(std::clamp(r, static_cast<double>(p.q_min), static_cast<double>(p.q_max)));
  }
}

template <class Q>
void dequantize_host(const Q* q, std::size_t n, std::size_t group, const theory::IntQuant* params,
                     float* x) {
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    const theory::IntQuant& p = params[i / group];
    x[i] = static_cast<float>(p.scale *
                              (static_cast<double>(q[i]) - static_cast<double>(p.zero_point)));
  }
}

template void quantize_host(const float*, std::size_t, std::size_t, const theory::IntQuant*, bool,
                            std::uint64_t, std::int8_t*);
template void quantize_host(const float*, std::size_t, std::size_t, const theory::IntQuant*, bool,
                            std::uint64_t, std::uint8_t*);
template void dequantize_host(const std::int8_t*, std::size_t, std::size_t, const theory::IntQuant*,
                              float*);
template void dequantize_host(const std::uint8_t*, std::size_t, std::size_t,
                              const theory::IntQuant*, float*);

}  // namespace bb::kernels
