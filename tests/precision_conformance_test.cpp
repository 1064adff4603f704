// The reference conversions (reference/formats.h) from fp32 against independent implementations:
// NVIDIA's host-callable conversions (cuda_fp16/bf16/fp8/fp6/fp4.h, no GPU needed), GCC's _Float16
// and the CPU's F16C instruction where present. By default a dense deterministic sample of the 2^32
// fp32 inputs: every sign and exponent × every value of the target's kept mantissa bits (up to
// 2^10) × the dropped bits at 0, 1, half − 1, half, half + 1 and all ones — every rounding
// boundary — plus every 509th bit pattern. With BB_EXHAUSTIVE=1 (ctest label "exhaustive"): all
// 2^32 inputs, split over the CPUs. Disagreements are counted; every partner here must have none.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#include <cuda_fp8.h>
#include <gtest/gtest.h>
#include <immintrin.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include "kernels/block_quant.h"
#include "reference/formats.h"
#include "reference/formats_fast.h"

namespace bb::reference {
namespace {

using theory::Format;

float from_bits(std::uint32_t b) {
  float x;
  std::memcpy(&x, &b, 4);
  return x;
}

bool exhaustive() {
  const char* e = std::getenv("BB_EXHAUSTIVE");
  return e && std::string(e) == "1";
}

// The sample of fp32 bit patterns for a target keeping `kept` mantissa bits.
std::vector<std::uint32_t> dense_sample(int kept) {
  std::vector<std::uint32_t> v;
  const int dropped = 23 - kept;
  const std::uint32_t half = dropped > 0 ? 1u << (dropped - 1) : 0;
  const std::uint32_t low_all = dropped > 0 ? (1u << dropped) - 1 : 0;
  const std::uint32_t lows[] = {0, 1, half - 1, half, half + 1, low_all};
  const int top_bits = std::min(kept, 10);
  for (std::uint32_t sign = 0; sign < 2; ++sign)
    for (std::uint32_t e = 0; e < 256; ++e)
      for (std::uint32_t t = 0; t < (1u << top_bits); ++t)
        for (std::uint32_t low : lows) {
          const std::uint32_t mant = (t << (23 - top_bits)) | (low & low_all);
          v.push_back(sign << 31 | e << 23 | (mant & 0x7FFFFF));
        }
  for (std::uint64_t b = 0; b < (std::uint64_t{1} << 32); b += 509)
    v.push_back(static_cast<std::uint32_t>(b));
  return v;
}

struct Tally {
  std::uint64_t checked = 0, mismatches = 0;
  std::uint32_t first_input = 0;
  std::uint64_t first_ref = 0, first_got = 0;
};

// The reference: the bit-level fast path where it applies (round to nearest, not E8M0), which
// FastPathEqualsTheGenericReference holds to `encode` on the same inputs; `encode` otherwise.
std::uint64_t reference_code(const FormatSpec& f, Rounding r, Overflow o, std::uint32_t bits) {
  if (r == Rounding::nearest_even && f.specials != Specials::scale_nan)
    return encode_fp32_nearest(f, bits, o);
  return encode(f, from_bits(bits), r, o);
}

// Runs `partner` and the reference on the inputs (all 2^32 when exhaustive), over all CPUs.
Tally sweep(const FormatSpec& f, Rounding r, Overflow o, int kept,
            const std::function<std::uint64_t(float)>& partner) {
  const std::vector<std::uint32_t> sample =
      exhaustive() ? std::vector<std::uint32_t>{} : dense_sample(kept);
  const bool all = sample.empty();  // read once: the loop below runs up to 2^32 times
  const std::uint64_t n = all ? std::uint64_t{1} << 32 : sample.size();
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<Tally> part(threads);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      Tally& k = part[t];
      for (std::uint64_t i = n * t / threads; i < n * (t + 1) / threads; ++i) {
        const auto bits = all ? static_cast<std::uint32_t>(i) : sample[i];
        const float x = from_bits(bits);
        const std::uint64_t got = partner(x), ref = reference_code(f, r, o, bits);
        ++k.checked;
        // NaN payloads and quiet bits are the implementation's: a NaN must give a NaN.
        const bool same =
            std::isnan(x) && theory::has_nan(f) ? std::isnan(decode(f, got)) : got == ref;
        if (!same && k.mismatches++ == 0) {
          k.first_input = bits;
          k.first_ref = ref;
          k.first_got = got;
        }
      }
    });
  for (auto& p : pool) p.join();
  Tally total;
  for (const Tally& k : part) {
    if (k.mismatches && !total.mismatches) {
      total.first_input = k.first_input;
      total.first_ref = k.first_ref;
      total.first_got = k.first_got;
    }
    total.checked += k.checked;
    total.mismatches += k.mismatches;
  }
  return total;
}

