// What rank 0 of a collectives run reports: the results file (suite "collectives"), a table line
// and a verify check per measured size, then the laws over all sizes and the summary.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/case.h"
#include "harness/host_info.h"
#include "harness/lockstep.h"
#include "harness/results.h"
#include "harness/summary.h"
#include "suites/collectives/collectives_checks.h"
#include "suites/collectives/collectives_plan.h"

namespace bb::collectives {

// One measured size, as every rank of its group holds it.
struct Measured {
  Planned planned;
  reference::CollectiveShape shape;
  std::string name;  // case_name()
  int ranks = 1;
  int ranks_on_node = 1;    // of the group (1 for NCCL: one process drives the GPUs)
  std::uint64_t wrong = 0;  // over the group
  lockstep::Sampled sampled;
};

class Report {
 public:
  // Opens the results file with the run's context and prints the table's header.
  Report(const Options& o, const Setup& setup, const lockstep::Processes& processes);
  // Writes one size's entry and verify check, and prints its table line.
  void add(const Measured& m);
  // The laws, the figures and the summary; returns the exit code (1 when a check failed).
  int finish();

 private:
  const Options& o_;
  const Setup& setup_;
  std::chrono::steady_clock::time_point start_;
  HostInfo host_;  // cores_on_this_node: the CPUs this process may run on (cpuset included)
  ResultsFile file_;
  std::vector<SummaryRow> rows_;
  std::vector<Check> checks_;
  std::vector<Point> points_;
};

}  // namespace bb::collectives
