// The bandwidth suite's checks on synthetic measurements: they pass what follows the laws, fail
// what does not, and skip (with the evidence) what cannot be judged.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "suites/bandwidth/bandwidth_suite.h"

namespace bb::suites {
namespace {

using nlohmann::json;

CaseResult result(std::string name, Backend b, json params, double median_s) {
  CaseResult r;
  r.name = std::move(name);
  r.backend = b;
  r.params = std::move(params);
  r.summary.median_s = median_s;
  r.summary.samples = 5;
  return r;
}

const Check* find(const std::vector<Check>& checks, const std::string& name) {
  for (const auto& c : checks)
    if (c.name == name) return &c;
  return nullptr;
}

// A latency sweep over 4 KiB … 1 GiB (4 points per octave) through an LRU hierarchy with the given
// capacities and latencies (ns), reporting `reported` as the cache sizes.
std::vector<CaseResult> latency_sweep(Backend b, const std::vector<double>& caps,
                                      const std::vector<double>& ns, const json& reported,
                                      bool virtualized = false, int per_octave = 4) {
  std::vector<CaseResult> rs;
  for (std::uint64_t bytes : sweep_sizes(std::uint64_t{1} << 30, per_octave)) {
    std::size_t l = 0;
    while (l < caps.size() && static_cast<double>(bytes) > caps[l]) ++l;
    rs.push_back(result("latency-sweep/" + std::to_string(bytes), b,
                        {{"sweep", "latency"},
                         {"working_set_bytes", bytes},
                         {"steps", 1000},
                         {"virtualized", virtualized},
                         {"cache_levels", reported}},
                        ns[l] * 1e-9 * 1000));
  }
  return rs;
}

json levels(double l1, double l2) {
  return json::array({{{"name", "L1"}, {"bytes", l1}}, {{"name", "L2"}, {"bytes", l2}}});
}

TEST(BandwidthChecks, CapacitiesFromTheLatencyStaircase) {
  const auto rs =
      latency_sweep(Backend::host, {48 << 10, 2 << 20}, {1.3, 4.5, 90}, levels(48 << 10, 2 << 20));
  const auto checks = bandwidth_suite_checks(rs);
  for (const char* n : {"host/latency/L1-capacity", "host/latency/L2-capacity"}) {
    const Check* c = find(checks, n);
    ASSERT_NE(c, nullptr) << n;
    EXPECT_EQ(c->verdict, Verdict::pass) << c->reason;
  }
  const json fig = bandwidth_suite_figures(rs);
  EXPECT_NEAR(fig["host"]["dram_latency_ns"].get<double>(), 90, 1e-6);
  EXPECT_EQ(fig["host"]["latency"]["levels"].size(), 2u);
}

TEST(BandwidthChecks, AWrongReportedSizeFailsOnBareMetalAndSkipsInAVm) {
  // The hardware's L2 is 2 MiB; the report claims 3.5 MiB (ratio 0.57 < 1/1.5).
  const json wrong = levels(48 << 10, 3.5 * (1 << 20));
  const auto bare = bandwidth_suite_checks(
      latency_sweep(Backend::host, {48 << 10, 2 << 20}, {1.3, 4.5, 90}, wrong));
  EXPECT_EQ(find(bare, "host/latency/L2-capacity")->verdict, Verdict::fail);
  const auto vm = bandwidth_suite_checks(
      latency_sweep(Backend::host, {48 << 10, 2 << 20}, {1.3, 4.5, 90}, wrong, true));
  const Check* c = find(vm, "host/latency/L2-capacity");
  EXPECT_EQ(c->verdict, Verdict::skip);
  EXPECT_NE(c->reason.find("hypervisor"), std::string::npos);
}

TEST(BandwidthChecks, NoClearStepIsASkipWithTheEvidence) {
  const auto rs = latency_sweep(Backend::cuda, {48 << 10}, {30, 36}, levels(48 << 10, 50 << 20));
  const auto checks = bandwidth_suite_checks(rs);
  const Check* c = find(checks, "cuda/latency/L2-capacity");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->verdict, Verdict::skip);
  EXPECT_NE(c->reason.find("no clear step"), std::string::npos) << c->reason;
  EXPECT_NE(c->reason.find("plateaus"), std::string::npos) << c->reason;
}

// The CUDA L2 as gpu_levels declares it: the last level before DRAM, in `partitions` parts.
json cuda_l2(double bytes, int partitions) {
  return json::array(
      {{{"name", "L2"}, {"bytes", bytes}, {"last_level", true}, {"partitions", partitions}}});
}

// A one-thread chase on an H100 PCIe at 1755 MHz (te42kyfo/gpu-benches, ../shared/FACTS.md): L1
// 34 cycles to 216 kB, the near L2 partition 265, the far one 475, DRAM 650 cycles. The 50 MiB L2
// is two 25 MiB partitions. Far to DRAM is 1.37x, no clear step: the only step near the L2 is the
// near partition's, at 25 MiB, half the reported size (the rule before this one: ratio 0.5, FAIL).
constexpr double kL2 = 50.0 * (1 << 20);
const std::vector<double> kH100Ns = {34 / 1.755, 265 / 1.755, 475 / 1.755, 650 / 1.755};
const std::vector<double> kH100Caps = {216e3, kL2 / 2, kL2};

// The CUDA L2 check of a sweep (named so: an empty name says it is missing).
Check l2_check(const std::vector<CaseResult>& rs) {
  const std::vector<Check> checks = bandwidth_suite_checks(rs);
  const Check* c = find(checks, "cuda/latency/L2-capacity");
  return c ? *c : Check{};
}

TEST(BandwidthChecks, PartitionedL2PassesAtFullAndQuickDensity) {
  for (int per_octave : {4, 2}) {
    const Check c = l2_check(
        latency_sweep(Backend::cuda, kH100Caps, kH100Ns, cuda_l2(kL2, 2), false, per_octave));
    ASSERT_EQ(c.name, "cuda/latency/L2-capacity");
    EXPECT_EQ(c.verdict, Verdict::pass) << per_octave << ": " << c.reason;
    // Steps at L2/2 and at L2 (a far partition clearly between the near one and DRAM).
    const Check two = l2_check(latency_sweep(Backend::cuda, kH100Caps,
                                             {34 / 1.755, 265 / 1.755, 400 / 1.755, 650 / 1.755},
                                             cuda_l2(kL2, 2), false, per_octave));
    EXPECT_EQ(two.verdict, Verdict::pass) << per_octave << ": " << two.reason;
  }
  const Check c = l2_check(latency_sweep(Backend::cuda, kH100Caps, kH100Ns, cuda_l2(kL2, 2)));
  EXPECT_NE(c.reason.find("2 partitions"), std::string::npos) << c.reason;
  EXPECT_NEAR(c.predicted, kL2, 1);
}

TEST(BandwidthChecks, L2StaircaseFailsAWrongReportedSize) {
  for (int per_octave : {4, 2}) {
    // The hardware's only step at a quarter of the reported L2: the latency has reached DRAM's
    // before the near partition (L2/2) is full.
    const Check quarter = l2_check(latency_sweep(Backend::cuda, {216e3, kL2 / 4}, {19.4, 151, 370},
                                                 cuda_l2(kL2, 2), false, per_octave));
    EXPECT_EQ(quarter.verdict, Verdict::fail) << per_octave << ": " << quarter.reason;
    // The H100's staircase against a report 4x too small and 4x too large.
    for (double reported : {kL2 / 4, kL2 * 4}) {
      const Check wrong = l2_check(latency_sweep(Backend::cuda, kH100Caps, kH100Ns,
                                                 cuda_l2(reported, 2), false, per_octave));
      EXPECT_EQ(wrong.verdict, Verdict::fail) << reported << ": " << wrong.reason;
    }
  }
  // An unpartitioned L2 keeps the band [R/1.5, 1.5 R]: its only step at R/2 fails.
  const Check half =
      l2_check(latency_sweep(Backend::cuda, {216e3, kL2 / 2}, {19.4, 151, 370}, cuda_l2(kL2, 1)));
  EXPECT_EQ(half.verdict, Verdict::fail) << half.reason;
}

TEST(BandwidthChecks, L2StaircaseWithoutADramRiseIsASkip) {
  const Check c = l2_check(latency_sweep(Backend::cuda, {216e3}, {30, 36}, cuda_l2(kL2, 2)));
  ASSERT_EQ(c.name, "cuda/latency/L2-capacity");
  EXPECT_EQ(c.verdict, Verdict::skip) << c.reason;
  EXPECT_NE(c.reason.find("no clear rise"), std::string::npos) << c.reason;
}

std::vector<CaseResult> strided(Backend b, double sector, const std::vector<double>& times) {
  std::vector<CaseResult> rs;
  const double n = 1 << 24;
  std::size_t i = 0;
  for (int s : {1, 2, 4, 8, 16, 32}) {
    CaseResult r = result("strided/s" + std::to_string(s), b,
                          {{"stride_elements", s}, {"element_bytes", 4}, {"sector_bytes", sector}},
                          times.at(i++));
    const double accesses = n / s;
    // 4-byte elements and 32-byte sectors: every sector up to stride 8, one per access beyond.
    r.work.bytes_read = s <= 8 ? n * 4 : accesses * sector;
    rs.push_back(r);
  }
  return rs;
}

// The run's best STREAM, at `times_stride1` times stride 1's rate of units in strided().
CaseResult stream_at(Backend b, double times_stride1) {
  CaseResult copy = result("copy/fp32", b, {{"kernel", "copy"}}, 1.0);
  copy.work.memory_level = "dram";
  copy.work.bytes_read = times_stride1 * (1 << 24) * 4;
  return copy;
}

std::vector<CaseResult> with(std::vector<CaseResult> rs, const CaseResult& r) {
  rs.push_back(r);
  return rs;
}

TEST(BandwidthChecks, SectorModelIsALowerBoundOnTheGpuAndTheHost) {
  const std::vector<double> model = {1, 1, 1, 1, 0.5, 0.25};
  for (const char* s : {"s2", "s4", "s8", "s16", "s32"}) {
    const std::string name = std::string("cuda/strided/") + s + "/sector-model";
    const Check* c = find(bandwidth_suite_checks(strided(Backend::cuda, 32, model)), name);
    ASSERT_NE(c, nullptr) << name;
    EXPECT_EQ(c->verdict, Verdict::pass) << name << ": " << c->reason;
  }
  // Slower than the model: prefetched lines on the host; on the GPU DRAM fetches wider than a
  // sector and the rows a sparse stream opens (GPGPU-Sim SM86_RTX3070: stride 16 at 0.907 of
  // stride 1's time, model 0.5). An expectation missed on both, not a violation.
  const std::vector<double> prefetch = {1, 1, 1, 1, 0.907, 0.8};
  const Check* gpu = find(bandwidth_suite_checks(strided(Backend::cuda, 32, prefetch)),
                          "cuda/strided/s16/sector-model");
  EXPECT_EQ(gpu->verdict, Verdict::pass) << gpu->reason;
  EXPECT_NE(gpu->reason.find("1.81x the touched sectors' time"), std::string::npos) << gpu->reason;
  EXPECT_EQ(find(bandwidth_suite_checks(strided(Backend::host, 64, prefetch)),
                 "host/strided/s32/sector-model")
                ->verdict,
            Verdict::pass);
  // Faster than the bytes the model says must move: a failure on the GPU when stride 1 is shown
  // memory-bound, at 95% of the run's STREAM. On the host stride 16 (a 64-byte step: every line,
  // one load each) moved its lines twice as fast as stride 1: stride 1 was not bound by its lines,
  // the law's premise, and stride 32 is a SKIP with that evidence.
  const std::vector<double> too_fast = {1, 1, 1, 1, 0.5, 0.1};
  EXPECT_EQ(find(bandwidth_suite_checks(with(strided(Backend::cuda, 32, too_fast),
                                             stream_at(Backend::cuda, 1 / 0.95))),
                 "cuda/strided/s32/sector-model")
                ->verdict,
            Verdict::fail);
  EXPECT_EQ(find(bandwidth_suite_checks(strided(Backend::host, 64, too_fast)),
                 "host/strided/s32/sector-model")
                ->verdict,
            Verdict::skip);
  // Premise met (strides 2-16 at stride 1's time), stride 32 moving half of stride 1's lines in
  // 0.1 of its time: a shorter case, which load slows less (two CI runs side by side: 32-48 GB/s of
  // lines at stride 32, 9-13 at stride 1), so its undercut is a SKIP that says so (the suite's host
  // strides move all of stride 1's lines: HostSectorModelFailsAgainstTheStridesSharingItsLines).
  const Check* shorter =
      find(bandwidth_suite_checks(strided(Backend::host, 64, {1, 1, 1, 1, 1, 0.1})),
           "host/strided/s32/sector-model");
  EXPECT_EQ(shorter->verdict, Verdict::skip) << shorter->reason;
  EXPECT_NE(shorter->reason.find("moves 0.50 of stride 1's lines, a shorter case"),
            std::string::npos)
      << shorter->reason;
}

// On the GPU the sector model is a lower bound with 20% tolerance: stride 32's time ratio (model
// 0.25) at 0.79 × the model FAILs, at 0.81 × PASSes, and above the model (1.21 ×, 3.6 ×) PASSes.
// Below the model stride 32 moves its sectors faster than stride 1: the run's STREAM (stride 1 at
// 95% of it) carries the premise.
TEST(BandwidthChecks, CudaSectorModelJustOutsideAndJustInsideItsBand) {
  for (const double by : {3.6, 1.21, 1.19, 0.81, 0.79}) {
    const std::vector<double> times = {1, 1, 1, 1, 0.5, 0.25 * by};
    const Check* c = find(bandwidth_suite_checks(with(strided(Backend::cuda, 32, times),
                                                      stream_at(Backend::cuda, 1 / 0.95))),
                          "cuda/strided/s32/sector-model");
    ASSERT_NE(c, nullptr) << by;
    EXPECT_NEAR(c->measured, 0.25 * by, 1e-12) << by;
    EXPECT_EQ(c->verdict, by < 0.8 ? Verdict::fail : Verdict::pass) << by << ": " << c->reason;
  }
}

// A stride whose threads get fewer loads than the kernel keeps in flight is latency-bound:
// GPGPU-Sim's RTX 3070 at 2^21 floats gave stride 32 (0.93 loads per thread) 0.55-0.60 x stride
// 1's time against the model's 0.25. Not judged with the count; at 8 loads per thread the same
// stride 32 in 0.15 of stride 1's time (fewer bytes than its sectors) FAILs.
TEST(BandwidthChecks, CudaSectorModelNeedsEveryThreadsLoadsInFlight) {
  const std::vector<double> latency_bound = {1, 1, 1, 1, 0.5, 0.15};
  for (const double threads : {(1 << 24) / 32 / 0.93, (1 << 24) / 32 / 8.0}) {
    std::vector<CaseResult> rs = strided(Backend::cuda, 32, latency_bound);
    for (auto& r : rs) {
      const double s = r.params["stride_elements"].get<double>();
      r.params["accesses"] = (1 << 24) / s;
      r.params["threads"] = threads;
      r.params["loads_in_flight_per_thread"] = 8;
    }
    const Check* c = find(bandwidth_suite_checks(with(rs, stream_at(Backend::cuda, 1 / 0.95))),
                          "cuda/strided/s32/sector-model");
    ASSERT_NE(c, nullptr);
    const bool starved = (1 << 24) / 32 / threads < 8;
    EXPECT_EQ(c->verdict, starved ? Verdict::skip : Verdict::fail) << c->reason;
    if (starved) {
      EXPECT_NE(c->reason.find("stride 32: 0.93 loads per thread, under the 8"), std::string::npos)
          << c->reason;
      // Stride 16 (1.9 loads per thread) is as short; stride 1 (30 per thread) is not.
      EXPECT_EQ(find(bandwidth_suite_checks(with(rs, stream_at(Backend::cuda, 1 / 0.95))),
                     "cuda/strided/s16/sector-model")
                    ->verdict,
                Verdict::skip);
    }
  }
}

// Sampled in rounds whose slow spells (a factor 1 … 2.6 common to the round) are far wider than
// the law's 20% band: each case's own median interval straddles it, the pairs do not.
void in_rounds(std::vector<CaseResult>& rs) {
  const std::vector<double> spell = {1.0, 2.2, 1.1, 1.6, 2.6, 1.0, 1.3, 2.0, 1.2, 1.7};
  for (auto& r : rs) {
    r.paired_group = "g";
    r.paired_run = 1;
    for (std::size_t q = 0; q < spell.size(); ++q)
      r.round_samples_s.push_back(r.summary.median_s * spell[q] *
                                  (1 + 0.001 * static_cast<double>(q % 3)));
    r.summary = summarize(r.round_samples_s);
    r.round_confidence = r.summary.median_ci_confidence;
  }
}

TEST(BandwidthChecks, PairedRoundsJudgeTheSectorModelWhereTheMediansCannot) {
  const std::vector<double> model = {1, 1, 1, 1, 0.5, 0.25};
  auto rs = strided(Backend::cuda, 32, model);
  in_rounds(rs);
  const Check* paired = find(bandwidth_suite_checks(rs), "cuda/strided/s16/sector-model");
  EXPECT_EQ(paired->verdict, Verdict::pass) << paired->reason;
  EXPECT_NE(paired->reason.find("paired: median of 10 per-round ratios"), std::string::npos);
  EXPECT_LT(paired->interval.high - paired->interval.low, 0.01);
  // The same samples, sampled apart: the medians' intervals keep the spells.
  for (auto& r : rs) r.paired_group.clear(), r.round_samples_s.clear();
  const Check* unpaired = find(bandwidth_suite_checks(rs), "cuda/strided/s16/sector-model");
  EXPECT_EQ(unpaired->verdict, Verdict::inconclusive) << unpaired->reason;
  // A violation stays one: stride 32 in a fifth of its sectors' time fails, paired (and the
  // medians' intervals, the guard, agree).
  auto fast = strided(Backend::cuda, 32, {1, 1, 1, 1, 0.5, 0.05});
  in_rounds(fast);
  // Stride 1 shown memory-bound: as fast as the run's STREAM.
  fast.push_back(stream_at(Backend::cuda, 1 / fast.front().summary.median_s));
  EXPECT_EQ(find(bandwidth_suite_checks(fast), "cuda/strided/s32/sector-model")->verdict,
            Verdict::fail);
}

// The CUDA law's premise, stride 1 memory-bound, judged as on the host (no stride moves its
// sectors 1.2x faster) or by the run's STREAM (stride 1 at >= 90% of it). The times the review of
// issue 26 predicted for an H200 with one 4-byte load in flight per thread: stride 1 latency-bound
// at ~45% of STREAM, the wider strides faster per sector. Judged, every stride FAILs the equality;
// the premise makes them SKIPs that say why.
TEST(BandwidthChecks, CudaSectorModelChecksItsPremise) {
  const std::vector<double> latency_bound = {1, 0.5, 0.45, 0.45, 0.23, 0.13};
  for (double stream : {0.0, 2.2}) {
    auto rs = strided(Backend::cuda, 32, latency_bound);
    if (stream > 0) rs.push_back(stream_at(Backend::cuda, stream));
    const std::vector<Check> checks = bandwidth_suite_checks(rs);
    for (const char* s : {"s2", "s4", "s8", "s16", "s32"}) {
      const Check* c = find(checks, std::string("cuda/strided/") + s + "/sector-model");
      ASSERT_NE(c, nullptr) << s;
      EXPECT_EQ(c->verdict, Verdict::skip) << s << ": " << c->reason;
      EXPECT_NE(c->reason.find("premise not met"), std::string::npos) << c->reason;
      if (stream > 0) {
        EXPECT_NE(c->reason.find("stride 1 at 45% of it"), std::string::npos) << c->reason;
      }
    }
  }
  // Premise held by STREAM (stride 1 at 95% of it) and a ratio off: stride 32 in 0.1 of stride
  // 1's time moved its counted sectors 2.5x faster than memory did for stride 1: FAIL. The ratios
  // that follow the model PASS beside it.
  const std::vector<Check> off = bandwidth_suite_checks(
      with(strided(Backend::cuda, 32, {1, 1, 1, 1, 0.5, 0.1}), stream_at(Backend::cuda, 1 / 0.95)));
  EXPECT_EQ(find(off, "cuda/strided/s32/sector-model")->verdict, Verdict::fail);
  EXPECT_EQ(find(off, "cuda/strided/s16/sector-model")->verdict, Verdict::pass);
  // The same with stride 1 at 85% of STREAM: not shown memory-bound, and a faster stride: SKIP.
  EXPECT_EQ(find(bandwidth_suite_checks(with(strided(Backend::cuda, 32, {1, 1, 1, 1, 0.5, 0.1}),
                                             stream_at(Backend::cuda, 1 / 0.85))),
                 "cuda/strided/s32/sector-model")
                ->verdict,
            Verdict::skip);
  // Premise held by STREAM, every ratio on the model: PASS.
  const std::vector<Check> right = bandwidth_suite_checks(
      with(strided(Backend::cuda, 32, {1, 1, 1, 1, 0.5, 0.25}), stream_at(Backend::cuda, 1.05)));
  for (const char* s : {"s2", "s4", "s8", "s16", "s32"})
    EXPECT_EQ(find(right, std::string("cuda/strided/") + s + "/sector-model")->verdict,
              Verdict::pass)
        << s;
}

// An intensity sweep on a machine with peak P and bandwidth B: t = max(flop / P, bytes / B).
std::vector<CaseResult> intensity(double peak, double bw, double table_peak, double table_bw) {
  std::vector<CaseResult> rs;
  const double n = 1 << 24;
  for (int k = 1; k <= 1024; k *= 2) {
    CaseResult r = result("intensity/fp32/cuda/k" + std::to_string(k), Backend::cuda,
                          {{"dtype", "fp32"},
                           {"fma_per_element", k},
                           {"peak_flop_per_s", table_peak},
                           {"peak_bytes_per_s", table_bw}},
                          0);
    r.work.bytes_read = r.work.bytes_written = 4 * n;
    r.work.flop = 2.0 * k * n;
    r.summary.median_s = r.summary.min_s = std::max(r.work.flop / peak, r.work.bytes() / bw);
    rs.push_back(r);
  }
  return rs;
}

// The host law's premise: stride 1 limited by memory. A stride that moves its lines 3.3x faster
// than stride 1 did shows a core-bound stride 1: a SKIP that says why, whatever the run's STREAM
// (measured at another moment, it is no bound on what memory gave the strides: CI saw a false
// FAIL from that rule under load).
TEST(BandwidthChecks, HostSectorModelChecksItsPremiseAgainstTheRunsStream) {
  const std::vector<double> core_bound = {1, 0.6, 0.6, 0.6, 0.3, 0.15};
  const auto with_stream = [&](double stream_over_stride1) {
    auto rs = strided(Backend::host, 64, core_bound);
    CaseResult copy = result("copy/fp64/host", Backend::host, {{"kernel", "copy"}}, 1.0);
    copy.work.bytes_read = stream_over_stride1 * rs.front().work.bytes_read;
    rs.push_back(copy);
    return bandwidth_suite_checks(rs);
  };
  const std::vector<Check> checks = with_stream(2.0);
  const Check* skipped = find(checks, "host/strided/s4/sector-model");
  EXPECT_EQ(skipped->verdict, Verdict::skip) << skipped->reason;
  EXPECT_NE(skipped->reason.find("premise not met"), std::string::npos) << skipped->reason;
  EXPECT_EQ(find(with_stream(1.0), "host/strided/s4/sector-model")->verdict, Verdict::skip);
}

// The host suite's strided reads (hierarchy_host.cpp): doubles, 64-byte lines, 2^25 elements;
// strides past a line read the array in passes, so every stride moves all its lines. Times in ms.
// Paired: 21 rounds whose slow spells (up to 7%, common to the round) each case shares.
std::vector<CaseResult> host_strided(const std::vector<double>& ms, bool paired = false) {
  const std::vector<double> spell = {1.00, 1.03, 0.99, 1.07, 1.01, 1.00, 1.02,
                                     1.05, 0.99, 1.01, 1.04, 1.00, 1.02, 0.98,
                                     1.06, 1.01, 1.00, 1.03, 1.02, 0.99, 1.01};
  std::vector<CaseResult> rs;
  const double n = 1 << 25;
  std::size_t i = 0;
  for (int s : {1, 2, 4, 8, 16, 32}) {
    CaseResult r = result("strided/fp64/host/s" + std::to_string(s), Backend::host,
                          {{"stride_elements", s},
                           {"element_bytes", 8},
                           {"sector_bytes", 64},
                           {"accesses", n / s},
                           {"passes", std::max(1, s / 8)}},
                          ms.at(i++) * 1e-3);
    r.work.bytes_read = n * 8;
    if (paired) {
      r.paired_group = "strided", r.paired_run = 1;
      for (std::size_t q = 0; q < spell.size(); ++q)
        r.round_samples_s.push_back(r.summary.median_s * spell[q] *
                                    (1 + 0.004 * static_cast<double>((q + i) % 3)));
      r.summary = summarize(r.round_samples_s);
      r.round_confidence = r.summary.median_ci_confidence;
    }
    rs.push_back(r);
  }
  return rs;
}

// The host law can FAIL: its premise (stride 1 bound by its lines) is judged on the strides that
// read all of stride 1's lines with fewer loads (2, 4 and 8), never on the stride judged. Stride 1
// in 6.93 ms (the idle EPYC's run.json), strides 2-8 within 7% of it: stride 16 in 0.79 of its
// time moved its lines 1.27x faster than stride 1 (fewer lines than counted): FAIL; 0.81: PASS.
TEST(BandwidthChecks, HostSectorModelFailsAgainstTheStridesSharingItsLines) {
  for (const double by : {0.79, 0.81, 1.02}) {
    const auto checks =
        bandwidth_suite_checks(host_strided({6.93, 6.49, 6.56, 7.35, 6.93 * by, 7.1}));
    const Check* c = find(checks, "host/strided/s16/sector-model");
    ASSERT_NE(c, nullptr) << by;
    EXPECT_NEAR(c->measured, by, 1e-12) << by;
    EXPECT_EQ(c->verdict, by < 0.8 ? Verdict::fail : Verdict::pass) << by << ": " << c->reason;
    for (const char* s : {"s2", "s4", "s8", "s32"})
      EXPECT_EQ(find(checks, std::string("host/strided/") + s + "/sector-model")->verdict,
                Verdict::pass)
          << s;
  }
  // Sampled in rounds: stride 16 in 0.70 of stride 1's time FAILs on the per-round ratios, the
  // medians' own intervals agreeing (the guard); 0.90 PASSes.
  for (const double by : {0.70, 0.90}) {
    const auto checks =
        bandwidth_suite_checks(host_strided({6.93, 6.49, 6.56, 7.35, 6.93 * by, 7.1}, true));
    const Check* c = find(checks, "host/strided/s16/sector-model");
    EXPECT_EQ(c->verdict, by < 0.8 ? Verdict::fail : Verdict::pass) << by << ": " << c->reason;
    EXPECT_NE(c->reason.find("paired: median of 21 per-round ratios"), std::string::npos);
  }
  // One of the strides sharing stride 1's lines fast alone: judged on the others, it FAILs (and,
  // itself evidence for the rest, leaves them unjudged).
  const auto alone = bandwidth_suite_checks(host_strided({6.93, 6.9, 4.5, 7.0, 7.0, 7.0}));
  EXPECT_EQ(find(alone, "host/strided/s4/sector-model")->verdict, Verdict::fail);
  EXPECT_EQ(find(alone, "host/strided/s2/sector-model")->verdict, Verdict::skip);
}

// A core-bound stride 1 (its 8 loads a line, not its lines, set its time): strides 2-8 read the
// same lines 1.7-2x faster, and the strides past a line (one load a line) as fast. Not judged, at
// any stride, with the evidence; nor where no other stride reads all of stride 1's lines.
TEST(BandwidthChecks, HostSectorModelSkipsWhereStride1IsBoundByItsLoads) {
  const auto checks = bandwidth_suite_checks(host_strided({12.0, 7.0, 6.3, 6.1, 6.2, 6.4}));
  for (const char* s : {"s2", "s4", "s8", "s16", "s32"}) {
    const Check* c = find(checks, std::string("host/strided/") + s + "/sector-model");
    ASSERT_NE(c, nullptr) << s;
    EXPECT_EQ(c->verdict, Verdict::skip) << s << ": " << c->reason;
    EXPECT_NE(c->reason.find("premise not met: stride 1 is not memory-bound"), std::string::npos)
        << c->reason;
  }
  // Partly bound by its loads (t = lines x L + loads x c, c = 5% of a line's L): the fewer loads
  // a line the faster, stride 2 1.17x, stride 4 1.27x, stride 8 and past 1.33x. Stride 2 alone
  // would not show it; stride 8 among the evidence does, and stride 4 is no violation.
  const auto partly = bandwidth_suite_checks(host_strided({7.0, 6.0, 5.5, 5.25, 5.25, 5.25}));
  for (const char* s : {"s2", "s4", "s8", "s16", "s32"})
    EXPECT_EQ(find(partly, std::string("host/strided/") + s + "/sector-model")->verdict,
              Verdict::skip)
        << s;
  // Strides 1 and 16 only: nothing shows stride 1 bound by its lines.
  auto two = host_strided({6.93, 6.9, 6.9, 6.9, 4.0, 6.9});
  two.erase(std::remove_if(two.begin(), two.end(),
                           [](const CaseResult& r) {
                             const double s = r.params["stride_elements"].get<double>();
                             return s != 1 && s != 16;
                           }),
            two.end());
  const Check* alone = find(bandwidth_suite_checks(two), "host/strided/s16/sector-model");
  EXPECT_EQ(alone->verdict, Verdict::skip) << alone->reason;
  EXPECT_NE(alone->reason.find("no stride other than 16 reads stride 1's lines"), std::string::npos)
      << alone->reason;
}

TEST(BandwidthChecks, IntensitySweepFollowsTheRooflineAndFindsTheRidge) {
  const auto ok = bandwidth_suite_checks(intensity(60e12, 4e12, 67e12, 4.8e12));
  EXPECT_EQ(find(ok, "cuda/intensity/fp32/attainable")->verdict, Verdict::pass);
  const Check* ridge = find(ok, "cuda/intensity/fp32/ridge-point");
  EXPECT_EQ(ridge->verdict, Verdict::pass) << ridge->reason;
  EXPECT_NEAR(ridge->measured, 15, 1e-9);
  // A device that reaches a third of its table peak: the measured ridge is 3x off, a finding
  // (an expectation missed), not a failure.
  const std::vector<Check> third = bandwidth_suite_checks(intensity(20e12, 4e12, 67e12, 4.8e12));
  const Check* off = find(third, "cuda/intensity/fp32/ridge-point");
  EXPECT_EQ(off->verdict, Verdict::below_expectation);
  EXPECT_EQ(off->kind, CheckKind::expectation);
  // One point twice as slow as even the serial sum of its costs: not the roofline's shape, but
  // slower than a bound is no violation of it — a finding (an expectation missed), not a failure.
  auto slow = intensity(60e12, 4e12, 67e12, 4.8e12);
  slow[5].summary.min_s *= 4;
  const std::vector<Check> slow_checks = bandwidth_suite_checks(slow);
  const Check* attainable = find(slow_checks, "cuda/intensity/fp32/attainable");
  EXPECT_EQ(attainable->verdict, Verdict::below_expectation);
  EXPECT_EQ(attainable->kind, CheckKind::expectation);
  const json fig = bandwidth_suite_figures(intensity(60e12, 4e12, 67e12, 4.8e12));
  EXPECT_NEAR(fig["cuda"]["ceilings"]["fp32"]["ridge_flop_per_byte"].get<double>(), 15, 1e-9);
}

TEST(BandwidthChecks, PairedIntensityJudgesEachRoundAgainstItsOwnCeilings) {
  auto rs = intensity(60e12, 4e12, 67e12, 4.8e12);
  in_rounds(rs);
  const auto checks = bandwidth_suite_checks(rs);
  const Check* attainable = find(checks, "cuda/intensity/fp32/attainable");
  EXPECT_EQ(attainable->verdict, Verdict::pass) << attainable->reason;
  EXPECT_NE(attainable->reason.find("paired"), std::string::npos) << attainable->reason;
  const Check* ridge = find(checks, "cuda/intensity/fp32/ridge-point");
  EXPECT_EQ(ridge->verdict, Verdict::pass) << ridge->reason;
  EXPECT_NEAR(ridge->interval.value, 15, 0.1);
}

TEST(SweepSizes, SpanFourKibToTheMaximumWithoutDuplicates) {
  const auto s = sweep_sizes(std::uint64_t{1} << 30, 4);
  EXPECT_EQ(s.front(), 4096u);
  EXPECT_GE(s.back(), std::uint64_t{1} << 30);
  for (std::size_t i = 1; i < s.size(); ++i) {
    EXPECT_GT(s[i], s[i - 1]);
    EXPECT_EQ(s[i] % 512, 0u);
  }
  EXPECT_EQ(s.size(), 4u * 18 + 1);  // 18 octaves from 2^12 to 2^30
}

TEST(HostCacheLevels, PrivateCachesCountOncePerThread) {
  HostInfo h;
  h.caches = {{1, "Data", 48 << 10, 1},
              {1, "Instruction", 32 << 10, 1},
              {2, "Unified", 2 << 20, 1},
              {3, "Unified", 32 << 20, 8}};
  const json one = host_cache_levels(h, 1), four = host_cache_levels(h, 4);
  ASSERT_EQ(one.size(), 3u);
  EXPECT_EQ(one[0]["bytes"], 48 << 10);
  EXPECT_EQ(four[0]["bytes"], 4 * (48 << 10));
  EXPECT_EQ(four[1]["bytes"], 4 * (2 << 20));
  EXPECT_EQ(four[2]["bytes"], 32 << 20);  // shared by 8 CPUs: one copy for 4 threads
}

}  // namespace
}  // namespace bb::suites
