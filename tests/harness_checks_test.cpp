// Tests for the harness's own checks (harness/measure.h): roofline bound, validation, clock,
// and the bounds a case is held against on each backend.
#include "harness/measure.h"
#include "harness/nvml.h"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

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

TEST(RooflineCheck, AtTheEdgeOfItsTolerance) {
  // The band is measured ≥ 3e-3 × (1 − 0.05) = 2.85e-3 s: 2.8501e-3 just inside (PASS), 2.8499e-3
  // just outside (FAIL); the existing cases sit 0.05e-3 from the edge.
  const Check inside =
      roofline_check("s", "c", memory_work(), memory_bounds(), fastest(2.8501e-3), 0.05);
  EXPECT_EQ(inside.verdict, Verdict::pass) << inside.reason;
  const Check outside =
      roofline_check("s", "c", memory_work(), memory_bounds(), fastest(2.8499e-3), 0.05);
  EXPECT_EQ(outside.verdict, Verdict::fail) << outside.reason;
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
  // A sustained tensor-core GEMM under the power limit: 1.6 of 1.98 GHz, 0.81 of the start. Not
  // throttling: judged against the sustained clock, not against the start.
  m.clock_start_hz = 1.98e9;
  m.clock_end_hz = 1.6e9;
  m.clock_reference_hz = 1.98e9;
  m.clock_reference_source = "rated clock";
  const Check pass = clock_check("s", "c", m);
  EXPECT_EQ(pass.verdict, Verdict::pass) << pass.reason;
  EXPECT_FALSE(clock_throttled(m));
  EXPECT_EQ(pass.name, "c/clock");
  EXPECT_DOUBLE_EQ(pass.predicted, 0.75 * 1.98e9);
  EXPECT_EQ(pass.measured, 1.6e9);
  EXPECT_TRUE(contains(pass.reason, "1980 MHz before, 1600 MHz after; sustained 1980 MHz"))
      << pass.reason;

  m.clock_end_hz = 1.4e9;  // below 75% of the sustained clock (nvbench's threshold)
  EXPECT_EQ(clock_check("s", "c", m).verdict, Verdict::fail);
  EXPECT_TRUE(clock_throttled(m));
  m.clock_start_hz = 1.4e9, m.clock_end_hz = 1.9e9;  // the lower of the two counts
  EXPECT_EQ(clock_check("s", "c", m).verdict, Verdict::fail);
  m.clock_start_hz = 1.98e9, m.clock_end_hz = 2.1e9;  // boost during the case is fine
  EXPECT_EQ(clock_check("s", "c", m).verdict, Verdict::pass);

  // NVML's reasons: a power cap is power management, a thermal slowdown is throttling.
  m.clock_reasons_known = true;
  m.clock_event_reasons = 0x4;
  const Check capped = clock_check("s", "c", m);
  EXPECT_EQ(capped.verdict, Verdict::pass) << capped.reason;
  EXPECT_TRUE(contains(capped.reason, "NVML clock events: sw_power_cap")) << capped.reason;
  m.clock_event_reasons = 0x4 | 0x40;
  EXPECT_EQ(clock_check("s", "c", m).verdict, Verdict::fail);
  EXPECT_TRUE(clock_throttled(m));

  m = Measurement{};  // no reference clock: not judged
  m.clock_start_hz = m.clock_end_hz = 1e9;
  EXPECT_EQ(clock_check("s", "c", m).verdict, Verdict::skip);
  EXPECT_FALSE(clock_throttled(m));
}

TEST(Nvml, ReasonNamesAndAbsence) {
  EXPECT_EQ(clock_event_reason_names(0), std::vector<std::string>{});
  EXPECT_EQ(clock_event_reason_names(0x44 | (std::uint64_t{1} << 40)),
            (std::vector<std::string>{"sw_power_cap", "hw_thermal_slowdown", "0x10000000000"}));
  EXPECT_TRUE(clock_event_is_slowdown(0x8));
  EXPECT_FALSE(clock_event_is_slowdown(0x1 | 0x2 | 0x4 | 0x10 | 0x100));
  const Nvml nvml;  // on a machine without the driver: unavailable, saying why, never throwing
  if (!nvml.available()) {
    EXPECT_FALSE(nvml.reason().empty());
  }
  // Whatever is unknown says why: the throttle evidence never disappears silently.
  const NvmlClocks c = nvml.clocks("not-a-bus-id");
  EXPECT_FALSE(c.reasons_known);
  EXPECT_FALSE(c.reasons_missing.empty());
  if (nvml.available())
    EXPECT_TRUE(contains(c.reasons_missing, "not-a-bus-id")) << c.reasons_missing;
  else
    EXPECT_EQ(c.reasons_missing, nvml.reason());
}

