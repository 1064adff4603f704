// Host block-scaled quantization (kernels/block_quant.h) against reference/mx.h, bit for bit, on
// ties, zero blocks, subnormal inputs, scale-rule boundaries and FLT_MAX; its element arithmetic
// against the reference and theory; theory/block_quant.h's scales and laws; bad input refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include "kernels/block_quant.h"
#include "kernels/reduce.h"
#include "reference/mx.h"
#include "suites/precision/precision_suite.h"
#include "tests/block_quant_data.h"
#include "theory/summation.h"

namespace bb {
namespace {

using kernels::BlockQuantSpec;
using kernels::BlockScheme;
using theory::Format;

void expect_bit_exact(const BlockQuantSpec& spec, const std::vector<float>& x) {
  const std::size_t n = x.size();
  std::vector<std::uint8_t> codes(spec.code_bytes(n), 0x5A), scales(spec.scale_count(n), 0xA5);
  std::vector<float> back(n, std::nanf(""));
  float tensor_scale = std::nanf("");
  kernels::block_quantize_host(spec, x.data(), n, codes.data(), scales.data(), &tensor_scale);
  kernels::block_dequantize_host(spec, codes.data(), scales.data(), tensor_scale, n, back.data());
  const suites::BlockQuantSetup setup{"test", spec, true};
  const reference::BlockQuantized ref = suites::block_quant_reference(setup, x);
  const Comparison c =
      suites::block_quant_compare(setup, ref, codes.data(), scales.data(), tensor_scale, back);
  EXPECT_TRUE(c.ok()) << theory::format_spec(spec.element).name << " scheme "
                      << static_cast<int>(spec.scheme) << " margin " << spec.margin << ": "
                      << c.describe() << (c.first_mismatches.empty() ? "" : c.first_mismatches[0]);
}

TEST(BlockQuantHost, BitExactOnTiesEdgesAndRandomData) {
  for (const BlockQuantSpec& spec : testdata::all_block_specs()) {
    expect_bit_exact(spec, testdata::grid_ties(spec.element));
    expect_bit_exact(spec, testdata::edge_blocks(5));
    expect_bit_exact(spec, suites::block_quant_data(32 * 1024));
  }
}

// Ties of x / S where S is no power of two, so that x·fl(1/S) misses them: fp8 per tensor with
// s = c·2^k, c = 7 or 63 (fl(x·fl(1/c)) misses 9 and 14 of 14 E4M3 ties by hand; the grid's
// midpoints times s are exact in fp32), NVFP4 with g = 3 and block scales of
// 1, 4 and 5 bits (every FP4 midpoint times the block's S). Enough blocks that each thread's
// range takes the 16-block vector body and leaves a tail; bit-exact with the reference.
TEST(BlockQuantHost, BitExactOnTiesTheReciprocalMisses) {
  for (Format f : {Format::e4m3, Format::e5m2}) {
    for (auto [c, k] : {std::pair{7.0f, 0}, {63.0f, -9}, {7.0f, 5}}) {
      std::vector<float> x;
      while (x.size() < 32 * 70)
        for (float v : testdata::grid_ties(f)) x.push_back(std::ldexp(c * v, k));
      x.resize(32 * 70);
      expect_bit_exact({f, BlockScheme::fp8_tensor, 0}, x);
      expect_bit_exact({f, BlockScheme::fp8_tensor, 2}, x);
    }
  }
  const double g = 3;  // amax 8064 = 448·6·g
  std::vector<float> x = {static_cast<float>(448 * 6 * g)};
  x.resize(16, 0.0f);
  const double mids[] = {0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5};
  for (int b = 0; x.size() < 16 * 75; ++b) {
    const double s = (b % 3 == 0 ? 1.25 : b % 3 == 1 ? 0.3125 : 13.0) * std::ldexp(1.0, b % 5 - 2);
    x.push_back(static_cast<float>(6 * s * g));  // the block's amax: its scale is s exactly
    for (int i = 1; i < 16; ++i)
      x.push_back(static_cast<float>((i % 2 ? -1 : 1) * mids[(b + i) % 7] * s * g));
  }
  expect_bit_exact({Format::e2m1, BlockScheme::nvfp4, 0}, x);
}

TEST(BlockQuantHost, RefusesNonFiniteInputAndBadShapes) {
  std::vector<float> x(64, 1.0f), out(64);
  std::vector<std::uint8_t> codes(64), scales(4);
  float g = 0;
  for (float bad : {std::nanf(""), INFINITY, -INFINITY}) {
    x[17] = bad;
    for (const BlockQuantSpec& spec : testdata::all_block_specs())
      EXPECT_THROW(
          kernels::block_quantize_host(spec, x.data(), 64, codes.data(), scales.data(), &g),
          std::invalid_argument);
  }
  x[17] = 1.0f;
  std::vector<float> long_x(32 * 64, 1.0f), long_out(32 * 64);
  std::vector<std::uint8_t> long_codes(32 * 64), long_scales(32 * 4);
  long_x[32 * 40 + 5] = INFINITY;  // inside the 16-block vector body
  for (const BlockQuantSpec& spec : testdata::all_block_specs())
    EXPECT_THROW(kernels::block_quantize_host(spec, long_x.data(), long_x.size(), long_codes.data(),
                                              long_scales.data(), &g),
                 std::invalid_argument);
  const BlockQuantSpec mx{Format::e4m3, BlockScheme::mx_floor, 0};
  EXPECT_THROW(kernels::block_quantize_host(mx, x.data(), 48, codes.data(), scales.data(), &g),
               std::invalid_argument);  // 48 is not a multiple of 32
  const BlockQuantSpec fp4_tensor{Format::e2m1, BlockScheme::fp8_tensor, 0};
  EXPECT_THROW(fp4_tensor.validate(64), std::invalid_argument);
  const BlockQuantSpec nv_e4m3{Format::e4m3, BlockScheme::nvfp4, 0};
  EXPECT_THROW(nv_e4m3.validate(64), std::invalid_argument);
  const BlockQuantSpec negative_margin{Format::e4m3, BlockScheme::fp8_tensor, -1};
  EXPECT_THROW(negative_margin.validate(64), std::invalid_argument);
  EXPECT_THROW(reference::fp8_tensor_quantize(x, Format::e4m3, -1), std::invalid_argument);
}

TEST(BlockQuantHost, AllZeroTensorHasUnitScalesAndZeroCodes) {
  const std::vector<float> zeros(64, 0.0f);
  for (const BlockQuantSpec& spec : testdata::all_block_specs()) {
    std::vector<std::uint8_t> codes(spec.code_bytes(64), 0x5A), scales(spec.scale_count(64), 0xA5);
    float g = 0;
    kernels::block_quantize_host(spec, zeros.data(), 64, codes.data(), scales.data(), &g);
    for (std::uint8_t c : codes) EXPECT_EQ(c, 0);
    // E8M0 has no zero: 2^-127 (code 0); NVFP4: the smallest E4M3 scale (code 1).
    const std::uint8_t want = spec.scheme == BlockScheme::nvfp4 ? 1 : 0;
    for (std::uint8_t s : scales) EXPECT_EQ(s, want);
    EXPECT_EQ(g, 1.0f);
  }
}

TEST(BlockQuantArithmetic, RoundToOddThenNearestEqualsOneRounding) {
  const auto& e4m3 = theory::format_spec(Format::e4m3);
  const reference::Fp32Target t = reference::fp32_target(e4m3, true);
  for (std::uint64_t i = 0; i < 200000; ++i) {
    // Doubles near the E4M3 grid's midpoints, off by a few double ulps: one fp32 rounding first
    // would land on the tie.
    const double base = reference::decode(e4m3, i % 126) + reference::decode(e4m3, i % 126 + 1);
    const double v = std::nextafter(base / 2, (i / 126) % 2 ? INFINITY : 0.0) *
                     ((i / 252) % 2 ? -1 : 1) * (i % 7 == 0 ? 1 + 0x1p-40 : 1);
    EXPECT_EQ(reference::encode_fp32_nearest(t, kernels::fp32_round_to_odd_bits(v)),
              reference::encode(e4m3, v, reference::Rounding::nearest_even,
                                reference::Overflow::saturate))
        << v;
  }
}

TEST(BlockQuantArithmetic, DecodeSmallAndScaleHelpersMatchTheReference) {
  for (Format f : {Format::e4m3, Format::e5m2, Format::e2m1}) {
    const auto& spec = theory::format_spec(f);
    const reference::Fp32Target t = reference::fp32_target(spec, true);
    for (std::uint32_t c = 0; c < (1u << spec.bits); ++c) {
      const double want = reference::decode(spec, c), got = kernels::decode_small(t, c);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got));
      } else {
        EXPECT_EQ(got, want) << spec.name << " code " << c;
        EXPECT_EQ(std::signbit(got), std::signbit(want));
      }
    }
  }
  for (int k = -127; k <= 127; ++k) EXPECT_EQ(kernels::exp2_float(k), std::ldexp(1.0f, k));
  for (std::uint32_t c = 0; c < 256; ++c) {
    const double want = reference::decode(theory::format_spec(Format::e8m0), c);
    if (c == 0xFF)
      EXPECT_TRUE(std::isnan(kernels::decode_e8m0(c)));
    else
      EXPECT_EQ(kernels::decode_e8m0(c), want);
  }
  const auto& e4m3 = theory::format_spec(Format::e4m3);
  const reference::Fp32Target t = reference::fp32_target(e4m3, true);
  for (std::uint64_t i = 0; i < 100000; ++i) {
    const double a = std::exp2(-12 + 22 * reference::uniform01(3, i)), v = a / 6.0;
    std::uint64_t want = reference::encode(e4m3, v, reference::Rounding::toward_positive,
                                           reference::Overflow::saturate);
    if (want == 0) want = 1;
    EXPECT_EQ(kernels::e4m3_code_up(kernels::small_target(t), t, v), want) << v;
    EXPECT_EQ(reference::decode(e4m3, want), theory::nvfp4_block_scale(a, 1.0f)) << v;
  }
}

