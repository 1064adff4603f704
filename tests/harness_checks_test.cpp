// Tests for the harness's own checks (harness/measure.h): roofline bound, validation, clock,
// and the bounds a case is held against on each backend.
#include "harness/measure.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace bb {
namespace {

using theory::Precision;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

Summary fastest(double min_s) {
  Summary s;
  s.samples = 10;
  s.min_s = min_s;
  s.median_s = s.mean_s = s.max_s = min_s * 1.1;
  return s;
}

// 2e9 bytes read + 1e9 written at 1e12 B/s: bound 3e-3 s.
Work memory_work() {
  Work w;
  w.bytes_read = 2e9;
  w.bytes_written = 1e9;
  w.precision = Precision::fp64;
  return w;
}

Bounds memory_bounds() {
  Bounds b;
  b.bandwidth_bytes_per_s = 1e12;
  b.bandwidth_source = "test figure";
  return b;
}

TEST(RooflineCheck, PassAtOrAboveTheBound) {
  const Check at = roofline_check("s", "c", memory_work(), memory_bounds(), fastest(3e-3), 0.05);
  EXPECT_EQ(at.verdict, Verdict::pass) << at.reason;
  EXPECT_EQ(at.name, "c/roofline");
  EXPECT_EQ(at.suite, "s");
  EXPECT_DOUBLE_EQ(at.predicted, 3e-3);
  EXPECT_EQ(at.measured, 3e-3);
  EXPECT_EQ(at.tolerance, 0.05);
  EXPECT_TRUE(contains(at.reason, "memory-bound, BW from test figure")) << at.reason;
  // Within tolerance: 2.9e-3 ≥ 3e-3 × 0.95 = 2.85e-3.
  const Check near =
      roofline_check("s", "c", memory_work(), memory_bounds(), fastest(2.9e-3), 0.05);
  EXPECT_EQ(near.verdict, Verdict::pass) << near.reason;
}

TEST(RooflineCheck, FailWhenFasterThanPhysicallyPossible) {
  // 2.8e-3 < 2.85e-3.
  const Check k = roofline_check("s", "c", memory_work(), memory_bounds(), fastest(2.8e-3), 0.05);
  EXPECT_EQ(k.verdict, Verdict::fail) << k.reason;
  EXPECT_TRUE(contains(k.reason, "miscounted")) << k.reason;
  EXPECT_DOUBLE_EQ(k.predicted, 3e-3);
}

TEST(RooflineCheck, ComputeBoundWithUnknownBandwidth) {
  // 2e12 flop at 1e15 flop/s: 2e-3 s; bandwidth unknown, so only the compute bound applies.
  Work w = memory_work();
  w.flop = 2e12;
  Bounds b;
  b.peak_flop_per_s = 1e15;
  // Meeting a partial bound proves little: SKIP, saying what is missing; beating it still fails.
  const Check pass = roofline_check("s", "c", w, b, fastest(2e-3), 0.05);
  EXPECT_EQ(pass.verdict, Verdict::skip) << pass.reason;
  EXPECT_DOUBLE_EQ(pass.predicted, 2e-3);
  EXPECT_TRUE(contains(pass.reason, "compute-bound")) << pass.reason;
  EXPECT_TRUE(contains(pass.reason, "bandwidth unknown")) << pass.reason;
  const Check fail = roofline_check("s", "c", w, b, fastest(1e-3), 0.05);
  EXPECT_EQ(fail.verdict, Verdict::fail) << fail.reason;
}

TEST(RooflineCheck, SkipWhenBandwidthUnknownAndNoFlop) {
  const Check k = roofline_check("s", "c", memory_work(), Bounds{}, fastest(1e-9), 0.05);
  EXPECT_EQ(k.verdict, Verdict::skip);
  EXPECT_TRUE(contains(k.reason, "--host-peak-bw")) << k.reason;
  EXPECT_TRUE(std::isnan(k.predicted));
}

TEST(RooflineCheck, SkipCacheResidentWithoutFlop) {
  Work w = memory_work();
  w.memory_level = "l1";
  const Check k = roofline_check("s", "c", w, Bounds{}, fastest(1e-9), 0.05);
  EXPECT_EQ(k.verdict, Verdict::skip);
  EXPECT_TRUE(contains(k.reason, "'l1'")) << k.reason;
}

TEST(RooflineCheck, SkipWhenNothingDeclared) {
  const Check k = roofline_check("s", "c", Work{}, memory_bounds(), fastest(1e-9), 0.05);
  EXPECT_EQ(k.verdict, Verdict::skip);
  EXPECT_TRUE(contains(k.reason, "no bytes and no flop")) << k.reason;
}

HostInfo avx2_host() {
  // 4 lanes × 2 × 2 × 4 CPUs × 2e9 Hz = 1.28e11 fp64 flop/s.
  HostInfo h;
  h.isa = {"avx2"};
  h.logical_cpus = 4;
  h.cpu_clock_hz = 2e9;
  h.clock_is_max = true;  // cpufreq's maximum: the estimate is a bound
  return h;
}

TEST(BoundsFor, HostClockBelowTurboGivesNoComputeBound) {
  HostInfo h = avx2_host();
  h.clock_is_max = false;  // "cpu MHz" under a hypervisor: turbo may exceed it
  EXPECT_EQ(bounds_for(Backend::host, memory_work(), nullptr, h, std::nullopt).peak_flop_per_s, 0);
}

TEST(BoundsFor, HostWithoutPeakBandwidth) {
  Work w = memory_work();
  const Bounds fp64 = bounds_for(Backend::host, w, nullptr, avx2_host(), std::nullopt);
  EXPECT_EQ(fp64.bandwidth_bytes_per_s, 0.0);
  EXPECT_DOUBLE_EQ(fp64.peak_flop_per_s, 1.28e11);
  w.precision = Precision::fp32;
  EXPECT_DOUBLE_EQ(bounds_for(Backend::host, w, nullptr, avx2_host(), std::nullopt).peak_flop_per_s,
                   2.56e11);
  w.precision = Precision::bf16;
  EXPECT_EQ(bounds_for(Backend::host, w, nullptr, avx2_host(), std::nullopt).peak_flop_per_s, 0.0);
}

TEST(BoundsFor, HostWithPeakBandwidth) {
  const Bounds b = bounds_for(Backend::host, memory_work(), nullptr, avx2_host(), 2.5e11);
  EXPECT_EQ(b.bandwidth_bytes_per_s, 2.5e11);
  EXPECT_EQ(b.bandwidth_source, "--host-peak-bw");
  EXPECT_DOUBLE_EQ(b.peak_flop_per_s, 1.28e11);
}

TEST(BoundsFor, CacheLevelHasNoBandwidth) {
  Work w = memory_work();
  w.memory_level = "l1";
  const Bounds host = bounds_for(Backend::host, w, nullptr, avx2_host(), 2.5e11);
  EXPECT_EQ(host.bandwidth_bytes_per_s, 0.0);
  EXPECT_DOUBLE_EQ(host.peak_flop_per_s, 1.28e11);

  GpuDevice gpu;
  gpu.name = "Fake GPU";
  gpu.peak_dram_bytes_per_s = 4e12;
  gpu.peak_cuda_core_flop_per_s[static_cast<std::size_t>(Precision::fp64)] = 3e13;
  gpu.peak_tensor_flop_per_s[static_cast<std::size_t>(Precision::fp64)] = 6e13;
  const Bounds cache = bounds_for(Backend::cuda, w, &gpu, avx2_host(), std::nullopt);
  EXPECT_EQ(cache.bandwidth_bytes_per_s, 0.0);
  EXPECT_EQ(cache.peak_flop_per_s, 6e13);  // the larger of CUDA-core and tensor peaks
  w.cuda_cores_only = true;                // an FMA chain: tensor cores cannot run it
  EXPECT_EQ(bounds_for(Backend::cuda, w, &gpu, avx2_host(), std::nullopt).peak_flop_per_s, 3e13);

  const Bounds dram = bounds_for(Backend::cuda, memory_work(), &gpu, avx2_host(), std::nullopt);
  EXPECT_EQ(dram.bandwidth_bytes_per_s, 4e12);
  EXPECT_TRUE(contains(dram.bandwidth_source, "Fake GPU")) << dram.bandwidth_source;
}

TEST(ValidationCheck, Verdicts) {
  Comparison good;
  good.tolerance = {1e-12, 1e-6};
  good.checked = 100;
  good.reference_trivial = false;
  const Check pass = validation_check("s", "c", good);
  EXPECT_EQ(pass.verdict, Verdict::pass) << pass.reason;
  EXPECT_EQ(pass.name, "c/validate");
  EXPECT_EQ(pass.measured, 0.0);
  EXPECT_EQ(pass.tolerance, 1e-6);
  EXPECT_TRUE(contains(pass.reason, "0/100 mismatches")) << pass.reason;

  Comparison bad = good;
  bad.mismatches = 3;
  const Check fail = validation_check("s", "c", bad);
  EXPECT_EQ(fail.verdict, Verdict::fail);
  EXPECT_EQ(fail.measured, 3.0);
  EXPECT_TRUE(contains(fail.reason, "3/100 mismatches")) << fail.reason;

  Comparison trivial = good;
  trivial.reference_trivial = true;
  const Check t = validation_check("s", "c", trivial);
  EXPECT_EQ(t.verdict, Verdict::fail);
  EXPECT_TRUE(contains(t.reason, "trivial")) << t.reason;

  Comparison empty = good;
  empty.checked = 0;
  EXPECT_EQ(validation_check("s", "c", empty).verdict, Verdict::fail);
}

TEST(ClockCheck, ThrottlingThreshold) {
  Measurement m;
  m.clock_start_hz = 1.98e9;
  m.clock_end_hz = 0.95 * 1.98e9;
  const Check pass = clock_check("s", "c", m);
  EXPECT_EQ(pass.verdict, Verdict::pass) << pass.reason;
  EXPECT_EQ(pass.name, "c/clock");
  EXPECT_EQ(pass.predicted, 1.98e9);
  EXPECT_EQ(pass.measured, 0.95 * 1.98e9);
  EXPECT_TRUE(contains(pass.reason, "1980 MHz before, 1881 MHz after")) << pass.reason;

  m.clock_end_hz = 0.85 * 1.98e9;
  EXPECT_EQ(clock_check("s", "c", m).verdict, Verdict::fail);
  m.clock_end_hz = 2.1e9;  // boost during the case is fine
  EXPECT_EQ(clock_check("s", "c", m).verdict, Verdict::pass);
}

}  // namespace
}  // namespace bb