// NVML's own form, nvmlPciInfo_t.busId, from what the CUDA runtime gives (cudaDeviceGetPCIBusId's
// "0000:19:00.0", the unpadded "0:1b:0.0" of cudaDeviceProp's numbers) and NVML's other accepted
// forms; anything else refused.
TEST(Nvml, PciBusIdInNvmlsForm) {
  EXPECT_EQ(nvml_pci_bus_id("0000:19:00.0"), "00000000:19:00.0");
  EXPECT_EQ(nvml_pci_bus_id("0:1b:0.0"), "00000000:1B:00.0");
  EXPECT_EQ(nvml_pci_bus_id("00000000:1B:00.0"), "00000000:1B:00.0");
  EXPECT_EQ(nvml_pci_bus_id("1:c1:1f.7"), "00000001:C1:1F.7");
  EXPECT_EQ(nvml_pci_bus_id("ffffffff:ff:1f.0"), "FFFFFFFF:FF:1F.0");
  EXPECT_EQ(nvml_pci_bus_id("0:9a:0"), "00000000:9A:00.0");  // domain:bus:device
  EXPECT_EQ(nvml_pci_bus_id("9a:3.1"), "00000000:9A:03.1");  // bus:device.function
  for (const char* bad :
       {"", "gpu0", "0:1g:0.0", "0:100:0.0", "0:1b:20.0", "0:1b:0.8", "100000000:1b:0.0",
        "0:1b:0.0.0", "0::0.0", ":1b:0.0", "0:1b:0.", "0:1b.0:0", "19", " 0:19:00.0"})
    EXPECT_EQ(nvml_pci_bus_id(bad), std::nullopt) << "'" << bad << "'";
}

// The probes' decision alone (no GPU): the start probe caught a clock still ramping from idle
// (345 MHz of a 1980 MHz H200), the end one is loaded. The two probes alone would fail, so the
// harness re-probes; a re-probe at the loaded clock clears it, one still below 75% confirms it.
TEST(ClockCheck, ReprobeDecidesAShortfall) {
  const double ref = 1.98e9;
  EXPECT_FALSE(clock_needs_reprobe(1.98e9, 1.6e9, ref));
  EXPECT_TRUE(clock_needs_reprobe(345e6, 1.98e9, ref));
  EXPECT_TRUE(clock_needs_reprobe(1.98e9, 1.4e9, ref));
  EXPECT_FALSE(clock_needs_reprobe(345e6, 345e6, 0));     // no reference: nothing to judge
  EXPECT_TRUE(clock_probes_slow(345e6, 1.98e9, 0, ref));  // no re-probe taken
  EXPECT_FALSE(clock_probes_slow(345e6, 1.98e9, 1.95e9, ref));
  EXPECT_FALSE(clock_probes_slow(345e6, 1.98e9, 0.75 * ref, ref));  // at the threshold
  EXPECT_TRUE(clock_probes_slow(1.98e9, 1.2e9, 1.1e9, ref));
  EXPECT_FALSE(clock_probes_slow(1.98e9, 1.6e9, 1.1e9, ref));  // not slow: a re-probe is moot

  Measurement m;
  m.clock_start_hz = 345e6;
  m.clock_end_hz = 1.98e9;
  m.clock_reference_hz = ref;
  m.clock_reference_source = "rated clock";
  EXPECT_EQ(clock_check("s", "c", m).verdict, Verdict::fail);
  m.clock_reprobe_hz = 1.95e9;
  const Check cleared = clock_check("s", "c", m);
  EXPECT_EQ(cleared.verdict, Verdict::pass) << cleared.reason;
  EXPECT_FALSE(clock_throttled(m));
  EXPECT_EQ(cleared.measured, 1.95e9);
  EXPECT_TRUE(contains(cleared.reason, "345 MHz before, 1980 MHz after, re-probed 1950 MHz"))
      << cleared.reason;
  m.clock_reprobe_hz = 1.2e9;
  const Check confirmed = clock_check("s", "c", m);
  EXPECT_EQ(confirmed.verdict, Verdict::fail) << confirmed.reason;
  EXPECT_TRUE(clock_throttled(m));
  // NVML's slowdown is evidence of its own: a re-probe does not clear it.
  m.clock_reprobe_hz = 1.95e9;
  m.clock_reasons_known = true;
  m.clock_event_reasons = 0x40;
  EXPECT_EQ(clock_check("s", "c", m).verdict, Verdict::fail);
  // NVML unknown: the reason says so and why.
  m.clock_reasons_known = false;
  m.clock_reasons_missing = "nvmlDeviceGetHandleByPciBusId_v2(\"00000000:19:00.0\") returned 6";
  const Check unknown = clock_check("s", "c", m);
  EXPECT_EQ(unknown.verdict, Verdict::pass) << unknown.reason;
  EXPECT_TRUE(contains(unknown.reason,
                       "NVML clock events unknown (no throttle evidence): "
                       "nvmlDeviceGetHandleByPciBusId_v2(\"00000000:19:00.0\") "
                       "returned 6"))
      << unknown.reason;
}

}  // namespace
}  // namespace bb
