// `boundbench compare`: the rank test on hand-worked data, verdicts on synthetic runs, and every
// kind of bad input named in one line.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <vector>

#include "harness/change_interval.h"
#include "harness/fingerprint.h"
#include "harness/regression.h"

namespace bb {
namespace {

using json = nlohmann::json;

TEST(MannWhitney, HandWorked) {
  // Complete separation of 5 vs 5: U = 0, mu = 12.5, sigma = sqrt(25/12 * 11) = 4.787;
  // z = (12.5 - 0.5) / 4.787 = 2.507 -> two-sided p = 0.01219.
  const std::vector<double> a = {1, 2, 3, 4, 5}, b = {6, 7, 8, 9, 10};
  EXPECT_NEAR(mann_whitney_p(a, b), 0.01219, 5e-5);
  EXPECT_NEAR(mann_whitney_p(b, a), 0.01219, 5e-5);
  const std::vector<double> same = {3, 3, 3}, one = {1};
  EXPECT_DOUBLE_EQ(mann_whitney_p(same, same), 1.0);
  EXPECT_TRUE(std::isnan(mann_whitney_p(one, a)));
  // Against scipy.stats.mannwhitneyu(method="asymptotic"), an independent implementation:
  const std::vector<double> mixed_a = {1, 3, 5, 7}, mixed_b = {2, 4, 6, 8};
  EXPECT_NEAR(mann_whitney_p(mixed_a, mixed_b), 0.6650055421020291, 1e-12);
  const std::vector<double> tied_a = {1, 2, 2, 3, 3, 3}, tied_b = {2, 3, 3, 4, 4, 5, 5};
  EXPECT_NEAR(mann_whitney_p(tied_a, tied_b), 0.04535219143280889, 1e-12);
}

json run(const std::string& device, const std::vector<std::pair<std::string, double>>& cases,
         double noise = 0.01, int repetitions = 1) {
  json benchmarks = json::array();
  for (int rep = 0; rep < repetitions; ++rep)
    for (const auto& [name, t] : cases)
      benchmarks.push_back({{"name", name},
                            {"run_type", "iteration"},
                            {"repetition_index", rep},
                            {"median_s", t * (1 + 0.001 * rep)},
                            {"rel_noise", noise},
                            {"pct_of_bound", 50.0 * 1e-3 / t}});
  return {{"context",
           {{"boundbench",
             {{"schema_version", 1},
              {"gpus", {{"usable", true}, {"devices", {{{"name", device}}}}}},
              {"host", {{"cpu_model", "cpu"}}}}}}},
          {"benchmarks", benchmarks},
          {"checks", json::array({{{"suite", "s"}, {"name", "a/validate"}, {"verdict", "PASS"}}})}};
}

const CaseDelta& delta(const RunComparison& c, const std::string& name) {
  for (const auto& d : c.cases)
    if (d.name == name) return d;
  throw std::runtime_error("no case " + name);
}

TEST(CompareRuns, VerdictsFromChangeAndNoise) {
  const json base = run("H200", {{"a", 1e-3}, {"b", 1e-3}, {"c", 1e-3}, {"d", 1e-3}});
  const json next = run("H200", {{"a", 1.02e-3}, {"b", 1.5e-3}, {"c", 0.7e-3}, {"e", 1e-3}});
  const RunComparison c = compare_runs(base, next, {});
  EXPECT_EQ(delta(c, "a").verdict, "SAME");
  EXPECT_EQ(delta(c, "b").verdict, "SLOWER");
  EXPECT_NEAR(delta(c, "b").change, 0.5, 1e-12);
  EXPECT_EQ(delta(c, "c").verdict, "FASTER");
  EXPECT_EQ(c.only_in_base, std::vector<std::string>{"d"});
  EXPECT_EQ(c.only_in_next, std::vector<std::string>{"e"});
  EXPECT_TRUE(c.regressed());
  // A 10% change inside runs with 20% noise each is not a verdict.
  const RunComparison noisy =
      compare_runs(run("H200", {{"a", 1e-3}}, 0.2), run("H200", {{"a", 1.1e-3}}, 0.2), {});
  EXPECT_EQ(delta(noisy, "a").verdict, "AMBIGUOUS");
  EXPECT_FALSE(noisy.regressed());
}

TEST(CompareRuns, RankTestWithRepetitions) {
  const RunComparison c =
      compare_runs(run("H200", {{"a", 1e-3}}, 0.01, 5), run("H200", {{"a", 1.2e-3}}, 0.01, 5), {});
  EXPECT_NEAR(delta(c, "a").p_value, 0.01219, 5e-5);
  EXPECT_EQ(delta(c, "a").verdict, "SLOWER");
}

TEST(CompareRuns, ChecksThatTurnedFailComeFirst) {
  json base = run("H200", {{"a", 1e-3}}), next = run("H200", {{"a", 1e-3}});
  next["checks"][0]["verdict"] = "FAIL";
  base["checks"].push_back({{"suite", "s"}, {"name", "z/roofline"}, {"verdict", "FAIL"}});
  next["checks"].push_back({{"suite", "s"}, {"name", "z/roofline"}, {"verdict", "PASS"}});
  const RunComparison c = compare_runs(base, next, {});
  ASSERT_EQ(c.check_changes.size(), 2u);
  EXPECT_EQ(c.check_changes[0].name, "s/a/validate");
  EXPECT_EQ(c.check_changes[0].next, "FAIL");
  EXPECT_TRUE(c.regressed());
}

TEST(CompareRuns, InconclusiveAndFindingsAreNotRegressions) {
  // A version-1 base against a version-2 run with the new verdicts: listed, worst first, and only a
  // check that turned FAIL regresses.
  json base = run("H200", {{"a", 1e-3}}), next = run("H200", {{"a", 1e-3}});
  next["context"]["boundbench"]["schema_version"] = 2;
  for (const char* name : {"b/exponent", "c/speed", "d/roofline"})
    base["checks"].push_back({{"suite", "s"}, {"name", name}, {"verdict", "PASS"}});
  next["checks"].push_back({{"suite", "s"}, {"name", "b/exponent"}, {"verdict", "INCONCLUSIVE"}});
  next["checks"].push_back({{"suite", "s"},
                            {"name", "c/speed"},
                            {"verdict", "BELOW-EXPECTATION"},
                            {"kind", "expectation"}});
  next["checks"].push_back({{"suite", "s"}, {"name", "d/roofline"}, {"verdict", "PASS"}});
  RunComparison c = compare_runs(base, next, {});
  ASSERT_EQ(c.check_changes.size(), 2u);
  EXPECT_EQ(c.check_changes[0].next, "BELOW-EXPECTATION");
  EXPECT_EQ(c.check_changes[1].next, "INCONCLUSIVE");
  EXPECT_FALSE(c.regressed());
  next["checks"][3]["verdict"] = "FAIL";
  c = compare_runs(base, next, {});
  ASSERT_EQ(c.check_changes.size(), 3u);
  EXPECT_EQ(c.check_changes[0].name, "s/d/roofline");
  EXPECT_TRUE(c.regressed());
}

TEST(CompareRuns, DevicesMustMatchUnlessCrossDevice) {
  const json h100 = run("H100", {{"a", 2e-3}}), h200 = run("H200", {{"a", 1e-3}});
  EXPECT_THROW(compare_runs(h100, h200, {}), std::invalid_argument);
  CompareOptions cross;
  cross.cross_device = true;
  // 25% of bound on the H100, 50% on the H200: the H200 run is closer to its bound (FASTER).
  const RunComparison c = compare_runs(h100, h200, cross);
  EXPECT_DOUBLE_EQ(delta(c, "a").base, 25.0);
  EXPECT_DOUBLE_EQ(delta(c, "a").next, 50.0);
  EXPECT_EQ(delta(c, "a").verdict, "FASTER");
}

TEST(CompareRuns, SimulatedAgainstRealGpuOnlyCrossDevice) {
  const json sim = run("GPGPU-Sim_v4.2.0 timing SM7_QV100 sm_70 80 SMs 1132 MHz", {{"a", 2e-3}});
  const json h200 = run("NVIDIA H200", {{"a", 1e-3}});
  for (const auto& [base, next] : {std::pair{sim, h200}, std::pair{h200, sim}}) {
    try {
      compare_runs(base, next, {});
      FAIL() << "a simulated run compared with a real one";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("simulated GPU 'GPGPU-Sim_v4.2.0 timing"),
                std::string::npos)
          << e.what();
    }
  }
  CompareOptions cross;
  cross.cross_device = true;
  EXPECT_EQ(delta(compare_runs(sim, h200, cross), "a").verdict, "FASTER");
  // Two simulated runs of one config are one machine.
  EXPECT_NO_THROW(compare_runs(sim, sim, {}));
}

// A schema-2 run with samples and a fingerprint: `cases` maps a name to its samples (s).
json sampled_run(const std::vector<std::pair<std::string, std::vector<double>>>& cases,
                 std::uint64_t l3_bytes = 32u << 20) {
  json benchmarks = json::array();
  for (const auto& [name, samples] : cases) {
    std::vector<double> sorted = samples;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted[sorted.size() / 2];
    double mean = 0, m2 = 0;
    for (double x : sorted) mean += x / static_cast<double>(sorted.size());
    for (double x : sorted) m2 += (x - mean) * (x - mean);
    benchmarks.push_back(
        {{"name", name},
         {"run_type", "iteration"},
         {"repetition_index", 0},
         {"median_s", median},
         {"rel_noise", std::sqrt(m2 / static_cast<double>(sorted.size() - 1)) / mean},
         {"samples_s", sorted},
         {"params", {{"working_set_bytes", 1 << 20}}}});
  }
  HostInfo h;
  h.cpu_model = "AMD EPYC";
  h.cpu_vendor = "AuthenticAMD";
  h.logical_cpus = h.physical_cores = 2;
  h.caches = {{1, "Data", 48 << 10, 1}, {3, "Unified", l3_bytes, 2}};
  h.memory_bytes = 24ull << 30;
  h.hypervisor = "KVM";
  return {{"context",
           {{"boundbench",
             {{"schema_version", 2},
              {"gpus", {{"usable", false}, {"devices", json::array()}}},
              {"host", {{"cpu_model", h.cpu_model}}},
              {"fingerprint", machine_fingerprint(h, GpuStatus{})}}}}},
          {"benchmarks", benchmarks},
          {"checks", json::array()}};
}

// `n` samples of `median_s` with multiplicative noise of relative spread `noise` (log-normal),
// from a fixed seed.
std::vector<double> draw(std::mt19937_64& rng, double median_s, double noise, int n) {
  std::normal_distribution<double> z(0, noise);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(median_s * std::exp(z(rng)));
  return v;
}

std::vector<double> times(std::vector<double> v, double by) {
  for (double& x : v) x *= by;
  return v;
}

// "c17"; appended: GCC 12 -O3 warns falsely on "c" + string (-Wrestrict).
std::string case_name(int i) { return std::string("c").append(std::to_string(i)); }

int count_verdict(const RunComparison& c, const std::string& v) {
  return static_cast<int>(std::count_if(c.cases.begin(), c.cases.end(),
                                        [&](const CaseDelta& d) { return d.verdict == v; }));
}

TEST(RatioInterval, ScaledCopyAndMosesRanks) {
  const std::vector<double> x = {1.0, 1.02, 0.99, 1.03, 1.01};
  const RatioInterval r = ratio_interval(x, times(x, 1.2), 0.05);
  // y = 1.2·x: the differences log y_j − log x_i are symmetric about log 1.2.
  EXPECT_NEAR(r.ratio, 1.2, 1e-12);
  // n1 = n2 = 5: N = 25, σ_U = sqrt(25·11/12) = 4.787, k = ⌊12.5 − 1.96·4.787⌋ = 3, so the
  // interval is [D_(3), D_(23)] of the 25 sorted log ratios.
  std::vector<double> d;
  for (double yj : times(x, 1.2))
    for (double xi : x) d.push_back(std::log(yj) - std::log(xi));
  std::sort(d.begin(), d.end());
  EXPECT_NEAR(std::log(r.low), d[2], 1e-12);
  EXPECT_NEAR(std::log(r.high), d[22], 1e-12);
  EXPECT_NEAR(r.coverage, 0.95, 0.02);
  // y/1.05 lies above every x: U = 25, z = (25 − 12.5 − 0.5)/4.787 = 2.507, p = 0.0061.
  EXPECT_NEAR(r.p_slower, 0.0061, 1e-4);
  EXPECT_GT(r.p_faster, 0.5);
}

TEST(BenjaminiHochberg, HandWorked) {
  // Sorted 0.01, 0.03, 0.04, 0.5 (m = 4): 0.5·4/4 = 0.5; 0.04·4/3 = 0.0533; 0.03·4/2 = 0.06 →
  // 0.0533 (the minimum over larger ranks); 0.01·4/1 = 0.04. NaN is left out of m.
  const std::vector<double> p = {0.01, 0.04, 0.03, std::nan(""), 0.5};
  const std::vector<double> q = benjamini_hochberg(p);
  EXPECT_NEAR(q[0], 0.04, 1e-12);
  EXPECT_NEAR(q[1], 0.04 * 4 / 3, 1e-12);
  EXPECT_NEAR(q[2], 0.04 * 4 / 3, 1e-12);
  EXPECT_TRUE(std::isnan(q[3]));
  EXPECT_NEAR(q[4], 0.5, 1e-12);
}

TEST(CompareFromSamples, PowerEveryCaseTimesOnePointTwo) {
  // 200 cases of 5 samples with 3% noise, every timing ×1.2: at least 90% SLOWER, and regressed.
  std::mt19937_64 rng(17);
  std::vector<std::pair<std::string, std::vector<double>>> base, next;
  for (int i = 0; i < 200; ++i) {
    const auto s = draw(rng, 1e-3 * (1 + i), 0.03, 5);
    base.push_back({case_name(i), s});
    next.push_back({case_name(i), times(s, 1.2)});
  }
  const RunComparison c = compare_runs(sampled_run(base), sampled_run(next), {});
  EXPECT_GE(count_verdict(c, "SLOWER"), 180);
  EXPECT_EQ(count_verdict(c, "FASTER"), 0);
  EXPECT_TRUE(c.regressed());
  for (const auto& d : c.cases) {
    EXPECT_NEAR(d.change, 0.2, 1e-9);
    EXPECT_TRUE(d.from_samples());
    EXPECT_LE(d.change_low, 0.2 + 1e-9);
    EXPECT_GE(d.change_high, 0.2 - 1e-9);
  }
}

TEST(CompareFromSamples, OutlierDoesNotHideADoubling) {
  // One preempted sample (×40) makes stddev/mean about 300%: the old rule called a 2× slowdown
  // AMBIGUOUS. The rank interval is not moved by it.
  std::mt19937_64 rng(3);
  std::vector<double> s = draw(rng, 1e-3, 0.02, 12);
  s[4] *= 40;
  const json base = sampled_run({{"a", s}, {"b", draw(rng, 1e-3, 0.02, 12)}});
  const json next = sampled_run({{"a", times(s, 2)}, {"b", draw(rng, 1e-3, 0.02, 12)}});
  EXPECT_GT(base["benchmarks"][0]["rel_noise"].get<double>(), 2.0);
  const RunComparison c = compare_runs(base, next, {});
  EXPECT_EQ(delta(c, "a").verdict, "SLOWER");
  EXPECT_GT(delta(c, "a").change_low, 0.5);
  EXPECT_NE(delta(c, "b").verdict, "SLOWER");
  EXPECT_NE(delta(c, "b").verdict, "FASTER");
  EXPECT_TRUE(c.regressed());
}

TEST(CompareFromSamples, NoFalseAlarmsAndFalseDiscoveryRateHeld) {
  // 300 cases, both runs drawn from the same distributions: no SLOWER or FASTER at ±5%.
  std::mt19937_64 rng(11);
  std::vector<std::pair<std::string, std::vector<double>>> base, next;
  for (int i = 0; i < 300; ++i) {
    const double t = 1e-4 * (1 + i % 17);
    base.push_back({case_name(i), draw(rng, t, 0.05, 10)});
    next.push_back({case_name(i), draw(rng, t, 0.05, 10)});
  }
  const json b = sampled_run(base), n = sampled_run(next);
  const RunComparison c = compare_runs(b, n, {});
  EXPECT_EQ(count_verdict(c, "SLOWER") + count_verdict(c, "FASTER"), 0);
  EXPECT_FALSE(c.regressed());
  EXPECT_EQ(count_verdict(c, "SAME") + count_verdict(c, "AMBIGUOUS"), 300);
  // At threshold 0 every case is tested at its null's edge: unadjusted, about 5% of 300 would be
  // called; Benjamini–Hochberg keeps the expected share of false calls at 5% of the calls, so
  // with only nulls nearly always none.
  CompareOptions zero;
  zero.threshold = 0;
  const RunComparison z = compare_runs(b, n, zero);
  int raw_significant = 0;
  for (std::size_t i = 0; i < base.size(); ++i) {
    const RatioInterval r = ratio_interval(base[i].second, next[i].second, 0);
    raw_significant += std::min(1.0, 2 * std::min(r.p_slower, r.p_faster)) <= 0.05;
  }
  EXPECT_GE(raw_significant, 5);
  EXPECT_LE(count_verdict(z, "SLOWER") + count_verdict(z, "FASTER"), 1);
}

TEST(CompareFromSamples, RunLevelNoiseWidensIntervals) {
  // A busy machine: each case of the second run slowed or sped by its own factor (30% log-normal),
  // while each run's samples are tight (1%). Without the run-level term most cases would be
  // called; the cases' scatter is measured and widens every interval.
  std::mt19937_64 rng(13);
  std::normal_distribution<double> load(0, 0.3);
  std::vector<std::pair<std::string, std::vector<double>>> base, next;
  for (int i = 0; i < 100; ++i) {
    base.push_back({case_name(i), draw(rng, 1e-3, 0.01, 10)});
    next.push_back({case_name(i), draw(rng, 1e-3 * std::exp(load(rng)), 0.01, 10)});
  }
  const RunComparison c = compare_runs(sampled_run(base), sampled_run(next), {});
  EXPECT_NEAR(c.run_noise, 0.3, 0.1);
  EXPECT_GT(c.run_noise_dof, 4);  // normal scatter is not taken for heavy tails
  EXPECT_LE(count_verdict(c, "SLOWER") + count_verdict(c, "FASTER"), 5);
  ASSERT_EQ(c.notes.size(), 2u);
  EXPECT_NE(c.notes[0].find("run-level noise"), std::string::npos);
  EXPECT_NE(c.notes[1].find("the run as a whole: median change"), std::string::npos);
  int tight_calls = 0;  // the same cases judged on their own samples alone
  for (std::size_t i = 0; i < base.size(); ++i) {
    const RatioInterval r = ratio_interval(base[i].second, next[i].second, 0.05);
    tight_calls += r.low > 1.05 || r.high < 0.95;
  }
  EXPECT_GT(tight_calls, 50);
}

TEST(CompareFromSamples, HeavyTailedRunNoiseRaisesNoAlarm) {
  // Two honest runs of a shared VM (results/compare_bench): the middle half of the cases moved by
  // < 7%, a quarter by more than ±25%, a few by 2–10×. Modelled as a Cauchy factor of scale 5%
  // per case, each run's own samples tight (1%). A normal null fitted to the middle calls the
  // tails; the t null fitted to middle and tail does not.
  std::mt19937_64 rng(29);
  std::cauchy_distribution<double> drift(0, 0.05);
  std::vector<std::pair<std::string, std::vector<double>>> base, next;
  for (int i = 0; i < 223; ++i) {
    base.push_back({case_name(i), draw(rng, 1e-3, 0.01, 20)});
    next.push_back({case_name(i), draw(rng, 1e-3 * std::exp(drift(rng)), 0.01, 20)});
  }
  const RunComparison c = compare_runs(sampled_run(base), sampled_run(next), {});
  EXPECT_LT(c.run_noise_dof, 3);
  EXPECT_EQ(count_verdict(c, "SLOWER") + count_verdict(c, "FASTER"), 0);
  EXPECT_FALSE(c.regressed());
  // The same scale with normal tails: the alarms this test guards against.
  std::vector<RatioInterval> own;
  for (std::size_t i = 0; i < base.size(); ++i)
    own.push_back(ratio_interval(base[i].second, next[i].second, 0.05));
  std::vector<double> p;
  for (const auto& r : own) {
    const RatioInterval w = widened(r, RunNoise{c.run_noise}, 0.05);
    p.push_back(std::min(1.0, 2 * std::min(w.p_slower, w.p_faster)));
  }
  int normal_calls = 0;
  for (double q : benjamini_hochberg(p)) normal_calls += q <= 0.05;
  EXPECT_GT(normal_calls, 10);
  // Every timing ×1.2 on top of the first run: the runs then differ alike, and are called.
  std::vector<std::pair<std::string, std::vector<double>>> slower;
  for (const auto& [name, s] : base) slower.push_back({name, times(s, 1.2)});
  const RunComparison w = compare_runs(sampled_run(base), sampled_run(slower), {});
  EXPECT_EQ(count_verdict(w, "SLOWER"), 223);
}

TEST(CompareFromSamples, NormalRunNoiseKeepsNormalTails) {
  std::mt19937_64 rng(31);
  std::normal_distribution<double> load(0, 0.2);
  std::vector<RatioInterval> cases;
  for (int i = 0; i < 400; ++i) {
    const auto x = draw(rng, 1e-3, 0.01, 20);
    cases.push_back(ratio_interval(x, times(x, std::exp(load(rng))), 0.05));
  }
  const RunNoise n = run_level_noise(cases);
  EXPECT_NEAR(n.scale, 0.2, 0.04);
  EXPECT_GT(n.dof, 8);  // a normal's tail ratio, up to sampling: ν large or infinite
}

TEST(CompareFromSamples, MedianChangeOfTheRun) {
  std::mt19937_64 rng(37);
  std::vector<RatioInterval> cases;
  for (int i = 0; i < 101; ++i) {
    const auto x = draw(rng, 1e-3, 0.02, 10);
    cases.push_back(ratio_interval(x, times(x, 1.2), 0.05));
  }
  const MedianChange m = median_change(cases);
  EXPECT_EQ(m.cases, 101u);
  EXPECT_NEAR(m.ratio, 1.2, 1e-9);
  EXPECT_LE(m.low, 1.2 + 1e-9);
  EXPECT_GE(m.high, 1.2 - 1e-9);
  EXPECT_GE(m.coverage, 0.95);
}

TEST(CompareFromSamples, ParamsDifferIsNotComparable) {
  std::mt19937_64 rng(5);
  const auto s = draw(rng, 1e-3, 0.01, 10);
  json base = sampled_run({{"copy", s}}), next = sampled_run({{"copy", times(s, 0.35)}});
  next["benchmarks"][0]["params"]["working_set_bytes"] = 1 << 22;
  const RunComparison c = compare_runs(base, next, {});
  EXPECT_EQ(delta(c, "copy").verdict, "NOT_COMPARABLE");
  EXPECT_NE(delta(c, "copy").note.find("params differ: working_set_bytes 1048576 vs 4194304"),
            std::string::npos);
  EXPECT_FALSE(c.regressed());
  const std::string table = comparison_table(c, {});
  EXPECT_EQ(table.find("-65"), std::string::npos) << table;
}

TEST(CompareFromSamples, MachinesMustMatchUnlessCrossDevice) {
  std::mt19937_64 rng(7);
  const auto s = draw(rng, 1e-3, 0.01, 10);
  json base = sampled_run({{"a", s}, {"b", s}}, 480u << 20);
  json next = sampled_run({{"a", s}, {"b", s}}, 32u << 20);
  try {
    compare_runs(base, next, {});
    FAIL() << "different caches compared";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("caches.L3 480 MiB vs 32 MiB"), std::string::npos)
        << e.what();
  }
  // Cross-device: % of bound; a case without a bound is listed as such, never as a number.
  base["benchmarks"][0]["pct_of_bound"] = 40.0;
  next["benchmarks"][0]["pct_of_bound"] = 80.0;
  CompareOptions cross;
  cross.cross_device = true;
  const RunComparison c = compare_runs(base, next, cross);
  EXPECT_NEAR(delta(c, "a").base, 40.0, 1e-9);
  EXPECT_NEAR(delta(c, "a").next, 80.0, 1e-9);
  EXPECT_EQ(delta(c, "a").verdict, "FASTER");
  EXPECT_EQ(delta(c, "b").verdict, "NO_BOUND");
  const json j = comparison_json(c, cross);
  EXPECT_TRUE(j["cases"][1]["base"].is_null());
  EXPECT_EQ(j["machine_differences"][0], "caches.L3 480 MiB vs 32 MiB");
  const std::string table = comparison_table(c, cross);
  EXPECT_EQ(table.find("-1.0%"), std::string::npos) << table;
  EXPECT_NE(table.find("NO_BOUND (no bound in either run)"), std::string::npos) << table;
}

