// The occupancy suite's checks on synthetic measurements: they pass what follows the laws and fail
// what does not. (The kernels themselves are tested on a GPU.)
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "suites/occupancy/occupancy_suite.h"

namespace bb::suites {
namespace {

CaseResult result(const std::string& name, nlohmann::json params, double median_s) {
  CaseResult r;
  r.name = name;
  r.backend = Backend::cuda;
  r.params = std::move(params);
  r.summary.median_s = median_s;
  r.summary.samples = 10;
  return r;
}

const Check* find(const std::vector<Check>& checks, const std::string& name) {
  for (const auto& c : checks)
    if (c.name == name) return &c;
  return nullptr;
}

TEST(MaxCoResident, CountsOverlapsPerSm) {
  using kernels::BlockRecord;
  const std::vector<BlockRecord> r = {{0, 0, 0, 100},   {1, 0, 10, 110},
                                      {2, 0, 20, 120},   // three overlap on SM 0
                                      {3, 0, 120, 200},  // starts as block 2 ends: no overlap
                                      {4, 1, 0, 100},   {5, 1, 100, 200}};  // back to back on SM 1
  EXPECT_EQ(max_co_resident(r), 3);
  EXPECT_EQ(max_co_resident({}), 0);
}

TEST(OccupancySuiteChecks, WavesPassWhenTimeStepsAtMultiplesOfAWave) {
  const double wave = 55e-6;
  std::vector<CaseResult> rs;
  auto add = [&](const char* name, int blocks, double t) {
    rs.push_back(result(name, {{"blocks", blocks}, {"blocks_per_wave", 1056}}, t));
  };
  add("waves/1", 1, wave * 0.98);
  add("waves/full", 1056, wave);
  add("waves/full+1", 1057, 1.95 * wave);
  add("waves/triple", 3168, 2.9 * wave);
  const auto checks = occupancy_suite_checks(rs);
  ASSERT_EQ(checks.size(), 4u);
  for (const auto& c : checks) EXPECT_EQ(c.verdict, Verdict::pass) << c.name << ": " << c.reason;
  EXPECT_EQ(find(checks, "waves/full+1/waves")->predicted, 2);

  rs[2].summary.median_s = wave * 1.02;  // no step after one more block: the model is wrong
  const auto bad = occupancy_suite_checks(rs);
  EXPECT_EQ(find(bad, "waves/full+1/waves")->verdict, Verdict::fail);
}

TEST(OccupancySuiteChecks, DivergenceAndBankConflictsAreLinear) {
  std::vector<CaseResult> rs;
  for (int k : {1, 2, 4, 8, 16, 32})
    rs.push_back(result("divergence/paths=" + std::to_string(k), {{"paths", k}}, 2e-6 + 35e-6 * k));
  for (int s : {1, 2, 4, 8, 16, 32})
    rs.push_back(result("bank_conflicts/stride=" + std::to_string(s),
                        {{"stride_words", s}, {"conflict_ways", s}}, 20e-6 + 10e-6 * s));
  rs.push_back(
      result("bank_conflicts/stride=33", {{"stride_words", 33}, {"conflict_ways", 1}}, 31e-6));
  auto checks = occupancy_suite_checks(rs);
  ASSERT_NE(find(checks, "divergence/linear"), nullptr);
  EXPECT_EQ(find(checks, "divergence/linear")->verdict, Verdict::pass);
  EXPECT_EQ(find(checks, "bank_conflicts/linear")->verdict, Verdict::pass);
  EXPECT_EQ(find(checks, "bank_conflicts/padded")->verdict, Verdict::pass);

  // Time that does not grow with the paths (no serialization seen) fails the divergence law.
  for (auto& r : rs)
    if (r.name.rfind("divergence/", 0) == 0) r.summary.median_s = 40e-6;
  rs.back().summary.median_s = 300e-6;  // padding did not help
  checks = occupancy_suite_checks(rs);
  EXPECT_EQ(find(checks, "divergence/linear")->verdict, Verdict::fail);
  EXPECT_EQ(find(checks, "bank_conflicts/padded")->verdict, Verdict::fail);
}

TEST(OccupancySuiteChecks, LatencyHidingFollowsLittlesLaw) {
  // 600 ns latency; 132 SMs x 512 B per warp; bandwidth rises linearly until 32 warps/SM, then
  // flat at 4 TB/s: Little's law says 4e12 x 600e-9 / (132 x 512) = 35.5 warps.
  std::vector<CaseResult> rs;
  rs.push_back(result("latency/dram", {{"steps", 65536}}, 65536 * 600e-9));
  for (int w : {4, 8, 16, 32, 48, 64}) {
    const double bw = 4e12 * std::min(1.0, w / 32.0);
    CaseResult r = result(
        "latency_hiding/warps_per_sm=" + std::to_string(w),
        {{"warps_per_sm", w}, {"sm_count", 132}, {"bytes_in_flight_per_warp", 512}}, 1.0737e9 / bw);
    r.work.bytes_read = 1.0737e9;
    rs.push_back(r);
  }
  auto checks = occupancy_suite_checks(rs);
  const Check* k = find(checks, "latency_hiding/littles_law");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->verdict, Verdict::pass) << k->reason;
  EXPECT_EQ(k->measured, 32);
  EXPECT_NEAR(k->predicted, 35.5, 0.1);
  // A plateau reached already at 4 warps/SM is 8x sooner than Little's law allows: FAIL.
  for (auto& r : rs)
    if (r.name.rfind("latency_hiding/", 0) == 0) r.summary.median_s = 1.0737e9 / 4e12;
  checks = occupancy_suite_checks(rs);
  EXPECT_EQ(find(checks, "latency_hiding/littles_law")->verdict, Verdict::fail);
}

// The band is [L/2, 2L] around Little's law L = BW × latency / (SMs × bytes per warp), the plateau
// at 32 warps/SM: L = 4e12 × latency / (132 × 512) is 16 at 270.336 ns and 64 at 1081.344 ns, so
// 32 is just outside at 269.5 ns (L = 15.95, band up to 31.9) and 1082 ns (L = 64.04, from
// 32.02), just inside at 271 ns (band up to 32.08) and 1081 ns (from 31.99).
TEST(OccupancySuiteChecks, LittlesLawJustOutsideAndJustInsideItsBand) {
  for (const double latency_s : {269.5e-9, 271e-9, 1081e-9, 1082e-9}) {
    std::vector<CaseResult> rs;
    rs.push_back(result("latency/dram", {{"steps", 65536}}, 65536 * latency_s));
    for (int w : {4, 8, 16, 32, 48, 64}) {
      const double bw = 4e12 * std::min(1.0, w / 32.0);
      CaseResult r =
          result("latency_hiding/warps_per_sm=" + std::to_string(w),
                 {{"warps_per_sm", w}, {"sm_count", 132}, {"bytes_in_flight_per_warp", 512}},
                 1.0737e9 / bw);
      r.work.bytes_read = 1.0737e9;
      rs.push_back(r);
    }
    const Check* k = find(occupancy_suite_checks(rs), "latency_hiding/littles_law");
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->measured, 32);
    EXPECT_NEAR(k->predicted, 4e12 * latency_s / (132 * 512), 1e-9);
    const bool inside = latency_s == 271e-9 || latency_s == 1081e-9;
    EXPECT_EQ(k->verdict, inside ? Verdict::pass : Verdict::fail) << latency_s << ": " << k->reason;
  }
}

