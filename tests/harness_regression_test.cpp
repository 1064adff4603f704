// `boundbench compare`: the rank test on hand-worked data, verdicts on synthetic runs, and every
// kind of bad input named in one line.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <vector>

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
  v0["context"]["boundbench"]["schema_version"] = 0;
  EXPECT_NE(error_of(write("v0.json", v0.dump())).find("schema version 0"), std::string::npos);
  json empty = run("H200", {});
  EXPECT_NE(error_of(write("empty.json", empty.dump())).find("no measured case"),
            std::string::npos);
  json dup = run("H200", {{"a", 1e-3}, {"a", 2e-3}});
  const std::string dup_path = write("dup.json", dup.dump());
  EXPECT_NE(error_of(dup_path).find("'a' appears twice"), std::string::npos);
  EXPECT_NE(error_of(dup_path).find("dup.json"), std::string::npos);
  EXPECT_EQ(error_of(write("good.json", good)), "");
}

}  // namespace
}  // namespace bb