TEST(BlockQuantTheory, ScaleExponentsEqualTheReferenceRules) {
  for (Format f : {Format::e4m3, Format::e5m2, Format::e2m3, Format::e3m2, Format::e2m1}) {
    const auto& spec = theory::format_spec(f);
    const double top = theory::max_finite(spec);
    std::vector<float> amaxes = {std::numeric_limits<float>::denorm_min(), 1e-30f, 1.0f,
                                 std::numeric_limits<float>::max()};
    for (int k = -140; k <= 120; k += 3) {
      const float m = static_cast<float>(std::ldexp(top, k));
      amaxes.insert(amaxes.end(),
                    {m, std::nextafter(m, 0.0f), std::nextafter(m, INFINITY), std::ldexp(1.0f, k)});
    }
    for (float a : amaxes) {
      if (!(a > 0) || !std::isfinite(a)) continue;
      std::vector<float> block(32, 0.0f);
      block[5] = -a;
      for (auto rule : {theory::MxScaleRule::ocp_floor, theory::MxScaleRule::round_up}) {
        const auto q = reference::mx_quantize(block, f, rule);
        const int e = theory::mx_scale_exponent(a, spec, rule);
        EXPECT_EQ(e + 127, q.scale_codes[0]) << spec.name << " amax " << a;
        EXPECT_EQ(kernels::mx_exponent(a, theory::max_exponent(spec), top,
                                       rule == theory::MxScaleRule::ocp_floor),
                  e);
      }
    }
  }
  // A block holding inf (the GPU counts it and goes on): the largest scale, at once.
  for (bool floor_rule : {true, false})
    EXPECT_EQ(kernels::mx_exponent(INFINITY, 8, 448, floor_rule), 127);
  EXPECT_EQ(theory::mx_scale_exponent(0, theory::format_spec(Format::e4m3),
                                      theory::MxScaleRule::round_up),
            -127);
  EXPECT_THROW(theory::mx_scale_exponent(NAN, theory::format_spec(Format::e4m3),
                                         theory::MxScaleRule::round_up),
               std::invalid_argument);
}

