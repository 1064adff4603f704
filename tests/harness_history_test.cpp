// The history store (harness/history_store.h): a run added twice is one run, a document comes back
// as it went in, two processes adding at once both land, a process killed in the middle of an add
// leaves the store as it was, and a file that is not a store is refused.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "harness/history_store.h"

namespace bb {
namespace {

using json = nlohmann::json;

json fingerprint(const std::string& cpu) {
  return {{"cpu", {{"model_name", cpu}, {"vendor", "AuthenticAMD"}}},
          {"topology", {{"cores", 2}, {"threads", 2}}},
          {"gpus", json::array()}};
}

// A results document with `cases` cases whose medians are `base_s`·(1 + i/100).
json make_run(const std::string& commit, const std::string& date, int cases, double base_s = 1e-3,
              const std::string& cpu = "AMD EPYC") {
  json benchmarks = json::array();
  for (int i = 0; i < cases; ++i) {
    const double m = base_s * (1 + i / 100.0);
    benchmarks.push_back({{"name", fmt::format("suite/case{}", i)},
                          {"run_type", "iteration"},
                          {"median_s", m},
                          {"samples_s", {m * 0.99, m, m * 1.02}}});
  }
  return {{"context",
           {{"date", date},
            {"boundbench",
             {{"schema_version", 2},
              {"git_commit", commit},
              {"date", date},
              {"label", "ci"},
              {"complete", true},
              {"fingerprint", fingerprint(cpu)}}}}},
          {"benchmarks", benchmarks},
          {"checks", {{{"name", "suite/case0/validate"}, {"verdict", "PASS"}}}}};
}

std::string date_of(int i) { return fmt::format("2026-12-01T{:02d}:{:02d}:00Z", i / 60, i % 60); }

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    char tmpl[] = "/tmp/bb_history_XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

TEST(HistoryStore, SameRunTwiceIsOneRunAndComesBackWhole) {
  const TempDir dir;
  const std::string db = dir.file("h.sqlite");
  const json a = make_run("c1", date_of(0), 5);
  {
    HistoryStore s(db);
    const auto added = s.add({{"a.json", a}});
    ASSERT_EQ(added.size(), 1u);
    EXPECT_EQ(added[0].outcome, "added");
    EXPECT_EQ(added[0].cases, 5u);
  }
  HistoryStore s(db);  // reopened: the schema is there, nothing duplicated
  const auto again = s.add({{"a-copy.json", a}, {"a.json", a}});
  EXPECT_EQ(again[0].outcome, "already stored");
  EXPECT_EQ(again[1].outcome, "already stored");
  EXPECT_EQ(s.run_count(), 1u);
  const auto docs = s.documents();
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_EQ(docs[0]["benchmarks"], a["benchmarks"]);  // samples included, bit for bit
  EXPECT_EQ(docs[0]["checks"], a["checks"]);
  EXPECT_EQ(docs[0]["context"], a["context"]);
}

TEST(HistoryStore, AGrownFileReplacesItsShorterCopy) {
  const TempDir dir;
  HistoryStore s(dir.file("h.sqlite"));
  s.add({{"run.json", make_run("c1", date_of(0), 3)}});
  const auto grown = s.add({{"run.json", make_run("c1", date_of(0), 6)}});
  EXPECT_EQ(grown[0].outcome, "updated");
  EXPECT_EQ(s.run_count(), 1u);
  EXPECT_EQ(s.documents()[0]["benchmarks"].size(), 6u);
  // A shorter copy of a stored run never replaces it.
  EXPECT_EQ(s.add({{"run.json", make_run("c1", date_of(0), 2)}})[0].outcome, "already stored");
  EXPECT_EQ(s.documents()[0]["benchmarks"].size(), 6u);
}

TEST(HistoryStore, MachinesAndSeriesInMeasurementOrder) {
  const TempDir dir;
  HistoryStore s(dir.file("h.sqlite"));
  // Added out of order; two machines.
  s.add({{"2", make_run("c2", date_of(2), 2, 2e-3)}, {"0", make_run("c0", date_of(0), 2, 1e-3)}});
  s.add({{"1", make_run("c1", date_of(1), 2, 1.5e-3)},
         {"x", make_run("c9", date_of(5), 2, 9e-3, "Intel Xeon")}});
  const History h = s.history({});
  ASSERT_EQ(h.machines.size(), 2u);
  ASSERT_EQ(h.cases.size(), 4u);
  for (const auto& c : h.cases) {
    const MachineRuns& m = h.machines[c.machine];
    if (m.description.starts_with("Intel")) {
      EXPECT_EQ(c.median_s.size(), 1u);
      continue;
    }
    ASSERT_EQ(c.median_s.size(), 3u);
    EXPECT_EQ(m.commits, (std::vector<std::string>{"c0", "c1", "c2"}));
    EXPECT_LT(c.median_s[0], c.median_s[1]);
    EXPECT_LT(c.median_s[1], c.median_s[2]);
  }
  EXPECT_EQ(s.history({.machine = "Intel"}).machines.size(), 1u);
  EXPECT_EQ(s.history({.case_regex = "case1$"}).cases.size(), 2u);
  EXPECT_EQ(s.history({.since = date_of(1)}).cases[0].median_s.size(), 2u);
}

TEST(HistoryStore, TwoProcessesAddingAtOnceLoseNothing) {
  const TempDir dir;
  const std::string db = dir.file("h.sqlite");
  HistoryStore(db).add({{"seed", make_run("c0", date_of(0), 50)}});
  constexpr int kRunsEach = 15;
  std::vector<pid_t> children;
  for (int child = 0; child < 2; ++child) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int code = 0;
      try {
        HistoryStore s(db);
        for (int i = 0; i < kRunsEach; ++i) {
          const int k = 1 + child * kRunsEach + i;
          // One add per run, as separate CI jobs would, plus one run both add.
          s.add({{"r", make_run(fmt::format("c{}", k), date_of(k), 50)},
                 {"shared", make_run("shared", date_of(99), 50)}});
        }
      } catch (const std::exception& e) {
        std::fprintf(stderr, "child %d: %s\n", child, e.what());
        code = 1;
      }
      _exit(code);
    }
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  HistoryStore s(db);
  EXPECT_EQ(s.run_count(), 1u + 2 * kRunsEach + 1);
  for (const auto& c : s.history({}).cases) EXPECT_EQ(c.median_s.size(), 2u * kRunsEach + 2);
}

TEST(HistoryStore, AKilledAddLeavesTheStoreAsItWas) {
  const TempDir dir;
  const std::string db = dir.file("h.sqlite");
  HistoryStore(db).add({{"first", make_run("c0", date_of(0), 20)}});
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(ready[0]);
    HistoryStore s(db);
    std::vector<std::pair<std::string, json>> runs;
    for (int i = 1; i <= 4; ++i)
      runs.emplace_back("r", make_run(fmt::format("c{}", i), date_of(i), 20));
    // After the first of four runs is written, inside the transaction, tell the parent and wait
    // to be killed.
    s.add(runs, [&](const AddedRun&) {
      if (write(ready[1], "x", 1) != 1) _exit(3);
      pause();
    });
    _exit(0);
  }
  close(ready[1]);
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);  // the child is inside its transaction
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  close(ready[0]);
  ASSERT_TRUE(WIFSIGNALED(status));
  HistoryStore s(db);
  EXPECT_EQ(s.run_count(), 1u);
  const auto docs = s.documents();
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_EQ(docs[0]["benchmarks"].size(), 20u);
  // The store still takes runs.
  s.add({{"next", make_run("c5", date_of(5), 20)}});
  EXPECT_EQ(s.run_count(), 2u);
}

