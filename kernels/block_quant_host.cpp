// Host block-scaled quantization (kernels/block_quant.h): OpenMP over ranges of blocks, each range
// quantized by a body compiled three times — AVX-512, AVX2 and baseline x86-64 — and picked once
// at run time. The body is written branch-free (the element rounding is integer arithmetic and
// selects: encode_small below) so that the compiler vectorizes it for each instruction set.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "kernels/block_quant.h"
#include "kernels/block_quant_host_avx512.h"
#include "kernels/thread_ranges.h"

namespace bb::kernels {

namespace {

using detail::BlockJob;
using detail::kRangeBlock;

reference::Fp32Target element_target(const BlockQuantSpec& spec) {
  return reference::fp32_target(theory::format_spec(spec.element), true);
}
reference::Fp32Target e4m3_target() {
  return reference::fp32_target(theory::format_spec(theory::Format::e4m3), true);
}

// The largest of |x|'s bits over [i0, i1): an unsigned max, which x86-64's baseline SSE2 lacks
// (it takes ~3 instructions an element there, 70% of NVFP4's time at one thread) and AVX2 and
// AVX-512 have (vpmaxud); compiled for each, picked at run time.
[[gnu::always_inline]] inline std::uint32_t top_bits(const float* x, std::size_t i0,
                                                     std::size_t i1) {
  std::uint32_t top = 0;
#pragma omp simd reduction(max : top)
  for (std::size_t i = i0; i < i1; ++i) top = std::max(top, float_bits(x[i]) & 0x7FFFFFFFu);
  return top;
}
[[gnu::target("avx512f,prefer-vector-width=512")]] std::uint32_t top_bits_avx512(const float* x,
                                                                                 std::size_t i0,
                                                                                 std::size_t i1) {
  return top_bits(x, i0, i1);
}
[[gnu::target("avx2")]] std::uint32_t top_bits_avx2(const float* x, std::size_t i0,
                                                    std::size_t i1) {
  return top_bits(x, i0, i1);
}
std::uint32_t top_bits_baseline(const float* x, std::size_t i0, std::size_t i1) {
  return top_bits(x, i0, i1);
}

// The tensor's amax, and the refusal of a non-finite element: one integer max over |x|'s bits
// (finite floats order as their bits; ±inf and NaN lie above 0x7F7FFFFF), then, only when that
// finds one, a scan for the first.
float amax_of(const float* x, std::size_t n) {
  using TopFn = std::uint32_t (*)(const float*, std::size_t, std::size_t);
  const TopFn fn = __builtin_cpu_supports("avx512f") ? top_bits_avx512
                   : __builtin_cpu_supports("avx2")  ? top_bits_avx2
                                                     : top_bits_baseline;
  std::atomic<std::uint32_t> top{0};
  for_each_thread_range(n, [&](std::size_t lo, std::size_t hi) {
    const std::uint32_t t = fn(x, lo, hi);
    for (std::uint32_t seen = top.load(); t > seen && !top.compare_exchange_weak(seen, t);) {
    }
  });
  if (top > 0x7F7FFFFFu) {
    std::size_t bad = 0;
    while (std::isfinite(x[bad])) ++bad;
    throw std::invalid_argument("block quantization: element " + std::to_string(bad) +
                                " is not finite");
  }
  return std::bit_cast<float>(top.load());
}

// Blocks [b0, b1) (fp8 per tensor: runs of 32 elements); inlined into each ISA's wrapper.
// The job's fields are copied to locals first: stores through the uint8_t outputs may alias
// anything, so the compiler would reload j's fields after each and not vectorize.
// Returns whether a block held a non-finite element (MX: its only check, no amax pass before).
[[gnu::always_inline]] inline bool quantize_range(const BlockJob& j, std::size_t b0,
                                                  std::size_t b1) {
  const SmallTarget t = j.element;
  const float* const x = j.x;
  std::uint8_t* const codes = j.codes;
  std::uint8_t* const scale_codes = j.scale_codes;
  const double tensor_scale = j.tensor_scale;
  if (j.spec.scheme == BlockScheme::fp8_tensor) {
    const std::size_t end = std::min(j.n, b1 * kRangeBlock);
#pragma omp simd
    for (std::size_t i = b0 * kRangeBlock; i < end; ++i)
      codes[i] = static_cast<std::uint8_t>(
          encode_small(t, fp32_round_to_odd_bits(static_cast<double>(x[i]) / tensor_scale)));
    return false;
  }
  const std::size_t block = j.spec.block();
  const bool four = j.spec.four_bit(), nvfp4 = j.spec.scheme == BlockScheme::nvfp4,
             floor_rule = j.spec.scheme == BlockScheme::mx_floor;
  const reference::Fp32Target e4m3 = j.e4m3;
  const SmallTarget e4m3_small = j.e4m3_small;
  const int emax = j.emax;
  const double top = j.top;
  std::uint32_t worst = 0;  // the largest |x| bits: above 0x7F7FFFFF, ±inf or NaN
  for (std::size_t b = b0; b < b1; ++b) {
    const float* xb = x + b * block;
    // |x|'s bits: finite floats order as their bits, so the max is amax's.
    std::uint32_t abits = 0;
#pragma omp simd reduction(max : abits)
    for (std::size_t i = 0; i < block; ++i)
      abits = std::max(abits, float_bits(xb[i]) & 0x7FFFFFFFu);
    worst = std::max(worst, abits);
    const float ab = std::bit_cast<float>(abits);
    std::uint8_t c[32];
    if (nvfp4) {
      const std::uint32_t sc = e4m3_code_up(e4m3_small, e4m3, ab / (6.0 * tensor_scale));
      scale_codes[b] = static_cast<std::uint8_t>(sc);
      const double scale = decode_small(e4m3, sc) * tensor_scale;  // exact: 4 × 24 bits
#pragma omp simd
      for (std::size_t i = 0; i < block; ++i)
        c[i] = static_cast<std::uint8_t>(
            encode_small(t, fp32_round_to_odd_bits(static_cast<double>(xb[i]) / scale)));
    } else {
      const int e = mx_exponent(ab, emax, top, floor_rule);
      scale_codes[b] = static_cast<std::uint8_t>(e + 127);
      const float inv = exp2_float(-e);
#pragma omp simd
      for (std::size_t i = 0; i < block; ++i)
        c[i] = static_cast<std::uint8_t>(encode_small(t, float_bits(xb[i] * inv)));
    }
    if (four) {
      std::uint8_t* out = codes + b * block / 2;
      for (std::size_t i = 0; i < block / 2; ++i)
        out[i] = static_cast<std::uint8_t>(c[2 * i] | c[2 * i + 1] << 4);
    } else {
      std::memcpy(codes + b * block, c, block);
    }
  }
  return worst > 0x7F7FFFFFu;
}

[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq")]] bool quantize_range_avx512(const BlockJob& j,
                                                                                 std::size_t b0,
                                                                                 std::size_t b1) {
  return quantize_range(j, b0, b1);
}
[[gnu::target("avx2")]] bool quantize_range_avx2(const BlockJob& j, std::size_t b0,
                                                 std::size_t b1) {
  return quantize_range(j, b0, b1);
}
bool quantize_range_baseline(const BlockJob& j, std::size_t b0, std::size_t b1) {
  return quantize_range(j, b0, b1);
}

// The intrinsics body (kernels/block_quant_host_avx512.cpp), the compiled one for what it leaves.
bool quantize_range_intrinsics(const BlockJob& j, std::size_t b0, std::size_t b1) {
  return detail::quantize_range_intrinsics(j, b0, b1, quantize_range_avx512);
}

using detail::RangeFn;
RangeFn range_fn() {
  if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512cd"))
    return quantize_range_intrinsics;
  if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512dq"))
    return quantize_range_avx512;
  if (__builtin_cpu_supports("avx2")) return quantize_range_avx2;
  return quantize_range_baseline;
}

}  // namespace

const char* block_quantize_host_isa() {
  const RangeFn f = range_fn();
  return f == quantize_range_intrinsics ? "avx512-intrinsics"
         : f == quantize_range_avx512   ? "avx512"
         : f == quantize_range_avx2     ? "avx2"
                                        : "x86-64";
}

void block_quantize_host(const BlockQuantSpec& spec, const float* x, std::size_t n,
                         std::uint8_t* codes, std::uint8_t* scale_codes, float* tensor_scale) {
  spec.validate(n);
  const theory::FormatSpec& f = theory::format_spec(spec.element);
  // fp8 per tensor and NVFP4 need the tensor's amax first (a pass of its own, which also refuses
  // non-finite input); MX reads x once, its blocks' amax finding any non-finite element.
  const bool tensor_pass =
      spec.scheme == BlockScheme::fp8_tensor || spec.scheme == BlockScheme::nvfp4;
  const float amax = tensor_pass ? amax_of(x, n) : 0.0f;
  BlockJob j{spec,
             small_target(element_target(spec)),
             small_target(e4m3_target()),
             e4m3_target(),
             theory::max_exponent(f),
             theory::max_finite(f),
             1.0f,
             x,
             n,
             codes,
             scale_codes};
  if (spec.scheme == BlockScheme::fp8_tensor)
    j.tensor_scale = theory::fp8_tensor_scale(amax, f, spec.margin);
  else if (spec.scheme == BlockScheme::nvfp4)
    j.tensor_scale = theory::nvfp4_tensor_scale(amax);
  *tensor_scale = j.tensor_scale;
  const std::size_t units = spec.block() ? n / spec.block() : (n + kRangeBlock - 1) / kRangeBlock;
  const RangeFn fn = range_fn();
  std::atomic<bool> non_finite{false};
  for_each_thread_range(units, [&](std::size_t lo, std::size_t hi) {
    if (fn(j, lo, hi)) non_finite = true;
  });
  if (non_finite) amax_of(x, n);  // throws, naming the first non-finite element
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
    x[i] = static_cast<float>(decode_small(t, spec.code_at(codes, i)) * scale * tensor_scale);
  }
}

}  // namespace bb::kernels