TEST(OccupancySuiteChecks, SpillsAreSeenInTheCappedKernelOnly) {
  std::vector<CaseResult> rs = {
      result("spills/uncapped", {{"registers_per_thread", 71}, {"local_bytes_per_thread", 0}},
             1e-3),
      result("spills/capped", {{"registers_per_thread", 32}, {"local_bytes_per_thread", 280}},
             1.6e-3)};
  auto checks = occupancy_suite_checks(rs);
  const Check* k = find(checks, "spills/forced");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->verdict, Verdict::pass) << k->reason;
  EXPECT_DOUBLE_EQ(k->measured, 280);  // local bytes per thread; the slowdown is told
  EXPECT_NE(k->reason.find("slowdown 1.60x"), std::string::npos) << k->reason;
  EXPECT_EQ(find(checks, "spills/uncapped")->verdict, Verdict::pass);
  rs[1].params["local_bytes_per_thread"] = 0;  // no spill where one was forced: FAIL
  EXPECT_EQ(find(occupancy_suite_checks(rs), "spills/forced")->verdict, Verdict::fail);
  rs[0].params["local_bytes_per_thread"] = 8;  // the uncapped kernel spills: FAIL
  EXPECT_EQ(find(occupancy_suite_checks(rs), "spills/uncapped")->verdict, Verdict::fail);
}