// The fingerprint's memory is MemTotal rounded UP to whole GiB (the kernel reserves a few % of the
// installed size): tested at each boundary where ceil, round-to-nearest, floor and a GB (1e9)
// divisor part ways, not only at 23.54 GiB where ceil and round agree.
TEST(Fingerprint, MemoryRoundsUpToWholeGibAtTheBoundaries) {
  const auto gib_of = [](std::uint64_t bytes) {
    HostInfo h;
    h.memory_bytes = bytes;
    return machine_fingerprint(h, GpuStatus{})["memory_gib"].get<int>();
  };
  const std::uint64_t gib = 1ull << 30;
  EXPECT_EQ(gib_of(24 * gib), 24);                // at the boundary: 24 (a 1e9 divisor: 26)
  EXPECT_EQ(gib_of(24 * gib + 1), 25);            // one byte above: the next GiB
  EXPECT_EQ(gib_of(24 * gib - 1), 24);            // one byte below (floor: 23)
  EXPECT_EQ(gib_of(23 * gib + gib / 2), 24);      // x.5 exactly
  EXPECT_EQ(gib_of(23 * gib + gib / 2 - 1), 24);  // just below x.5 (round to nearest: 23)
  EXPECT_EQ(gib_of(23 * gib + 1), 24);            // just above 23 GiB (round: 23, floor: 23)
  EXPECT_EQ(gib_of(23 * gib), 23);
  // Two boots of one 24 GiB VM, 23.1 and 23.9 GiB visible: the same machine; 24 GiB + 1 MiB is not.
  HostInfo a, b;
  a.memory_bytes = 23 * gib + gib / 10;
  b.memory_bytes = 23 * gib + 9 * (gib / 10);
  EXPECT_TRUE(fingerprint_differences(machine_fingerprint(a, GpuStatus{}),
                                      machine_fingerprint(b, GpuStatus{}))
                  .empty());
  b.memory_bytes = 24 * gib + (1u << 20);
  const auto d = fingerprint_differences(machine_fingerprint(a, GpuStatus{}),
                                         machine_fingerprint(b, GpuStatus{}));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0], "memory_gib 24 GiB vs 25 GiB");
  // An older file's context (legacy fingerprint) rounds the same way: 23.4 GiB is 24, not 23.
  const json legacy = {
      {"context",
       {{"boundbench", {{"host", {{"memory_bytes", 23.4 * static_cast<double>(gib)}}}}}}}};
  EXPECT_EQ(recorded_fingerprint(legacy).fields["memory_gib"], 24);
  const json legacy_above = {
      {"context",
       {{"boundbench", {{"host", {{"memory_bytes", 24.0 * static_cast<double>(gib) + 1}}}}}}}};
  EXPECT_EQ(recorded_fingerprint(legacy_above).fields["memory_gib"], 25);
}

