// `boundbench collectives`: the collectives suite's own driver. Every rank must run the same
// collectives the same number of times, so it sweeps sizes in lockstep (as nccl-tests does) instead
// of the harness's per-process stopping rule; it writes the same results file (suite
// "collectives").
#pragma once

#include <string>
#include <vector>

namespace bb::collectives {

struct Options {
  std::string transport = "auto";  // auto, mpi, nccl
  std::vector<std::string> ops;    // empty: all
  std::vector<std::string> dtypes{"fp32"};
  std::vector<std::string> redops{"sum"};
  std::string placement = "out-of-place";  // out-of-place, in-place, both
  double min_bytes = 8, max_bytes = 0;     // 0: the default of the transport and mode
  double step_factor = 2;
  std::vector<int> ranks;    // rank counts; empty: powers of two up to the world, and the world
  int samples = 0;           // per size; 0: 3 with --quick, else 10
  int warmup = 5;            // collectives before the samples (nccl-tests' -w)
  double sample_time_s = 0;  // target per sample; 0: 1 ms with --quick, else 10 ms
  bool coverage = true;      // every type, operator and placement at a few sizes
  double timeout_s = 120;    // watchdog, per size
  std::string time_reduction = "max";  // max, mean
  bool quick = false, no_fail = false;
  bool strict = false;  // INCONCLUSIVE and BELOW-EXPECTATION fail the run too
  std::string out = "boundbench-collectives.json", summary;
  // Testing the watchdog: this rank stops at the second size it takes part in.
  int simulate_hang = -1;
  std::string command_line;
};

// Runs the suite on every rank; returns the exit code (0, 1 a check failed, 2 bad input).
int run(Options options, int& argc, char**& argv);

}  // namespace bb::collectives