TEST(BlockQuantTheory, ScalesAndErrorsByHand) {
  const auto& e4m3 = theory::format_spec(Format::e4m3);
  const auto& e2m1 = theory::format_spec(Format::e2m1);
  EXPECT_EQ(theory::fp8_tensor_scale(448, e4m3, 0), 1.0f);
  EXPECT_EQ(theory::fp8_tensor_scale(448, e4m3, 2), 4.0f);  // |x|/s ≤ 112: two binades spare
  EXPECT_EQ(theory::fp8_tensor_scale(0, e4m3, 0), 1.0f);
  EXPECT_EQ(theory::nvfp4_tensor_scale(2688), 1.0f);
  EXPECT_EQ(theory::nvfp4_block_scale(6 * 3.3, 1.0f), 3.5);  // E4M3 above 3.3: 3.5
  EXPECT_EQ(theory::nvfp4_block_scale(0, 1.0f), 0x1p-9);
  EXPECT_EQ(theory::nvfp4_block_scale(1e9, 1.0f), 448);
  EXPECT_EQ(theory::element_quantum(e4m3, 300), 32);        // [256, 512): 2^(8−3)
  EXPECT_EQ(theory::element_quantum(e4m3, 0.001), 0x1p-9);  // subnormal step
  EXPECT_EQ(theory::element_quantum(e2m1, 5), 2);
  EXPECT_EQ(theory::scaled_element_max_error(e2m1, 0.5, 2.2), 0.5);         // v 4.4: step 2, S·1
  EXPECT_DOUBLE_EQ(theory::scaled_element_max_error(e2m1, 0.5, 3.7), 0.7);  // v 7.4 > 6: clipped
}

