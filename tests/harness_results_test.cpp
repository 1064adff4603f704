// Tests for harness/results: atomic writes, the writability pre-check, the results file as it
// grows, and the JSON form of a check.
#include "harness/results.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

namespace bb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

json read_json(const fs::path& path) { return json::parse(read_all(path)); }

class TempDir : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "bb_results_XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(dir_, ec);
  }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename());
    return names;
  }
  fs::path dir_;
};

using WriteFileAtomically = TempDir;

TEST_F(WriteFileAtomically, WritesExactlyTheContentAndNoTempFiles) {
  const fs::path path = dir_ / "out.json";
  const std::string content = std::string("{\"a\": 1}\n\0tail", 14) + std::string(100000, 'x');
  write_file_atomically(path.string(), content);
  EXPECT_EQ(read_all(path), content);
  EXPECT_EQ(entries(), std::vector<std::string>{"out.json"});

  // Rewriting with shorter content replaces it entirely.
  write_file_atomically(path.string(), "short");
  EXPECT_EQ(read_all(path), "short");
  EXPECT_EQ(entries(), std::vector<std::string>{"out.json"});
}

TEST_F(WriteFileAtomically, MissingDirectoryThrowsRuntimeError) {
  const fs::path path = dir_ / "missing" / "out.json";
  try {
    write_file_atomically(path.string(), "x");
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
}

using EnsureWritable = TempDir;

TEST_F(EnsureWritable, WritablePathPassesAndCreatesNothing) {
  EXPECT_NO_THROW(ensure_writable((dir_ / "out.json").string()));
  EXPECT_TRUE(entries().empty());
}

TEST_F(EnsureWritable, MissingDirectory) {
  try {
    ensure_writable((dir_ / "missing" / "out.json").string());
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos) << e.what();
  }
}

TEST_F(EnsureWritable, DirectoryPath) {
  try {
    ensure_writable(dir_.string());
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
}

TEST_F(EnsureWritable, ReadOnlyDirectory) {
  if (::geteuid() == 0) GTEST_SKIP() << "root bypasses directory permissions";
  fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec);
  EXPECT_THROW(ensure_writable((dir_ / "out.json").string()), std::invalid_argument);
}

using ResultsFileTest = TempDir;

Check sample_check(Verdict v) {
  Check c;
  c.suite = "stream";
  c.name = "triad/fp64/host/roofline";
  c.law = "t >= bytes / BW";
  c.predicted = 1e-3;
  c.measured = 2e-3;
  c.tolerance = 0.05;
  c.verdict = v;
  c.reason = "ok";
  return c;
}

TEST_F(ResultsFileTest, GrowsOneCaseAtATimeAndFinishes) {
  const fs::path path = dir_ / "results.json";
  json context = {{"boundbench", {{"version", "0.1.0"}}}, {"host_name", "testhost"}};
  ResultsFile file(path.string(), context);

  json doc = read_json(path);
  EXPECT_EQ(doc["context"]["boundbench"]["complete"], false);
  EXPECT_EQ(doc["context"]["boundbench"]["version"], "0.1.0");
  EXPECT_EQ(doc["context"]["host_name"], "testhost");
  ASSERT_TRUE(doc["benchmarks"].is_array());
  ASSERT_TRUE(doc["checks"].is_array());
  EXPECT_TRUE(doc["benchmarks"].empty());
  EXPECT_TRUE(doc["checks"].empty());

  file.add({json{{"name", "a"}, {"real_time", 1.5}}}, {sample_check(Verdict::pass)});
  doc = read_json(path);
  ASSERT_EQ(doc["benchmarks"].size(), 1u);
  EXPECT_EQ(doc["benchmarks"][0]["name"], "a");
  ASSERT_EQ(doc["checks"].size(), 1u);
  EXPECT_EQ(doc["checks"][0]["verdict"], "PASS");
  EXPECT_EQ(doc["context"]["boundbench"]["complete"], false);

  file.add({json{{"name", "b"}}, json{{"name", "c"}}},
           {sample_check(Verdict::fail), sample_check(Verdict::skip)});
  doc = read_json(path);
  ASSERT_EQ(doc["benchmarks"].size(), 3u);
  EXPECT_EQ(doc["benchmarks"][2]["name"], "c");
  ASSERT_EQ(doc["checks"].size(), 3u);
  EXPECT_EQ(doc["checks"][2]["verdict"], "SKIP");
  EXPECT_EQ(doc, file.document());

  file.finish();
  doc = read_json(path);
  EXPECT_EQ(doc["context"]["boundbench"]["complete"], true);
  EXPECT_EQ(doc["benchmarks"].size(), 3u);
  EXPECT_EQ(doc, file.document());
  EXPECT_EQ(entries(), std::vector<std::string>{"results.json"});
}

TEST(CheckJson, NonFiniteIsNullAndVerdictNames) {
  Check c;  // predicted, measured and tolerance default to NaN
  c.name = "x";
  json j = to_json(c);
  EXPECT_TRUE(j["predicted"].is_null());
  EXPECT_TRUE(j["measured"].is_null());
  EXPECT_TRUE(j["tolerance"].is_null());
  EXPECT_EQ(j["verdict"], "SKIP");
  EXPECT_EQ(j["name"], "x");
  // The dump must be valid JSON (no NaN token).
  EXPECT_EQ(json::parse(j.dump()), j);

  c.measured = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(to_json(c)["measured"].is_null());

  j = to_json(sample_check(Verdict::pass));
  EXPECT_EQ(j["verdict"], "PASS");
  EXPECT_EQ(j["predicted"], 1e-3);
  EXPECT_EQ(j["measured"], 2e-3);
  EXPECT_EQ(j["tolerance"], 0.05);
  EXPECT_EQ(j["suite"], "stream");
  EXPECT_EQ(j["law"], "t >= bytes / BW");
  EXPECT_EQ(j["reason"], "ok");
  EXPECT_EQ(to_json(sample_check(Verdict::fail))["verdict"], "FAIL");
}

}  // namespace
}  // namespace bb