TEST(CompareFromSamples, OldFileWithoutFingerprintIsNoted) {
  std::mt19937_64 rng(9);
  json next = sampled_run({{"a", draw(rng, 1e-3, 0.01, 10)}});
  json base = next;
  base["context"]["boundbench"].erase("fingerprint");
  base["context"]["boundbench"]["host"] = {
      {"cpu_model", "AMD EPYC"},
      {"logical_cpus", 2},
      {"physical_cores", 2},
      {"memory_bytes", 23.6 * (1u << 30)},
      {"caches",
       {{{"level", 1}, {"type", "Data"}, {"size_bytes", 48 << 10}},
        {{"level", 3}, {"type", "Unified"}, {"size_bytes", 32 << 20}}}}};
  const RunComparison c = compare_runs(base, next, {});
  ASSERT_FALSE(c.notes.empty());
  EXPECT_NE(c.notes[0].find("base has no machine fingerprint"), std::string::npos);
  base["context"]["boundbench"]["host"]["caches"][1]["size_bytes"] = 480 << 20;
  EXPECT_THROW(compare_runs(base, next, {}), std::invalid_argument);
}

class BadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/bb_compare_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const auto p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  static std::string error_of(const std::string& path) {
    try {
      load_results(path);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  }
  std::filesystem::path dir_;
};