TEST(HistoryStore, AFileThatIsNotAStoreIsRefused) {
  const TempDir dir;
  const std::string text = dir.file("notes.txt");
  std::ofstream(text) << "not a database at all, just some text that is long enough to be a page";
  EXPECT_THROW(HistoryStore{text}, std::invalid_argument);
  EXPECT_EQ(std::filesystem::file_size(text), 70u);  // untouched
  const std::string other = dir.file("other.sqlite");
  {
    HistoryStore s(other);  // a store, then its format marker changed: another program's file
  }
  {
    const pid_t pid = fork();
    if (pid == 0) {
      execlp("sqlite3", "sqlite3", other.c_str(), "UPDATE meta SET value='x' WHERE key='format'",
             static_cast<char*>(nullptr));
      _exit(77);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) GTEST_SKIP() << "no sqlite3 command";
  }
  try {
    HistoryStore s(other);
    FAIL() << "opened a foreign store";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not a boundbench history store"), std::string::npos);
  }
}

TEST(HistoryStore, MachineIdIgnoresAnEmptyGpuList) {
  json with = fingerprint("A"), without = fingerprint("A");
  without.erase("gpus");
  EXPECT_EQ(machine_id(with), machine_id(without));
  EXPECT_NE(machine_id(fingerprint("A")), machine_id(fingerprint("B")));
  EXPECT_EQ(machine_id(with).size(), 16u);
}

}  // namespace
}  // namespace bb
