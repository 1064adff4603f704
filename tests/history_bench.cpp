// history_bench DB RUNS CASES: builds a history store of RUNS runs × CASES cases (one commit per
// run, 2% Student-t(3) run-to-run noise, 10 kept samples per case; every 10th case steps +10% at
// run RUNS/2), writes the last run also as DB.run.json (for timing `history add` of one run into
// the full store), then times reading the store and finding its change points as
// `boundbench history changes` does. Exit 1 when fewer than 90% of the planted steps are found
// within 2 commits or more than 1% of the unchanged cases are flagged.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>

#include <fmt/format.h>

#include "harness/history_changes.h"
#include "harness/history_store.h"

namespace {

using json = nlohmann::json;

json make_run(int run, int cases, std::mt19937_64& rng, int step_at) {
  std::student_t_distribution<double> noise(3);
  json benchmarks = json::array();
  for (int c = 0; c < cases; ++c) {
    const double planted = c % 10 == 0 && run >= step_at ? 1.10 : 1.0;
    const double m = 1e-4 * (1 + c % 7) * planted * std::exp(0.02 * noise(rng));
    json samples = json::array();
    for (int i = 0; i < 10; ++i) samples.push_back(m * (1 + 0.002 * (i - 5)));
    benchmarks.push_back({{"name", fmt::format("suite/case{:04d}", c)},
                          {"run_type", "iteration"},
                          {"median_s", m},
                          {"samples_s", samples}});
  }
  // One run an hour from 2025-01-01T00:00:00Z (1735689600 s).
  const std::time_t t = 1735689600 + static_cast<std::time_t>(run) * 3600;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return {{"context",
           {{"boundbench",
             {{"schema_version", 2},
              {"git_commit", fmt::format("{:040x}", run)},
              {"date", date},
              {"label", "bench"},
              {"complete", true},
              {"fingerprint", {{"cpu", {{"model_name", "bench CPU"}}}}}}}}},
          {"benchmarks", benchmarks},
          {"checks", json::array()}};
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: history_bench DB RUNS CASES\n");
    return 2;
  }
  const std::string db = argv[1];
  const int runs = std::stoi(argv[2]), cases = std::stoi(argv[3]), step_at = runs / 2;
  std::filesystem::remove(db);
  std::filesystem::remove(db + "-wal");
  std::filesystem::remove(db + "-shm");
  std::mt19937_64 rng(7);
  auto t0 = std::chrono::steady_clock::now();
  {
    bb::HistoryStore store(db);
    std::vector<std::pair<std::string, json>> batch;
    for (int r = 0; r < runs; ++r) {
      json doc = make_run(r, cases, rng, step_at);
      if (r + 1 == runs) std::ofstream(db + ".run.json") << doc.dump();
      batch.emplace_back(fmt::format("run{}", r), std::move(doc));
      if (batch.size() == 100 || r + 1 == runs) {
        store.add(batch);
        batch.clear();
      }
    }
  }
  std::printf("built %d runs x %d cases in %.1f s (%.0f MiB)\n", runs, cases, seconds_since(t0),
              static_cast<double>(std::filesystem::file_size(db)) / (1 << 20));
  t0 = std::chrono::steady_clock::now();
  const bb::HistoryStore store(db);
  const bb::History h = store.history({});
  const double read_s = seconds_since(t0);
  const bb::ChangeReport r = bb::find_history_changes(h);
  const double total_s = seconds_since(t0);
  std::set<std::string> found, flagged;
  for (const auto& c : r.changes) {
    const int index = std::stoi(c.case_name.substr(c.case_name.size() - 4));
    if (index % 10 == 0 && c.slower() && c.index >= static_cast<std::size_t>(step_at) &&
        c.index <= static_cast<std::size_t>(step_at) + 2)
      found.insert(c.case_name);
    else if (index % 10 != 0)
      flagged.insert(c.case_name);
  }
  const int planted = (cases + 9) / 10, unchanged = cases - planted;
  std::printf("read %.2f s, change points %.2f s, total %.2f s; %zu series, %zu run medians\n",
              read_s, total_s - read_s, total_s, r.series, r.points);
  std::printf(
      "planted +10%% steps found within 2 commits: %zu of %d; unchanged cases flagged: %zu "
      "of %d\n",
      found.size(), planted, flagged.size(), unchanged);
  const bool ok = found.size() * 10 >= static_cast<std::size_t>(planted) * 9 &&
                  flagged.size() * 100 <= static_cast<std::size_t>(unchanged);
  return ok ? 0 : 1;
}
