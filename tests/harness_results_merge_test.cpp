// One machine's run split over several results files (harness/results_merge.h), projected as the
// whole run would be (harness/project.h). Planted GPU runs, numbers worked by hand: A has 2 TB/s of
// spec DRAM and 100 SMs x 2 GHz, its STREAM copy moves 1 GB in 0.625 ms (1.6 TB/s measured) and a
// read of 0.5 GB takes 0.4 ms (62.5% of its 0.25 ms spec bound); B has 1 TB/s, 50 SMs x 2 GHz, its
// copy moves 1 GB at 0.6 TB/s and the read takes 1 ms. Neither case declares flop (Habitat's
// gamma = 1): with both measured bandwidths the read projects to 0.4 ms x 1.6 / 0.6 = 1.0667 ms
// (6.67% over B's 1 ms), with the specs to 0.4 ms x 2 / 1 = 0.8 ms.
#include <gtest/gtest.h>

#include <initializer_list>
#include <stdexcept>

#include "harness/bound.h"
#include "harness/project.h"
#include "harness/results_merge.h"

namespace bb {
namespace {

using json = nlohmann::json;

json gpu_entry(const std::string& name, double bytes, double median_s, json params) {
  return {{"name", "bandwidth/" + name},
          {"suite", "bandwidth"},
          {"case", name},
          {"backend", "cuda"},
          {"run_type", "iteration"},
          {"bytes", bytes},
          {"flop", 0},
          {"precision", "fp32"},
          {"memory_level", "dram"},
          {"params", std::move(params)},
          {"samples", 3},
          {"median_s", median_s},
          {"min_s", 0.99 * median_s},
          {"median_ci_low_s", 0.99 * median_s},
          {"median_ci_high_s", 1.01 * median_s}};
}
// A STREAM case (a bandwidth kernel, no stride) and a strided read (not one).
json stream_copy(double median_s) {
  return gpu_entry("copy/fp32/cuda", 1e9, median_s, {{"kernel", "copy"}});
}
json stride1(double median_s) {
  return gpu_entry("strided/fp32/cuda/s1", 5e8, median_s, {{"stride_elements", 1}});
}

// A file of a run of `gpu` on a planted host, stopped before its suites' figures (as the committed
// simulated runs that were cut short).
json gpu_file(const std::string& gpu, int sm_count, double peak_dram_bytes_per_s,
              std::initializer_list<json> cases) {
  json benchmarks = json::array();
  for (const auto& c : cases) benchmarks.push_back(c);
  const json device = {{"name", gpu},
                       {"sm_count", sm_count},
                       {"sm_clock_hz", 2e9},
                       {"peak_dram_bytes_per_s", peak_dram_bytes_per_s},
                       {"peak_cuda_core_flop_per_s", {{"fp32", 50e12}}}};
  return {{"context",
           {{"boundbench",
             {{"schema_version", 2},
              {"label", "run"},
              {"fingerprint",
               {{"cpu", {{"model_name", "planted host"}}},
                {"gpus", {{{"name", gpu}, {"sm_count", sm_count}}}}}},
              {"options", {{"device", 0}}},
              {"gpus", {{"usable", true}, {"devices", json::array({device})}}}}}}},
          {"benchmarks", std::move(benchmarks)},
          {"checks", json::array()}};
}
json a_file(std::initializer_list<json> cases) { return gpu_file("GPU-A", 100, 2e12, cases); }
json b_file(std::initializer_list<json> cases) { return gpu_file("GPU-B", 50, 1e12, cases); }

const ProjectedCase& projected(const Projection& p, const std::string& name) {
  for (const auto& c : p.cases)
    if (c.name == name) return c;
  throw std::out_of_range(name);
}

const std::string kRead = "bandwidth/strided/fp32/cuda/s1", kCopy = "bandwidth/copy/fp32/cuda";

TEST(MergeRuns, SplitRunProjectsAsTheWholeRun) {
  // The whole runs, complete: the bandwidth suite's figure holds each STREAM best (bytes / median).
  json a = a_file({stream_copy(0.625e-3), stride1(0.4e-3)}),
       b = b_file({stream_copy(1e9 / 0.6e12), stride1(1e-3)});
  a["figures"]["bandwidth"]["cuda"]["stream_best"] = {{"case", "copy/fp32/cuda"},
                                                      {"bytes_per_s", 1e9 / 0.625e-3}};
  b["figures"]["bandwidth"]["cuda"]["stream_best"] = {{"case", "copy/fp32/cuda"},
                                                      {"bytes_per_s", 1e9 / (1e9 / 0.6e12)}};
  const Projection whole = project_to_run(a, b);
  // The same runs split over files without figures, B's in the other order.
  const MergedRun sa = merge_runs(
      {{"a1.json", a_file({stream_copy(0.625e-3)})}, {"a2.json", a_file({stride1(0.4e-3)})}});
  const MergedRun sb = merge_runs(
      {{"b1.json", b_file({stride1(1e-3)})}, {"b2.json", b_file({stream_copy(1e9 / 0.6e12)})}});
  EXPECT_TRUE(sa.notes.empty());
  const Projection split = project_to_run(sa.doc, sb.doc);
  ASSERT_EQ(split.cases.size(), 2u);
  ASSERT_EQ(whole.cases.size(), 2u);
  for (const auto& c : whole.cases) EXPECT_EQ(projected(split, c.name).predicted_s, c.predicted_s);
  EXPECT_NEAR(projected(split, kRead).predicted_s, 0.4e-3 * 1.6 / 0.6, 1e-15);
  // The copy defines each side's measured ceiling: it projects onto B's exactly (error 0 by
  // construction), so it is kept out of the error; the read is off by 1.0667 / 1 - 1 = 1/15.
  EXPECT_TRUE(projected(split, kCopy).ceiling_of_both);
  EXPECT_NEAR(projected(split, kCopy).predicted_s, 1e9 / 0.6e12, 1e-15);
  EXPECT_FALSE(projected(split, kRead).ceiling_of_both);
  EXPECT_EQ(split.error_cases, 1u);
  EXPECT_NEAR(split.median_abs_error, 1.0 / 15, 1e-12);
  EXPECT_EQ(split.from, "a1.json + a2.json");
}

TEST(MergeRuns, StreamOfOneFileIsTheDramCeilingOfAnother) {
  const json b = merge_runs({{"b1.json", b_file({stride1(1e-3)})},
                             {"b2.json", b_file({stream_copy(1e9 / 0.6e12)})}})
                     .doc;
  // A's read alone: A measured no STREAM, so both sides take their specs: 0.4 ms x 2 / 1.
  const ProjectedCase alone = projected(project_to_run(a_file({stride1(0.4e-3)}), b), kRead);
  EXPECT_NEAR(alone.predicted_s, 0.8e-3, 1e-15);
  EXPECT_NE(alone.method.find("spec bandwidth"), std::string::npos) << alone.method;
  // With the file holding A's copy: its 1.6 TB/s is A's measured DRAM ceiling.
  const json a = merge_runs({{"a1.json", a_file({stream_copy(0.625e-3)})},
                             {"a2.json", a_file({stride1(0.4e-3)})}})
                     .doc;
  const Ceilings ca = ceilings_of(a, "cuda");
  ASSERT_TRUE(ca.measured_dram_bytes_per_s);
  EXPECT_NEAR(ca.measured_dram_bytes_per_s->value, 1.6e12, 1e-3);
  // Named as the bandwidth suite's figure names it: by its case, without the suite.
  EXPECT_EQ(ca.measured_dram_bytes_per_s->basis, "STREAM best (copy/fp32/cuda)");
  EXPECT_EQ(ca.dram_bytes_per_s->source, "spec");  // the spec still bounds the cases
  const ProjectedCase merged = projected(project_to_run(a, b), kRead);
  EXPECT_NEAR(merged.predicted_s, 0.4e-3 * 1.6 / 0.6, 1e-15);
  EXPECT_NE(merged.method.find("measured bandwidth"), std::string::npos) << merged.method;
}

TEST(MergeRuns, ALaterFileSupersedes) {
  const json b = merge_runs({{"b1.json", b_file({stream_copy(1e9 / 0.6e12)})},
                             {"b2.json", b_file({stride1(1e-3)})}})
                     .doc;
  const json first = a_file({stream_copy(0.625e-3), stride1(0.5e-3)}),
             rerun = a_file({stride1(0.4e-3)});
  const MergedRun m = merge_runs({{"first.json", first}, {"rerun.json", rerun}});
  ASSERT_EQ(m.notes.size(), 1u);
  EXPECT_NE(m.notes[0].find(kRead + ": measured in first.json and rerun.json; rerun.json's taken"),
            std::string::npos)
      << m.notes[0];
  EXPECT_EQ(m.doc["benchmarks"].size(), 2u);  // one copy, one read
  EXPECT_NEAR(projected(project_to_run(m.doc, b), kRead).predicted_s, 0.4e-3 * 1.6 / 0.6, 1e-15);
  // Given the other way round, the first run's 0.5 ms is the later one: 0.5 ms x 1.6 / 0.6.
  const json reversed = merge_runs({{"rerun.json", rerun}, {"first.json", first}}).doc;
  EXPECT_NEAR(projected(project_to_run(reversed, b), kRead).predicted_s, 0.5e-3 * 1.6 / 0.6, 1e-15);
  // A later file that ran the case without a measurement (a validation error) supersedes nothing.
  json failed = stride1(0.3e-3);
  failed["error_occurred"] = true, failed["median_s"] = 0;
  const MergedRun f =
      merge_runs({{"first.json", first}, {"rerun.json", rerun}, {"failed.json", a_file({failed})}});
  ASSERT_EQ(f.notes.size(), 2u);
  EXPECT_EQ(f.notes[1], kRead + ": rerun.json's measurement kept (failed.json ran it without one)");
  EXPECT_NEAR(projected(project_to_run(f.doc, b), kRead).predicted_s, 0.4e-3 * 1.6 / 0.6, 1e-15);
}

TEST(MergeRuns, TwoMachinesOnOneSideAreRefused) {
  auto refusal = [](std::vector<RunFile> files) -> std::string {
    try {
      merge_runs(std::move(files));
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "not refused";
  };
  const std::string gpus =
      refusal({{"a.json", a_file({stream_copy(0.625e-3)})}, {"b.json", b_file({stride1(1e-3)})}});
  EXPECT_NE(gpus.find("a.json and b.json are from different machines (GPU 'GPU-A' vs 'GPU-B'"),
            std::string::npos)
      << gpus;
  EXPECT_EQ(gpus.find('\n'), std::string::npos);
  // The same GPU on another host.
  json other_host = a_file({stride1(0.4e-3)});
  other_host["context"]["boundbench"]["fingerprint"]["cpu"]["model_name"] = "another host";
  const std::string hosts =
      refusal({{"a.json", a_file({stream_copy(0.625e-3)})}, {"c.json", other_host}});
  EXPECT_NE(hosts.find("cpu.model_name 'planted host' vs 'another host'"), std::string::npos)
      << hosts;
  EXPECT_THROW(merge_runs({}), std::invalid_argument);
}

}  // namespace
}  // namespace bb
