// The precision suite's host kernels at small, odd sizes, misaligned pointers and 1-3 OpenMP
// threads, outputs poisoned first and guarded: fp32 → fp16 conversion, int8 group range and
// quantization, block-scaled quantization, and the fp32 GEMM. Their own tests (precision_checks,
// block_quant, gemm_precision) hold them on every input class at one size and thread count; these
// hold the thread splits, tails and alignments.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/block_quant.h"
#include "kernels/convert.h"
#include "kernels/gemm_precision.h"
#include "kernels/quant.h"
#include "reference/formats.h"
#include "reference/gemm.h"
#include "reference/quant.h"
#include "reference/random.h"
#include "suites/precision/precision_suite.h"
#include "tests/block_quant_data.h"
#include "tests/host_kernel_testing.h"

namespace bb {
namespace {

using host_test::GuardedArray;
using host_test::within;

// Both signs, mostly in [0.5, 2), one in 64 scaled by 2^±12.
float signed_test_value(std::uint64_t seed, std::uint64_t i) {
  return static_cast<float>((i % 3 == 1 ? -1 : 1) * reference::positive_test_value(seed, i));
}

// --- fp32 → fp16 ---

// Half random fp32 bit patterns (every exponent: subnormals, overflow, ±inf, NaN), half values
// in fp16's range.
float convert_input(std::uint64_t i) {
  const std::uint64_t r = reference::splitmix64(i + 0x51);
  if (r & 1) return signed_test_value(17, i);
  const auto bits = static_cast<std::uint32_t>(r >> 32);
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

TEST(ConvertHostKernel, Fp16BitExactAtOddSizesOffsetsAndThreads) {
  const auto& fp16 = theory::format_spec(theory::Format::fp16);
  for (int threads : host_test::kThreadCounts) {
    const host_test::OmpThreads scope(threads);
    for (std::size_t n : host_test::kOddSizes)
      for (std::size_t offset : host_test::kOffsets) {
        GuardedArray<float> x(n, offset, NAN);
        GuardedArray<std::uint16_t> out(n, (offset + 1) % 4, 0x7E01);
        std::vector<double> got(n), want(n);
        for (std::size_t i = 0; i < n; ++i) x[i] = convert_input(i);
        kernels::fp32_to_fp16_host(x.data(), out.data(), n);
        for (std::size_t i = 0; i < n; ++i) {
          std::uint32_t bits;
          std::memcpy(&bits, &x[i], 4);
          const auto ref = static_cast<std::uint16_t>(
              reference::encode_fp32_nearest(fp16, bits, reference::Overflow::non_saturating));
          // A NaN must give a NaN; its payload is the instruction's (precision_conformance_test).
          const bool nan_ok = std::isnan(x[i]) && std::isnan(reference::decode(fp16, out[i]));
          got[i] = out[i];
          want[i] = nan_ok ? out[i] : ref;
        }
        const std::string at =
            host_test::where(n, offset, threads) + " " + kernels::fp32_to_fp16_host_isa();
        EXPECT_TRUE(within(got, want, {0.0, 0.0})) << at;
        EXPECT_TRUE(out.guards_intact()) << at;
      }
  }
}

// --- int8 quantization per group ---

struct QuantShape {
  std::size_t n, group;
};
// Per tensor, per element, odd groups, and groups past 16 Ki elements: halved into chunks
// (3·2^16 → 16 chunks of 12288; 2^17 → 8 of 2^14) or not (65537, odd); 40 groups of 128, the
// suite's, several to a thread (the fused pass takes each next group's range ahead).
constexpr QuantShape kQuantShapes[] = {
    {1, 1},         {2, 1},         {2, 2},           {3, 3},
    {7, 7},         {63, 7},        {63, 9},          {64, 64},
    {64, 16},       {65, 5},        {65, 13},         {1000, 8},
    {1001, 7},      {1031, 1031},   {196608, 196608}, {2 * 131072, 131072},
    {65537, 65537}, {40 * 128, 128}};

template <class Q>
void expect_quant_matches(const QuantShape& s, std::size_t offset, int threads,
                          theory::QuantScheme scheme, bool stochastic) {
  const std::size_t groups = s.n / s.group;
  GuardedArray<float> x(s.n, offset, NAN), lo(groups, offset, NAN), hi(groups, offset + 1, NAN),
      back(s.n, offset + 2, NAN);
  GuardedArray<Q> q(s.n, offset + 1, static_cast<Q>(0x80));  // int8: −128, never a code
  // Magnitudes growing ×4 across each group: in even groups the negative ones toward its start
  // and the positive ones toward its end, in odd groups the other way round. So the extremes lie
  // in a group's first and last chunks, not by chance in one, and the min's chunk alternates.
  for (std::size_t i = 0; i < s.n; ++i) {
    const float v = signed_test_value(13, i);
    const double t = static_cast<double>(i % s.group) / static_cast<double>(s.group);
    const bool rising = (v > 0) == (i / s.group % 2 == 0);
    x[i] = static_cast<float>(v * (1 + 3 * (rising ? t : 1 - t)));
  }
  kernels::group_minmax_host(x.data(), s.n, s.group, lo.data(), hi.data());
  std::vector<float> want_lo(groups), want_hi(groups);
  std::vector<theory::IntQuant> params(groups);
  for (std::size_t g = 0; g < groups; ++g) {
    const auto part = x.span().subspan(g * s.group, s.group);
    const auto [l, h] = std::minmax_element(part.begin(), part.end());
    want_lo[g] = *l, want_hi[g] = *h;
    params[g] = theory::int_quant_params(lo[g], hi[g], 8, scheme);
  }
  kernels::quantize_host(x.data(), s.n, s.group, params.data(), stochastic, 3, q.data());
  kernels::dequantize_host(q.data(), s.n, s.group, params.data(), back.data());

  const reference::Quantized ref = reference::quantize(
      x.span(), s.group, 8, scheme,
      stochastic ? reference::QuantRounding::stochastic : reference::QuantRounding::nearest, 3);
  const std::vector<double> ref_x = reference::dequantize(ref);
  std::vector<float> want_back(s.n);
  for (std::size_t i = 0; i < s.n; ++i) want_back[i] = static_cast<float>(ref_x[i]);
  const std::string at = host_test::where(s.n, offset, threads) + " group " +
                         std::to_string(s.group) + (stochastic ? " stochastic" : " nearest") +
                         (scheme == theory::QuantScheme::symmetric ? " int8" : " uint8");
  EXPECT_TRUE(within(lo.span(), want_lo, {0.0, 0.0})) << "min " << at;
  EXPECT_TRUE(within(hi.span(), want_hi, {0.0, 0.0})) << "max " << at;
  const std::vector<std::int32_t> got_q(q.span().begin(), q.span().end());
  EXPECT_TRUE(within(got_q, ref.q, {0.0, 0.0})) << "codes " << at;
  EXPECT_TRUE(within(back.span(), want_back, {0.0, 0.0})) << "dequantized " << at;
  EXPECT_TRUE(x.guards_intact() && lo.guards_intact() && hi.guards_intact() && q.guards_intact() &&
              back.guards_intact())
      << at;

  // The fused pass (range, parameters and codes per group in one pass) gives the same.
  GuardedArray<Q> qf(s.n, offset + 2, static_cast<Q>(0x80));
  // (A plain vector: GuardedArray aligns to 64 bytes by whole elements, which 32-byte ones may
  // never reach.) One guard element past the end.
  std::vector<theory::IntQuant> pf(groups + 1, theory::IntQuant{-1, 0, 0, 0});
  kernels::quantize_groups_host(x.data(), s.n, s.group, 8, scheme, stochastic, 3, qf.data(),
                                pf.data());
  const std::vector<std::int32_t> got_qf(qf.span().begin(), qf.span().end());
  EXPECT_TRUE(within(got_qf, ref.q, {0.0, 0.0})) << "fused codes " << at;
  for (std::size_t g = 0; g < groups; ++g)
    EXPECT_TRUE(pf[g].scale == ref.groups[g].scale && pf[g].zero_point == ref.groups[g].zero_point)
        << "fused parameters of group " << g << " " << at;
  EXPECT_TRUE(qf.guards_intact() && pf[groups].scale == -1) << at;
}

TEST(QuantHostKernel, MatchesTheReferenceAtOddShapesOffsetsAndThreads) {
  for (int threads : host_test::kThreadCounts) {
    const host_test::OmpThreads scope(threads);
    for (const QuantShape& s : kQuantShapes)
      for (std::size_t offset : {0, 1})
        for (bool stochastic : {false, true}) {
          expect_quant_matches<std::int8_t>(s, offset, threads, theory::QuantScheme::symmetric,
                                            stochastic);
          expect_quant_matches<std::uint8_t>(s, offset, threads, theory::QuantScheme::asymmetric,
                                             stochastic);
        }
  }
}

// Ties: with amax 127 the symmetric scale is 1, so x / s is x, and halves are exact ties, which
// round away from zero (std::llround); a wrong rule (to even, up) moves some of these codes.
// Repeated 4 times (64 values): the 16-lane bodies see them, not only the scalar tails.
TEST(QuantHostKernel, TiesRoundAwayFromZeroInBothPaths) {
  const std::vector<float> x16 = {127,    0.5f,   -0.5f,   1.5f,        -1.5f,        2.5f,
                                  -2.5f,  126.5f, -126.5f, 0.49999997f, -0.49999997f, 3.25f,
                                  -3.75f, 0,      -127,    64.5f};
  const std::vector<std::int32_t> want16 = {127,  1, -1, 2, -2, 3, -3,   127,
                                            -127, 0, 0,  3, -4, 0, -127, 65};
  std::vector<float> x;
  std::vector<std::int32_t> want;
  for (int r = 0; r < 4; ++r) {
    x.insert(x.end(), x16.begin(), x16.end());
    want.insert(want.end(), want16.begin(), want16.end());
  }
  const theory::IntQuant p = theory::int_quant_params(-127, 127, 8, theory::QuantScheme::symmetric);
  ASSERT_EQ(p.scale, 1.0);
  std::vector<std::int8_t> q(x.size()), qf(x.size());
  std::vector<theory::IntQuant> pf(1);
  kernels::quantize_host(x.data(), x.size(), x.size(), &p, false, 0, q.data());
  kernels::quantize_groups_host(x.data(), x.size(), x.size(), 8, theory::QuantScheme::symmetric,
                                false, 0, qf.data(), pf.data());
  EXPECT_EQ(reference::quantize(x, x.size(), 8, theory::QuantScheme::symmetric).q, want);
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(q[i], want[i]) << "element " << i << " (" << x[i] << ")";
    EXPECT_EQ(qf[i], want[i]) << "fused, element " << i << " (" << x[i] << ")";
  }
}

// A tie that the fast pass's product misses: 9.75 / 1.3 is exactly 7.5 (→ 8, away from zero), but
// 9.75 · fl(1/1.3) = 7.499999999999999 (and in fp32, 7.5000005). The run must be redone with the
// division. 64 values: the 16-lane bodies (AVX-512) see them, and the tails.
TEST(QuantHostKernel, TieMissedByTheReciprocalIsRedoneWithTheDivision) {
  theory::IntQuant p;
  p.scale = 1.3, p.q_min = -127, p.q_max = 127;
  ASSERT_EQ(9.75 / 1.3, 7.5);
  ASSERT_NE(9.75 * (1 / 1.3), 7.5);
  std::vector<float> x;
  for (int r = 0; r < 16; ++r) x.insert(x.end(), {9.75f, -9.75f, 1.0f, 9.75f});
  std::vector<std::int8_t> q(x.size());
  kernels::quantize_host(x.data(), x.size(), x.size(), &p, false, 0, q.data());
  for (std::size_t i = 0; i < x.size(); i += 4) {
    EXPECT_EQ(q[i], 8) << i;
    EXPECT_EQ(q[i + 1], -8) << i;
    EXPECT_EQ(q[i + 2], 1) << i;
    EXPECT_EQ(q[i + 3], 8) << i;
  }
  // s = 0.9: 11.25 / s = 12.5 exactly, 11.25·fl32(1/s) = 12.500001; 2.25 / s = 2.5, a tie with
  // an even floor (to-nearest-even would give 2).
  p.scale = 0.9;
  ASSERT_EQ(11.25 / 0.9, 12.5);
  ASSERT_EQ(2.25 / 0.9, 2.5);
  x.clear();
  for (int r = 0; r < 16; ++r) x.insert(x.end(), {11.25f, -11.25f, 20.25f, 2.25f});
  kernels::quantize_host(x.data(), x.size(), x.size(), &p, false, 0, q.data());
  for (std::size_t i = 0; i < x.size(); i += 4) {
    EXPECT_EQ(q[i], 13) << i;
    EXPECT_EQ(q[i + 1], -13) << i;
    EXPECT_EQ(q[i + 2], 23) << i;
    EXPECT_EQ(q[i + 3], 3) << i;
  }
}

// Stochastic rounding decided at the edge: each v = x / s lies within about 2^-21 of 5 + u_i, where
// u_i is element i's own draw (reference/quant.h), so v − 5 < u_i decides the code and the fp32
// vector body (v' = x·fl32(1/s), 24 bits of the draw) cannot tell; its groups of 16 must be redone
// with the reference's arithmetic. The test first shows that the fp32 decision is wrong for some
// of them (else it could not fail), then asks for the reference's codes from both kernels.
TEST(QuantHostKernel, StochasticDecisionsAtTheDrawAreRedoneExactly) {
  constexpr std::uint64_t kSeed = 11;
  theory::IntQuant p;
  p.scale = 1.3, p.q_min = -127, p.q_max = 127;
  const float inv32 = static_cast<float>(1 / p.scale);
  std::vector<float> x(256);
  std::vector<std::int32_t> want(x.size());
  int fp32_wrong = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::uint64_t z = reference::splitmix64(kSeed * 0x9E3779B97F4A7C15ull + i);
    const double u = static_cast<double>(z >> 11) * 0x1p-53;
    x[i] = static_cast<float>((5 + u) * p.scale);
    const double v = static_cast<double>(x[i]) / p.scale;
    want[i] = static_cast<std::int32_t>(reference::round_stochastic(v, kSeed, i));
    const float v32 = x[i] * inv32, u24 = static_cast<float>(z >> 40) * 0x1p-24f;
    const auto f32 = static_cast<std::int32_t>(std::floor(v32));
    fp32_wrong += f32 + (u24 < v32 - std::floor(v32) ? 1 : 0) != want[i];
  }
  ASSERT_GT(fp32_wrong, 0) << "no decision the fp32 body would get wrong: the test cannot fail";
  std::vector<std::int8_t> q(x.size()), qf(x.size());
  kernels::quantize_host(x.data(), x.size(), x.size(), &p, true, kSeed, q.data());
  std::vector<theory::IntQuant> pf(1);
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_EQ(q[i], want[i]) << "element " << i;
  // The fused pass makes its own scale (from the range): the reference with that scale.
  kernels::quantize_groups_host(x.data(), x.size(), x.size(), 8, theory::QuantScheme::symmetric,
                                true, kSeed, qf.data(), pf.data());
  const reference::Quantized ref = reference::quantize(
      x, x.size(), 8, theory::QuantScheme::symmetric, reference::QuantRounding::stochastic, kSeed);
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_EQ(qf[i], ref.q[i]) << "fused, element " << i;
}

// --- block-scaled quantization (fp8 per tensor, MX, NVFP4) ---

TEST(BlockQuantHostKernel, BitExactAtSmallSizesOffsetsAndThreads) {
  using kernels::BlockScheme;
  for (int threads : host_test::kThreadCounts) {
    const host_test::OmpThreads scope(threads);
    for (const kernels::BlockQuantSpec& spec : testdata::all_block_specs()) {
      // One to a few blocks (fp8 per tensor: ranges of 32, a partial last one), and 70: NVFP4
      // takes 16 blocks' scales ahead of the previous 16's codes, both ways round at 2 threads.
      const std::size_t unit = spec.block() ? spec.block() : 4;
      for (std::size_t blocks : {1, 2, 3, 7, 9, 31, 33, 70})
        for (std::size_t offset : host_test::kOffsets) {
          const std::size_t n = blocks * unit;
          std::vector<float> data = suites::block_quant_data(n);
          data[n - 1] *= 64;  // an outlier in the tail: the tensor's amax
          GuardedArray<float> x(n, offset, NAN), back(n, offset + 1, NAN);
          std::copy(data.begin(), data.end(), x.data());
          GuardedArray<std::uint8_t> codes(spec.code_bytes(n), offset, 0x5A),
              scales(spec.scale_count(n), offset + 2, 0xA5);
          float tensor_scale = NAN;
          kernels::block_quantize_host(spec, x.data(), n, codes.data(), scales.data(),
                                       &tensor_scale);
          kernels::block_dequantize_host(spec, codes.data(), scales.data(), tensor_scale, n,
                                         back.data());
          const suites::BlockQuantSetup setup{"test", spec, true};
          const Comparison c =
              suites::block_quant_compare(setup, suites::block_quant_reference(setup, data),
                                          codes.data(), scales.data(), tensor_scale, back.span());
          const std::string at = host_test::where(n, offset, threads) + " " +
                                 std::string(theory::format_spec(spec.element).name) + " scheme " +
                                 std::to_string(static_cast<int>(spec.scheme));
          EXPECT_TRUE(c.ok()) << at << ": " << c.describe();
          EXPECT_TRUE(codes.guards_intact() && scales.guards_intact() && back.guards_intact())
              << at;
        }
    }
  }
}

// --- fp32 GEMM ---

// The kernel's arithmetic (kernels/gemm_precision.h): each entry Σ_p a(i, p)·b(p, j) in fp32, p in
// order, every product and sum rounded (this file is built with -ffp-contract=off). A row-major
// m×k, B column-major k×n, C column-major m×n.
std::vector<float> gemm_in_k_order(std::span<const float> a, std::span<const float> b, int m, int n,
                                   int k) {
  std::vector<float> c(static_cast<std::size_t>(m) * static_cast<std::size_t>(n));
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float s = 0;
      for (int p = 0; p < k; ++p) s = s + a[i * k + p] * b[j * k + p];
      c[static_cast<std::size_t>(i + j * m)] = s;
    }
  return c;
}

