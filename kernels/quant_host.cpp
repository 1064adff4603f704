// Host int8 quantization (kernels/quant.h). The element loop is branch-free double arithmetic —
// x / s + z, a rounding (ties away from zero, or stochastic with the reference's draws), a clamp —
// compiled for AVX-512, AVX2 and baseline x86-64 and picked at run time, so each
// ISA vectorizes it; it is the reference's arithmetic, so the codes are bit-exact. Where the CPU
// has AVX-512, 8-bit codes take the fp32 intrinsics bodies instead (kernels/quant_host_avx512.cpp:
// nearest and stochastic, a group of 16 near a decision redone with this arithmetic; the fused
// per-group pass there too).
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/quant.h"
#include "kernels/quant_host_avx512.h"
#include "kernels/thread_ranges.h"
#include "reference/quant.h"
#include "reference/random.h"

namespace bb::kernels {
namespace {

// v (within the int range) truncated: a conversion, which vectorizes where __builtin_trunc does not
// (GCC keeps that for -fno-trapping-math).
inline double trunc_small(double v) { return static_cast<double>(static_cast<int>(v)); }

// Element i's uniform draw in [0, 1): reference::round_stochastic's splitmix64 written out, so
// that it vectorizes.
inline double draw01(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + i + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1p-53;
}

// The fast pass computes v = x·(1/s) + z, not the reference's x / s + z (a divide per element, the
// loop's bottleneck): the two differ by a few ulps of v, under 1e-10 for |v| ≤ 2^16, so the codes
// can differ only where v lies within that of a rounding decision — a half-integer (nearest), the
// draw (stochastic: u − frac(v)), or an integer with a draw near 0 or 1. A run with any element
// within kDecisionMargin of one is redone with the divide: bit-exact, at the cost of the divide
// only for such runs (about one value in 10^9 of uniform data).
constexpr double kDecisionMargin = 0x1p-30;

// Elements [0, len) of one group (first element index `first` in the tensor, for the draws).
// Returns (fast pass only) whether an element came within kDecisionMargin of a decision.
template <class Q, bool kExact>
[[gnu::always_inline]] inline bool quantize_pass(const float* __restrict x, std::size_t len,
                                                 const theory::IntQuant& p, bool stochastic,
                                                 std::uint64_t seed, std::uint64_t first,
                                                 Q* __restrict q) {
  const double s = p.scale, inv = 1 / s, z = static_cast<double>(p.zero_point);
  const double lo = static_cast<double>(p.q_min), hi = static_cast<double>(p.q_max);
  const double margin = kDecisionMargin;
  // Clamped first, then rounded: the same codes as the reference's clamp of the rounded value (the
  // bounds are integers; a value beyond one rounds to it either way, the stochastic draw included),
  // and the value stays within the int range of trunc_small.
  // Chunks of 64: the codes as int first (a loop of 8-byte and 4-byte lanes vectorizes at full
  // width; with the 1-byte stores in it GCC takes 16-byte vectors), then narrowed.
  int risky = 0;
  for (std::size_t c0 = 0; c0 < len; c0 += 64) {
    const std::size_t m = std::min<std::size_t>(64, len - c0);
    const float* __restrict xc = x + c0;
    int codes[64];
    if (stochastic) {
#pragma omp simd reduction(| : risky)
      for (std::size_t i = 0; i < m; ++i) {
        const double x_i = static_cast<double>(xc[i]);
        const double v0 = kExact ? x_i / s + z : x_i * inv + z;
        const double v = v0 < lo ? lo : v0 > hi ? hi : v0;
        const double t = trunc_small(v), f = t > v ? t - 1 : t, frac = v - f;  // floor, exact
        const double u = draw01(seed, first + c0 + i);
        codes[i] = static_cast<int>(f + (u < frac ? 1.0 : 0.0));
        const int near_integer = (frac < margin) | (frac > 1 - margin);
        const int extreme_draw = (u < margin) | (u > 1 - margin);
        risky |= (__builtin_fabs(u - frac) < margin) | (near_integer & extreme_draw);
      }
    } else {
#pragma omp simd reduction(| : risky)
      for (std::size_t i = 0; i < m; ++i) {
        const double x_i = static_cast<double>(xc[i]);
        const double v0 = kExact ? x_i / s + z : x_i * inv + z;
        const double v = v0 < lo ? lo : v0 > hi ? hi : v0;
        const double t = trunc_small(v), d = __builtin_fabs(v - t);  // exact
        codes[i] = static_cast<int>(t + (d >= 0.5 ? __builtin_copysign(1.0, v) : 0.0));
        risky |= __builtin_fabs(d - 0.5) < margin;
      }
    }
    for (std::size_t i = 0; i < m; ++i) q[c0 + i] = static_cast<Q>(codes[i]);
  }
  return risky != 0;
}

template <class Q>
[[gnu::always_inline]] inline void quantize_run(const float* x, std::size_t len,
                                                const theory::IntQuant& p, bool stochastic,
                                                std::uint64_t seed, std::uint64_t first, Q* q) {
  if (quantize_pass<Q, false>(x, len, p, stochastic, seed, first, q))
    quantize_pass<Q, true>(x, len, p, stochastic, seed, first, q);
}

// Elements [i0, i1) cut at the group boundaries.
template <class Q>
[[gnu::always_inline]] inline void quantize_span(const float* x, std::size_t i0, std::size_t i1,
                                                 std::size_t group, const theory::IntQuant* params,
                                                 bool stochastic, std::uint64_t seed, Q* q) {
  for (std::size_t i = i0; i < i1;) {
    // Runs of at most 4096 elements: a run redone with the divide stays small.
    const std::size_t g = i / group, end = std::min({i1, (g + 1) * group, i + 4096});
    quantize_run(x + i, end - i, params[g], stochastic, seed, i, q + i);
    i = end;
  }
}

using v16f = float __attribute__((vector_size(64)));
using v8f = float __attribute__((vector_size(32)));
using v4f = float __attribute__((vector_size(16)));

// The min and max of 16 lanes, folded in halves (4 steps deep, not a chain of 15: a group of 128
// waits on it before its codes).
[[gnu::always_inline]] inline void fold_minmax(v16f vl, v16f vh, float& l, float& h) {
  v8f l8 = __builtin_shufflevector(vl, vl, 0, 1, 2, 3, 4, 5, 6, 7);
  v8f h8 = __builtin_shufflevector(vh, vh, 0, 1, 2, 3, 4, 5, 6, 7);
  const v8f l8b = __builtin_shufflevector(vl, vl, 8, 9, 10, 11, 12, 13, 14, 15);
  const v8f h8b = __builtin_shufflevector(vh, vh, 8, 9, 10, 11, 12, 13, 14, 15);
  l8 = l8b < l8 ? l8b : l8, h8 = h8 < h8b ? h8b : h8;
  v4f l4 = __builtin_shufflevector(l8, l8, 0, 1, 2, 3),
      h4 = __builtin_shufflevector(h8, h8, 0, 1, 2, 3);
  const v4f l4b = __builtin_shufflevector(l8, l8, 4, 5, 6, 7);
  const v4f h4b = __builtin_shufflevector(h8, h8, 4, 5, 6, 7);
  l4 = l4b < l4 ? l4b : l4, h4 = h4 < h4b ? h4b : h4;
  l = std::min({l, l4[0], l4[1], l4[2], l4[3]}), h = std::max({h, h4[0], h4[1], h4[2], h4[3]});
}

// Min and max of x[0, len): 16 lanes each (GCC vector extensions; `omp simd` min/max reductions
// stay scalar here), then the lanes, then the tail.
[[gnu::always_inline]] inline void minmax_run(const float* __restrict x, std::size_t len, float& lo,
                                              float& hi) {
  float l = x[0], h = x[0];
  std::size_t i = 0;
  if (len >= 16) {
    v16f vl, vh;
    __builtin_memcpy(&vl, x, 64);
    vh = vl;
    for (i = 16; i + 16 <= len; i += 16) {
      v16f v;
      __builtin_memcpy(&v, x + i, 64);
      vl = v < vl ? v : vl;
      vh = vh < v ? v : vh;
    }
    fold_minmax(vl, vh, l, h);
  }
  for (; i < len; ++i) l = std::min(l, x[i]), h = std::max(h, x[i]);
  lo = l, hi = h;
}

// Groups [g0, g1), fused: each group's range, its parameters, then its codes while the group is
// still in cache (one pass over x from memory).
template <class Q>
[[gnu::always_inline]] inline void fused_groups(const float* x, std::size_t group, int bits,
                                                theory::QuantScheme scheme, bool stochastic,
                                                std::uint64_t seed, std::size_t g0, std::size_t g1,
                                                Q* q, theory::IntQuant* params) {
  for (std::size_t g = g0; g < g1; ++g) {
    const float* xg = x + g * group;
    float lo, hi;
    minmax_run(xg, group, lo, hi);
    params[g] = theory::int_quant_params(lo, hi, bits, scheme);
    quantize_run(xg, group, params[g], stochastic, seed, g * group, q + g * group);
  }
}

// Each body compiled for AVX-512, AVX2 and baseline x86-64; the widest the CPU runs is picked.
enum class Isa { avx512, avx2, baseline };
Isa host_isa() {
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
    return Isa::avx512;
  return __builtin_cpu_supports("avx2") ? Isa::avx2 : Isa::baseline;
}

// AVX-512: the intrinsics bodies (kernels/quant_host_avx512.cpp) on elements [i0, i1) of x,
// groups of 8-bit codes.
template <class Q>
[[gnu::target("avx512f,avx512dq,avx512bw,avx512vl,prefer-vector-width=512")]] void intrinsics_run(
    const float* x, std::size_t i0, std::size_t i1, const theory::IntQuant& p, bool stochastic,
    std::uint64_t seed, Q* q) {
  if (stochastic)
    detail::quantize_stochastic_intrinsics(x + i0, i1 - i0, p, seed, i0, q + i0);
  else
    detail::quantize_nearest_intrinsics(x + i0, i1 - i0, p, q + i0);
}

// AVX-512, group by group.
template <class Q>
[[gnu::target("avx512f,avx512dq,avx512bw,avx512vl,prefer-vector-width=512")]] void
quantize_span_avx512(const float* x, std::size_t i0, std::size_t i1, std::size_t group,
                     const theory::IntQuant* params, bool stochastic, std::uint64_t seed, Q* q) {
  for (std::size_t i = i0; i < i1;) {
    const std::size_t g = i / group, end = std::min(i1, (g + 1) * group);
    intrinsics_run(x, i, end, params[g], stochastic, seed, q);
    i = end;
  }
}
template <class Q>
[[gnu::target("avx2,fma")]] void quantize_span_avx2(const float* x, std::size_t i0, std::size_t i1,
                                                    std::size_t group,
                                                    const theory::IntQuant* params, bool stochastic,
                                                    std::uint64_t seed, Q* q) {
  quantize_span(x, i0, i1, group, params, stochastic, seed, q);
}
template <class Q>
void quantize_span_baseline(const float* x, std::size_t i0, std::size_t i1, std::size_t group,
                            const theory::IntQuant* params, bool stochastic, std::uint64_t seed,
                            Q* q) {
  quantize_span(x, i0, i1, group, params, stochastic, seed, q);
}

template <class Q>
[[gnu::target("avx512f,avx512dq,avx512bw,avx512vl,prefer-vector-width=512")]] void
fused_groups_avx512(const float* x, std::size_t group, int bits, theory::QuantScheme scheme,
                    bool stochastic, std::uint64_t seed, std::size_t g0, std::size_t g1, Q* q,
                    theory::IntQuant* params) {
  if (bits != 8) return fused_groups(x, group, bits, scheme, stochastic, seed, g0, g1, q, params);
  detail::quantize_groups_intrinsics(x, group, scheme, stochastic, seed, g0, g1, q, params);
}
template <class Q>
[[gnu::target("avx2,fma")]] void fused_groups_avx2(const float* x, std::size_t group, int bits,
                                                   theory::QuantScheme scheme, bool stochastic,
                                                   std::uint64_t seed, std::size_t g0,
                                                   std::size_t g1, Q* q, theory::IntQuant* params) {
  fused_groups(x, group, bits, scheme, stochastic, seed, g0, g1, q, params);
}
template <class Q>
void fused_groups_baseline(const float* x, std::size_t group, int bits, theory::QuantScheme scheme,
                           bool stochastic, std::uint64_t seed, std::size_t g0, std::size_t g1,
                           Q* q, theory::IntQuant* params) {
  fused_groups(x, group, bits, scheme, stochastic, seed, g0, g1, q, params);
}

[[gnu::target("avx512f,avx512dq,avx512bw,avx512vl,prefer-vector-width=512")]] void minmax_avx512(
    const float* x, std::size_t len, float* lo, float* hi) {
  minmax_run(x, len, *lo, *hi);
}
[[gnu::target("avx2,fma")]] void minmax_avx2(const float* x, std::size_t len, float* lo,
                                             float* hi) {
  minmax_run(x, len, *lo, *hi);
}
void minmax_baseline(const float* x, std::size_t len, float* lo, float* hi) {
  minmax_run(x, len, *lo, *hi);
}

}  // namespace

void group_minmax_host(const float* x, std::size_t n, std::size_t group, float* mins, float* maxs) {
  // Chunks (quant_chunk_elements), so that one large group (per tensor) is still shared by every
  // thread; then the chunks of each group.
  const std::size_t chunk = quant_chunk_elements(group);
  const std::size_t chunks = n / chunk, per_group = group / chunk;
  std::vector<float> lo(chunks), hi(chunks);
  const Isa isa = host_isa();
#pragma omp parallel for schedule(static)
  for (std::size_t c = 0; c < chunks; ++c) {
    if (isa == Isa::avx512)
      minmax_avx512(x + c * chunk, chunk, &lo[c], &hi[c]);
    else if (isa == Isa::avx2)
      minmax_avx2(x + c * chunk, chunk, &lo[c], &hi[c]);
    else
      minmax_baseline(x + c * chunk, chunk, &lo[c], &hi[c]);
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
  const Isa isa = host_isa();
  for_each_thread_range(n, [&](std::size_t lo, std::size_t hi) {
    if (isa == Isa::avx512)
      quantize_span_avx512(x, lo, hi, group, params, stochastic, seed, q);
    else if (isa == Isa::avx2)
      quantize_span_avx2(x, lo, hi, group, params, stochastic, seed, q);
    else
      quantize_span_baseline(x, lo, hi, group, params, stochastic, seed, q);
  });
}

template <class Q>
void quantize_groups_host(const float* x, std::size_t n, std::size_t group, int bits,
                          theory::QuantScheme scheme, bool stochastic, std::uint64_t seed, Q* q,
                          theory::IntQuant* params) {
  const Isa isa = host_isa();
  for_each_thread_range(n / group, [&](std::size_t g0, std::size_t g1) {
    if (isa == Isa::avx512)
      fused_groups_avx512(x, group, bits, scheme, stochastic, seed, g0, g1, q, params);
    else if (isa == Isa::avx2)
      fused_groups_avx2(x, group, bits, scheme, stochastic, seed, g0, g1, q, params);
    else
      fused_groups_baseline(x, group, bits, scheme, stochastic, seed, g0, g1, q, params);
  });
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
template void quantize_groups_host(const float*, std::size_t, std::size_t, int, theory::QuantScheme,
                                   bool, std::uint64_t, std::int8_t*, theory::IntQuant*);
template void quantize_groups_host(const float*, std::size_t, std::size_t, int, theory::QuantScheme,
                                   bool, std::uint64_t, std::uint8_t*, theory::IntQuant*);
template void dequantize_host(const std::int8_t*, std::size_t, std::size_t, const theory::IntQuant*,
                              float*);
template void dequantize_host(const std::uint8_t*, std::size_t, std::size_t,
                              const theory::IntQuant*, float*);

}  // namespace bb::kernels
