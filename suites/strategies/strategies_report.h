// What rank 0 of a strategies run reports: the results file (suite "strategies", the collectives'
// format, so that compare and report read it), a table line per case with the measurement beside
// its prediction, the checks, and the summary.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "harness/case.h"
#include "harness/host_info.h"
#include "harness/lockstep_engine.h"
#include "harness/results.h"
#include "harness/summary.h"
#include "suites/collectives/collectives_checks.h"
#include "suites/strategies/strategies_steps.h"

namespace bb::strategies {

// The run as every rank settled it.
struct Setup {
  std::string engine;       // "mpi"
  std::string description;  // the engine's: library version, processes
  int ranks = 1;
  double tolerance = 0.05;
};

class Report {
 public:
  Report(const Options& o, const Setup& setup, const lockstep::Processes& processes);
  // The links the predictions use, into the file's context and the output.
  void add_links(const Link& all_reduce, const Link& all_to_all);
  void add(const CaseResult& r);
  // The synthetic waits' accuracy (over every rank), the summary; returns the exit code.
  int finish(const Compute& compute, double max_overshoot_s, double mean_overshoot_s);

 private:
  const Options& o_;
  const Setup& setup_;
  std::chrono::steady_clock::time_point start_;
  HostInfo host_;
  ResultsFile file_;
  std::vector<SummaryRow> rows_;
  std::vector<Check> checks_;
};

// The link a strategies results file measured (figures.strategies.links.all_reduce),
// for `theory --from`; throws std::invalid_argument naming the file when it has none.
collectives::MeasuredLink measured_link(const nlohmann::json& results, const std::string& path);

}  // namespace bb::strategies