TEST(OccupancySuiteChecks, MissingPartnersAreSkippedWithTheReason) {
  std::vector<CaseResult> rs = {
      result("waves/double", {{"blocks", 2112}, {"blocks_per_wave", 1056}}, 1e-4),
      result("spills/capped", {{"registers_per_thread", 32}, {"local_bytes_per_thread", 280}},
             1e-3),
      result("host/read", {{"threads", 2}}, 0.2)};
  const auto checks = occupancy_suite_checks(rs);
  for (const char* name : {"waves", "spills/forced", "host/littles_law"}) {
    const Check* k = find(checks, name);
    ASSERT_NE(k, nullptr) << name;
    EXPECT_EQ(k->verdict, Verdict::skip);
    EXPECT_NE(k->reason.find("not measured"), std::string::npos) << k->reason;
  }
}

TEST(OccupancySuiteChecks, HostLittlesLaw) {
  // 100 ns latency, 4 GB read in 0.2 s = 20 GB/s: 20e9 x 100e-9 / 64 = 31.25 lines in flight.
  std::vector<CaseResult> rs = {result("host/latency", {{"steps", 1000}}, 1000 * 100e-9),
                                result("host/read",
                                       {{"threads", 2},
                                        {"cores", 2},
                                        {"fp64_lanes", 8},
                                        {"parallel_fp64_lanes", 16},
                                        {"line_bytes", 64}},
                                       0.2)};
  rs[1].work.bytes_read = 4e9;
  auto checks = occupancy_suite_checks(rs);
  const Check* k = find(checks, "host/littles_law");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->verdict, Verdict::pass) << k->reason;
  EXPECT_NEAR(k->measured, 31.25, 1e-9);
  EXPECT_NE(k->reason.find("2 cores x 8 fp64 lanes = 16"), std::string::npos) << k->reason;
  // Streaming slower than one chasing thread per core cannot be right: FAIL.
  rs[1].summary.median_s = 100.0;
  EXPECT_EQ(find(occupancy_suite_checks(rs), "host/littles_law")->verdict, Verdict::fail);
  // Judged from the medians' intervals: one that reaches below `threads` lines is too noisy to
  // judge; one entirely above passes.
  rs[1].summary.median_s = 0.2;
  for (auto* r : {&rs[0], &rs[1]}) {
    r->summary.median_ci_low_s = 0.9 * r->summary.median_s;
    r->summary.median_ci_high_s = 1.1 * r->summary.median_s;
    r->summary.median_ci_coverage = 0.97;
  }
  EXPECT_EQ(find(occupancy_suite_checks(rs), "host/littles_law")->verdict, Verdict::pass);
  rs[1].summary.median_s = 3.0;  // 2.08 lines: its interval [1.71, 2.55] straddles 2
  rs[1].summary.median_ci_low_s = 2.7, rs[1].summary.median_ci_high_s = 3.3;
  const auto noisy_checks = occupancy_suite_checks(rs);
  const Check* noisy = find(noisy_checks, "host/littles_law");
  EXPECT_EQ(noisy->verdict, Verdict::inconclusive) << noisy->reason;
}

}  // namespace
}  // namespace bb::suites
