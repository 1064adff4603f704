// Host format conversions. Versions: 1 = AVX-512F / F16C intrinsics per OpenMP thread, the
// reference's bit-level rounding for tails and CPUs without either.
#include <immintrin.h>

#include <bit>

#include "kernels/convert.h"
#include "kernels/thread_ranges.h"
#include "reference/formats_fast.h"

namespace bb::kernels {
namespace {

enum class Isa { avx512, f16c, scalar };

Isa isa() {
  if (__builtin_cpu_supports("avx512f")) return Isa::avx512;
  if (__builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx")) return Isa::f16c;
  return Isa::scalar;
}

[[gnu::target("avx512f")]] std::size_t convert_avx512(const float* x, std::uint16_t* out,
                                                      std::size_t lo, std::size_t hi) {
  std::size_t i = lo;
  for (; i + 16 <= hi; i += 16)
    // The zero-masked form: the plain one reads an "undefined" source GCC warns about.
    _mm256_storeu_si256(
        reinterpret_cast<__m256i*>(out + i),
        _mm512_maskz_cvtps_ph(0xFFFF, _mm512_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT));
  return i;
}

[[gnu::target("avx,f16c")]] std::size_t convert_f16c(const float* x, std::uint16_t* out,
                                                     std::size_t lo, std::size_t hi) {
  std::size_t i = lo;
  for (; i + 8 <= hi; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT));
  return i;
}

}  // namespace

void fp32_to_fp16_host(const float* x, std::uint16_t* out, std::size_t n) {
  const Isa use = isa();
  const auto& fp16 = theory::format_spec(theory::Format::fp16);
  for_each_thread_range(n, [&](std::size_t lo, std::size_t hi) {
    std::size_t i = lo;
    if (use == Isa::avx512) i = convert_avx512(x, out, lo, hi);
    if (use == Isa::f16c) i = convert_f16c(x, out, lo, hi);
    for (; i < hi; ++i)
      out[i] = static_cast<std::uint16_t>(reference::encode_fp32_nearest(
          fp16, std::bit_cast<std::uint32_t>(x[i]), reference::Overflow::non_saturating));
  });
}

const char* fp32_to_fp16_host_isa() {
  switch (isa()) {
    case Isa::avx512: return "avx512f";
    case Isa::f16c: return "f16c";
    case Isa::scalar: return "scalar";
  }
  return "scalar";
}

}  // namespace bb::kernels