TEST_F(BadInput, EachProblemNamedWithItsFile) {
  const std::string good = run("H200", {{"a", 1e-3}}).dump();
  EXPECT_NE(error_of((dir_ / "missing.json").string()).find("cannot be read"), std::string::npos);
  EXPECT_NE(error_of(write("t.json", good.substr(0, good.size() / 2))).find("not valid JSON"),
            std::string::npos);
  EXPECT_NE(error_of(write("gb.json", R"({"context": {}, "benchmarks": []})"))
                .find("not a boundbench results file"),
            std::string::npos);
  // Versions 1 and 2 are read (a version-1 file is a valid version-2 file); others are refused.
  json v2 = run("H200", {{"a", 1e-3}});
  v2["context"]["boundbench"]["schema_version"] = 2;
  EXPECT_EQ(error_of(write("v2.json", v2.dump())), "");
  json v3 = v2, v0 = v2;
  v3["context"]["boundbench"]["schema_version"] = 3;
  EXPECT_NE(
      error_of(write("v3.json", v3.dump())).find("schema version 3, this boundbench reads 1 to 2"),
      std::string::npos);
  json bad_fp = v2;
  bad_fp["context"]["boundbench"]["fingerprint"] = "x";
  EXPECT_NE(error_of(write("fp.json", bad_fp.dump())).find("malformed context"), std::string::npos);
  json bad_samples = v2;
  bad_samples["benchmarks"][0]["samples_s"] = {"a"};
  EXPECT_NE(error_of(write("s.json", bad_samples.dump())).find("malformed benchmark entry"),
            std::string::npos);
  v0["context"]["boundbench"]["schema_version"] = 0;
  EXPECT_NE(error_of(write("v0.json", v0.dump())).find("schema version 0"), std::string::npos);
  json empty = run("H200", {});
  empty["checks"] = json::array();  // nothing timed and nothing validated
  EXPECT_NE(error_of(write("empty.json", empty.dump())).find("no measured case"),
            std::string::npos);
  // A run on a simulated device validates its cases without timing them: it is read.
  json validated_only = run("H200", {});
  validated_only["checks"] =
      json::array({{{"suite", "s"}, {"name", "a/validate"}, {"verdict", "PASS"}}});
  EXPECT_EQ(error_of(write("validated.json", validated_only.dump())), "");
  json dup = run("H200", {{"a", 1e-3}, {"a", 2e-3}});
  const std::string dup_path = write("dup.json", dup.dump());
  EXPECT_NE(error_of(dup_path).find("'a' appears twice"), std::string::npos);
  EXPECT_NE(error_of(dup_path).find("dup.json"), std::string::npos);
  EXPECT_EQ(error_of(write("good.json", good)), "");
}