TEST(GemmHostKernel, BitExactAtTinyOddShapesOffsetsAndThreads) {
  struct Shape {
    int m, n, k;
  };
  for (int threads : host_test::kThreadCounts) {
    const host_test::OmpThreads scope(threads);
    for (const Shape& s :
         {Shape{1, 1, 1}, Shape{1, 1, 7}, Shape{2, 3, 1}, Shape{3, 7, 2}, Shape{7, 3, 63},
          Shape{1, 65, 64}, Shape{65, 1, 65}, Shape{5, 17, 1000}, Shape{33, 31, 3}})
      for (std::size_t offset : host_test::kOffsets) {
        const auto sz = [](int x, int y) {
          return static_cast<std::size_t>(x) * static_cast<std::size_t>(y);
        };
        GuardedArray<float> a(sz(s.m, s.k), offset, NAN), b(sz(s.k, s.n), offset + 1, NAN),
            c(sz(s.m, s.n), offset + 2, NAN);
        for (std::size_t i = 0; i < a.span().size(); ++i)  // an outlier ×1024 in 37
          a[i] = static_cast<float>(reference::gemm_test_value(reference::GemmData::mixed, 1, i) *
                                    (i % 37 == 5 ? 1024 : 1));
        for (std::size_t i = 0; i < b.span().size(); ++i)
          b[i] = static_cast<float>(reference::gemm_test_value(reference::GemmData::mixed, 2, i));
        kernels::gemm_fp32_host(a.data(), b.data(), c.data(), s.m, s.n, s.k);
        const std::string at = host_test::where(sz(s.m, s.n), offset, threads) + " m " +
                               std::to_string(s.m) + " n " + std::to_string(s.n) + " k " +
                               std::to_string(s.k);
        EXPECT_TRUE(
            within(c.span(), gemm_in_k_order(a.span(), b.span(), s.m, s.n, s.k), {0.0, 0.0}))
            << at;
        EXPECT_TRUE(a.guards_intact() && b.guards_intact() && c.guards_intact()) << at;
      }
  }
}

}  // namespace
}  // namespace bb
