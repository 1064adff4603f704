// Selects cases, registers them with Google Benchmark (manual time, one iteration per repetition),
// samples them with the harness's stopping rule, derives rates, checks and results.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/case.h"
#include "harness/gpu.h"
#include "harness/host_info.h"
#include "harness/stats.h"
#include "harness/summary.h"

namespace bb {

struct Environment {
  HostInfo host;
  GpuStatus gpus;
};

// The default of `run --spare`: what the full default run on a 2-core VM (344.5 s idle,
// results/cpu-ci-epyc-2vcpu-kvm/run-sequential-idle.json) leaves of issue 27's 8 minutes, less a
// margin; the offline replay of that run (ci/replay_stopping.py) spends ~95 s of it.
inline constexpr double kDefaultSpareS = 120;

struct RunOptions {
  std::vector<std::string> suites;  // empty: all
  std::optional<Backend> backend;   // empty: every backend
  std::string filter;               // ECMAScript regex searched in "suite/case"
  bool quick = false;
  bool hot = false;  // do not flush L2 before GPU samples
  int device = 0;    // CUDA device the CUDA cases run on
  StoppingRule rule;
  // Issue 27: seconds the run may add beyond its cases' limits, shared first come first served by
  // the cases (and pairing groups) on track to their precision when they reach their limit
  // (stats.h, on_track; `run --spare`).
  double spare_s = 0;
  int repetitions = 1;
  std::optional<double> host_peak_bytes_per_s;  // host DRAM peak, when the user knows it
  // An earlier run of this machine whose measured ceilings bound the cases where this run did not
  // measure them (`run --ceilings RUN.json`); empty: none.
  std::string ceilings_path;
  double roofline_tolerance = 0.05;
  bool strict = false;  // INCONCLUSIVE and BELOW-EXPECTATION fail the run too
  std::string out_path;
  std::string summary_path;  // markdown summary; empty: none
  std::string command_line;
  std::string label;  // a short name for the run in reports and comparisons; empty: the file name
  std::vector<std::string> benchmark_args;  // passed on to Google Benchmark
};

struct SelectedCase {
  const Suite* suite = nullptr;
  const Case* item = nullptr;
  std::string full_name;  // "suite/case"
};

struct Selection {
  std::size_t matched = 0;  // cases the suites/backend/filter select, runnable here or not
  std::vector<SelectedCase> run;
  std::vector<Check> skipped;  // one SKIP per backend or case left out, with the reason
};

// Throws std::invalid_argument naming the known suites when a wanted one is not among them.
void require_known_suites(const std::vector<Suite>& suites, const std::vector<std::string>& wanted);

// Throws std::invalid_argument for an unknown suite or an invalid regex.
Selection select_cases(const std::vector<Suite>& suites, const RunOptions& opts,
                       const Environment& env);

struct RunOutcome {
  int cases = 0, case_errors = 0;
  VerdictCounts checks;
  // A FAIL or an error fails the run; INCONCLUSIVE and BELOW-EXPECTATION only when `strict`.
  bool failed(bool strict = false) const {
    return checks.fail > 0 || case_errors > 0 ||
           (strict && (checks.inconclusive > 0 || checks.below_expectation > 0));
  }
};

// Runs the selection, writing opts.out_path after every case. Throws only for problems that stop
// the whole run (e.g. the results file became unwritable); a case's own failure becomes a FAIL
// check.
RunOutcome run_cases(const Selection& selection, const RunOptions& opts, const Environment& env);

}  // namespace bb