// Issue 30: `compare` of two single runs without a store. A whole DRAM-bound family moving +40%
// together is the machine as far as one pair can tell (a neighbour's memory traffic): AMBIGUOUS,
// with the reason. One compute-bound case moving +30% alone is SLOWER.
json with_limiters(json doc, const std::map<std::string, std::string>& limiter) {
  for (auto& b : doc["benchmarks"])
    b["bound"] = {{"limiter", limiter.at(b["name"].get<std::string>())}};
  return doc;
}

TEST(CompareMachineMoves, DramFamilyTogetherIsAmbiguousComputeAloneIsSlower) {
  std::mt19937_64 rng(41);
  std::vector<std::pair<std::string, std::vector<double>>> base, next;
  std::map<std::string, std::string> limiter;
  const auto add = [&](const std::string& name, const std::string& lim, double by) {
    const auto s = draw(rng, 1e-3, 0.02, 12);
    base.push_back({name, s});
    next.push_back({name, times(draw(rng, 1e-3, 0.02, 12), by)});
    limiter[name] = lim;
  };
  for (const char* k : {"copy", "mul", "add", "triad", "nstream"})
    add(std::string("bandwidth/") + k + "/fp64/host", "dram", 1.4);
  add("precision/convert/fp32-fp16/host", "dram", 1.4);
  add("precision/gemm/fp32/host/n512", "compute", 1.3);
  // 70 unchanged cases (a run's usual share: the family is about a tenth of it), so the run's
  // own scatter (the run-level noise) stays the unchanged cases' and does not hide the compute
  // case.
  for (int i = 0; i < 10; ++i)
    add("precision/gemm/fp32/host/k" + std::to_string(64 << i), "compute", 1.0);
  for (int i = 0; i < 40; ++i)
    add("bandwidth/read-sweep/host/" + std::to_string(4096 + 512 * i), "l1", 1.0);
  for (int i = 0; i < 20; ++i)
    add("attention/tiled/fp32/host/n" + std::to_string(256 + 64 * i), "l2", 1.0);
  const json b = with_limiters(sampled_run(base), limiter);
  const json n = with_limiters(sampled_run(next), limiter);
  const RunComparison c = compare_runs(b, n, {});
  for (const auto& [name, lim] : limiter) {
    const CaseDelta& d = delta(c, name);
    if (lim == "dram") {
      EXPECT_EQ(d.verdict, "AMBIGUOUS") << name << ": " << d.note;
      EXPECT_NE(d.note.find("5 other dram-bound case(s)"), std::string::npos) << d.note;
      EXPECT_NE(d.note.find("cannot tell this from the machine"), std::string::npos) << d.note;
    } else if (name == "precision/gemm/fp32/host/n512") {
      EXPECT_EQ(d.verdict, "SLOWER") << d.note;
    } else {
      EXPECT_NE(d.verdict, "SLOWER") << name;
      EXPECT_NE(d.verdict, "FASTER") << name;
    }
  }
  EXPECT_TRUE(c.regressed());  // the compute case
  EXPECT_TRUE(std::any_of(c.notes.begin(), c.notes.end(), [](const std::string& s) {
    return s.find("6 case(s) moved together") != std::string::npos;
  }));
  // The same pair judged with a store's spreads known (here for another case only): the rule
  // is not applied, and the DRAM family is called SLOWER on its samples, as it was before it.
  CompareOptions with_store;
  with_store.between_runs["precision/gemm/fp32/host/k64"] = {0.01, 10};
  const RunComparison s = compare_runs(b, n, with_store);
  EXPECT_EQ(delta(s, "bandwidth/triad/fp64/host").verdict, "SLOWER");
  // The whole run ×1.4 (every case): the run moved, not a family within it; still called.
  std::vector<std::pair<std::string, std::vector<double>>> all_slower;
  for (const auto& [name, v] : base) all_slower.push_back({name, times(v, 1.4)});
  const RunComparison whole = compare_runs(b, with_limiters(sampled_run(all_slower), limiter), {});
  EXPECT_EQ(delta(whole, "bandwidth/triad/fp64/host").verdict, "SLOWER");
  EXPECT_EQ(delta(whole, "precision/gemm/fp32/host/k64").verdict, "SLOWER");
  // A member that moved well beyond its family (+40% × 1.5) is still called, with that said.
  next[3].second = times(next[3].second, 1.5);  // bandwidth/triad/fp64/host
  const RunComparison beyond = compare_runs(b, with_limiters(sampled_run(next), limiter), {});
  const CaseDelta& t = delta(beyond, "bandwidth/triad/fp64/host");
  EXPECT_EQ(t.verdict, "SLOWER") << t.note;
  EXPECT_NE(t.note.find("and beyond them by +"), std::string::npos) << t.note;
}

}  // namespace
}  // namespace bb