TEST(BlockQuantTheory, UniformSqnrLawMatchesAMeasuredTensor) {
  // fp8 per tensor over uniform data on (−amax, amax): the closed form against the measurement.
  for (Format f : {Format::e4m3, Format::e5m2}) {
    const auto& spec = theory::format_spec(f);
    std::vector<float> x(1 << 18);
    for (std::size_t i = 0; i < x.size(); ++i)
      x[i] = static_cast<float>(3.7 * (2 * reference::uniform01(41, i) - 1));
    const auto q = reference::fp8_tensor_quantize(x, f);
    const auto back = reference::block_dequantize(q);
    double signal = 0, noise = 0, amax = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      signal += static_cast<double>(x[i]) * x[i];
      noise += (back[i] - x[i]) * (back[i] - x[i]);
      amax = std::max(amax, std::fabs(static_cast<double>(x[i])));
    }
    const double measured = 10 * std::log10(signal / noise);
    const double law = theory::float_quant_sqnr_uniform_db(spec, q.block_scales[0], amax);
    EXPECT_NEAR(measured, law, 0.1) << spec.name;
  }
  // Clipping costs SQNR: OCP's floor scale of amax 7.4 clips FP4 at 6.
  const auto& e2m1 = theory::format_spec(Format::e2m1);
  EXPECT_LT(theory::float_quant_sqnr_uniform_db(e2m1, 1, 7.4),
            theory::float_quant_sqnr_uniform_db(e2m1, 2, 7.4));
  EXPECT_THROW(theory::float_quant_sqnr_uniform_db(e2m1, 1, 0), std::invalid_argument);
}

TEST(ReduceTree, HeightByHand) {
  // 256 values: one block, each lane at most one value: 0 + 2 + 8 + 8.
  EXPECT_EQ(kernels::reduce_tree_height(256), 18);
  // 2^26: 256 blocks of 256 threads, 256 values per lane: 255 + 2 + 8 + 8.
  EXPECT_EQ(kernels::reduce_tree_height(std::size_t{1} << 26), 273);
  EXPECT_EQ(kernels::reduce_tree_blocks(4096), 4);
  // A tree up to 4 values per lane: 2^20 with 256 blocks; 2^20 + 4 is not.
  EXPECT_TRUE(kernels::reduce_is_tree(std::size_t{1} << 20));
  EXPECT_FALSE(kernels::reduce_is_tree((std::size_t{1} << 20) + 4));
  EXPECT_TRUE(kernels::reduce_is_tree(256));
  // Far below recursive summation's n − 1: the bound is γ_273 instead of γ_(2^26 − 1).
  EXPECT_LT(theory::tree_sum_bound(273, 0x1p-24, 1), 2e-5);
}

}  // namespace
}  // namespace bb