void expect_agreement(const char* partner, Format format, Rounding r, Overflow o,
                      const std::function<std::uint64_t(float)>& convert) {
  const FormatSpec& f = theory::format_spec(format);
  const Tally t = sweep(f, r, o, f.mantissa_bits, convert);
  EXPECT_EQ(t.mismatches, 0u) << partner << " → " << f.name << ": " << t.mismatches << " of "
                              << t.checked << " disagree; first input 0x" << std::hex
                              << t.first_input << " (" << from_bits(t.first_input)
                              << "): reference 0x" << t.first_ref << ", partner 0x" << t.first_got;
  EXPECT_GT(t.checked, 1000000u);
}

template <class T>
std::uint64_t raw16(T h) {
  std::uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}

const Rounding rn = Rounding::nearest_even;
const Overflow sat = Overflow::saturate, nosat = Overflow::non_saturating;

TEST(Conformance, FastPathEqualsTheGenericReference) {
  for (const auto& f : theory::kFormats) {
    if (f.specials == Specials::scale_nan || f.bits > 32) continue;
    for (Overflow o : {sat, nosat}) {
      const Tally t = sweep(f, rn, o, f.mantissa_bits,
                            [&f, o](float x) { return encode(f, x, Rounding::nearest_even, o); });
      EXPECT_EQ(t.mismatches, 0u) << f.name << ": first input 0x" << std::hex << t.first_input
                                  << ": fast 0x" << t.first_ref << ", generic 0x" << t.first_got;
    }
  }
}

TEST(Conformance, Fp16AgainstCuda) {
  expect_agreement("__float2half_rn", Format::fp16, rn, nosat,
                   [](float x) { return raw16(__float2half_rn(x)); });
}

TEST(Conformance, Bf16AgainstCuda) {
  expect_agreement("__float2bfloat16_rn", Format::bf16, rn, nosat,
                   [](float x) { return raw16(__float2bfloat16_rn(x)); });
}

TEST(Conformance, Fp8AgainstCuda) {
  for (auto [format, interp] : {std::pair{Format::e4m3, __NV_E4M3}, {Format::e5m2, __NV_E5M2}}) {
    expect_agreement("__nv_cvt_float_to_fp8 satfinite", format, rn, sat, [interp](float x) {
      return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, interp);
    });
    expect_agreement("__nv_cvt_float_to_fp8 nosat", format, rn, nosat,
                     [interp](float x) { return __nv_cvt_float_to_fp8(x, __NV_NOSAT, interp); });
  }
}

TEST(Conformance, Fp6AndFp4AgainstCuda) {
  for (auto [format, interp] : {std::pair{Format::e2m3, __NV_E2M3}, {Format::e3m2, __NV_E3M2}})
    expect_agreement("__nv_cvt_float_to_fp6", format, rn, sat, [interp](float x) {
      return __nv_cvt_float_to_fp6(x, interp, cudaRoundNearest);
    });
  expect_agreement("__nv_cvt_float_to_fp4", Format::e2m1, rn, sat,
                   [](float x) { return __nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundNearest); });
}

TEST(Conformance, BranchFreeSmallEncodeEqualsTheReference) {
  // kernels::encode_small, the quantization kernels' rounding (host and GPU), for every finite
  // input; non-finite inputs are outside its contract (the kernels refuse or count them).
  for (Format format : {Format::e4m3, Format::e5m2, Format::e2m3, Format::e3m2, Format::e2m1}) {
    const FormatSpec& f = theory::format_spec(format);
    const kernels::SmallTarget t = kernels::small_target(fp32_target(f, true));
    expect_agreement("kernels::encode_small", format, rn, sat, [&f, t](float x) -> std::uint64_t {
      std::uint32_t bits;
      std::memcpy(&bits, &x, 4);
      return std::isfinite(x) ? kernels::encode_small(t, bits)
                              : encode_fp32_nearest(f, bits, Overflow::saturate);
    });
  }
}

TEST(Conformance, E8m0AgainstCuda) {
  for (auto [r, mode] : {std::pair{Rounding::toward_zero, cudaRoundZero},
                         {Rounding::toward_positive, cudaRoundPosInf}})
    for (auto [o, s] : {std::pair{sat, __NV_SATFINITE}, {nosat, __NV_NOSAT}})
      expect_agreement("__nv_cvt_float_to_e8m0", Format::e8m0, r, o,
                       [mode, s](float x) { return __nv_cvt_float_to_e8m0(x, s, mode); });
}

TEST(Conformance, Fp16AgainstGccFloat16) {
  expect_agreement("(_Float16)", Format::fp16, rn, nosat,
                   [](float x) { return raw16(static_cast<_Float16>(x)); });
}

[[gnu::target("f16c")]] std::uint64_t f16c(float x) {
  return static_cast<std::uint16_t>(_cvtss_sh(x, _MM_FROUND_TO_NEAREST_INT));
}

TEST(Conformance, Fp16AgainstF16cInstruction) {
  if (!__builtin_cpu_supports("f16c")) GTEST_SKIP() << "this CPU has no F16C";
  expect_agreement("F16C vcvtps2ph", Format::fp16, rn, nosat, f16c);
}

}  // namespace
}  // namespace bb::reference
