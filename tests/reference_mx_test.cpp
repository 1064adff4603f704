// Block-scaled formats (reference/mx.h): the OCP floor rule clips exactly when the block maximum
// lands above the element's max finite, the round-up rule never clips and keeps every element
// within half a step; NVFP4's two-level scales likewise; bad input is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "reference/mx.h"
#include "reference/random.h"

namespace bb::reference {
namespace {

using theory::Format;

std::vector<float> data(std::size_t n, std::uint64_t seed) {
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t r = splitmix64(seed + i);
    const double u = static_cast<double>(r >> 11) * 0x1p-53;
    // Magnitudes spread over 2^-6 … 2^6, random signs, an outlier in some blocks.
    x[i] = static_cast<float>((r & 1 ? -1 : 1) * std::exp2(12 * u - 6) * (i % 61 == 0 ? 50 : 1));
  }
  return x;
}

TEST(Mx, RoundUpNeverClipsAndErrsByAtMostHalfAStep) {
  const std::vector<float> x = data(32 * 64, 3);
  for (Format f : {Format::e4m3, Format::e5m2, Format::e2m3, Format::e3m2, Format::e2m1}) {
    const FormatSpec& spec = theory::format_spec(f);
    const BlockQuantized q = mx_quantize(x, f, MxScaleRule::round_up);
    const std::vector<double> back = block_dequantize(q);
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double X = q.block_scales[i / 32], v = std::fabs(x[i]) / X;
      ASSERT_LE(v, theory::max_finite(spec)) << spec.name;  // no clipping
      // Half a step at v's binade (subnormal steps below the min normal).
      const double step = std::ldexp(
          1.0, std::max(static_cast<int>(std::floor(std::log2(v))), theory::min_exponent(spec)) -
                   spec.mantissa_bits);
      ASSERT_LE(std::fabs(back[i] - x[i]), X * step / 2 * (1 + 1e-12)) << spec.name << " " << i;
    }
  }
}

TEST(Mx, OcpFloorClipsTheLargestElementsRoundUpDoesNot) {
  std::vector<float> block(32, 0.25f);
  block[7] = 1.9f * 8;  // amax = 15.2: floor e = 3 − 8, amax / X = 486.4 > 448
  const BlockQuantized fl = mx_quantize(block, Format::e4m3, MxScaleRule::ocp_floor);
  EXPECT_EQ(fl.block_scales[0], 0x1p-5);
  EXPECT_EQ(block_dequantize(fl)[7], 448 * 0x1p-5);  // clipped to 14
  const BlockQuantized up = mx_quantize(block, Format::e4m3, MxScaleRule::round_up);
  EXPECT_EQ(up.block_scales[0], 0x1p-4);
  EXPECT_NEAR(block_dequantize(up)[7], 15.2, 15.2 * 0x1p-4);
  // Below the clipping point both rules agree: amax = 1.5·8 lands on 384 < 448.
  block[7] = 12;
  EXPECT_EQ(block_dequantize(mx_quantize(block, Format::e4m3, MxScaleRule::ocp_floor))[7], 12);
}

TEST(Nvfp4, TwoLevelScalesNeverClip) {
  const std::vector<float> x = data(16 * 128, 9);
  const BlockQuantized q = nvfp4_quantize(x);
  const std::vector<double> back = block_dequantize(q);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double s = q.block_scales[i / 16] * q.tensor_scale;
    ASSERT_LE(std::fabs(x[i]) / s, 6 * (1 + 1e-12)) << i;
    // E2M1's steps are at most 2 (between 4 and 6): an error of at most one step half.
    ASSERT_LE(std::fabs(back[i] - x[i]), s * 1.0 * (1 + 1e-12)) << i;
  }
}

TEST(BlockScaling, DefinedBehaviourOnBadInput) {
  std::vector<float> zeros(64, 0.0f);
  const BlockQuantized z = mx_quantize(zeros, Format::e4m3, MxScaleRule::ocp_floor);
  EXPECT_EQ(z.scale_codes[0], 0u);  // the smallest scale: E8M0 has no zero
  for (double v : block_dequantize(z)) EXPECT_EQ(v, 0.0);
  for (double v : block_dequantize(nvfp4_quantize(zeros))) EXPECT_EQ(v, 0.0);
  std::vector<float> bad = data(64, 1);
  bad[3] = NAN;
  EXPECT_THROW(mx_quantize(bad, Format::e4m3, MxScaleRule::round_up), std::invalid_argument);
  EXPECT_THROW(nvfp4_quantize(bad), std::invalid_argument);
  EXPECT_THROW(mx_quantize(zeros, Format::e4m3, MxScaleRule::round_up, 48), std::invalid_argument);
  EXPECT_THROW(mx_quantize(zeros, Format::fp16, MxScaleRule::round_up), std::invalid_argument);
}

}  // namespace
}  // namespace bb::reference
