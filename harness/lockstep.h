// The lockstep sampling loop: every rank of a group times the same operation the same number of
// times (as nccl-tests does), each sample reduced over the ranks, so that every rank holds the
// same numbers; and the measured sizes run one after the other under a watchdog, an error on one
// rank ending every rank. The engine is the suite's (harness/lockstep_engine.h).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "harness/lockstep_engine.h"
#include "harness/watchdog.h"

namespace bb::lockstep {

// One sample: the group meets, times `iterations` operations, and reduces the per-rank seconds
// per operation (the same value on every rank of the group).
double sample_s(Engine& engine, int iterations, TimeReduction reduction);

struct SampleRule {
  int samples = 10;
  int warmup = 5;               // operations before the samples (nccl-tests' -w); 0: none
  double sample_time_s = 0.01;  // target time of one sample
  TimeReduction reduction = TimeReduction::max;
};

struct Sampled {
  std::vector<double> times_s;     // per operation, one per sample
  int iterations = 1;              // operations per sample
  double cpu_per_operation_s = 0;  // this process's CPU time over the samples
  double wall_s = 0;               // the samples' wall time, barriers and reductions included
};

// A pilot sample (the slowest rank's time, exact and the same bits everywhere) sets the operations
// per sample for all ranks; then the warm-up and the samples.
Sampled sample_in_lockstep(Engine& engine, const SampleRule& rule);

// The measured sizes of a run, one after the other, each the same on every rank of the group.
class Lockstep {
 public:
  struct Settings {
    std::string who;         // starts every message: "boundbench collectives"
    double timeout_s = 120;  // per size (--timeout)
    int rank = 0;            // this process's, for messages
    int simulate_hang = -1;  // testing the watchdog: this rank stops at the second size it runs
  };
  Lockstep(Engine& engine, Settings settings);

  // Runs `body` (one size: preparing, verifying and sampling it) under the watchdog, which names
  // it `what` when it hangs. An exception in `body` would leave the other ranks waiting in their
  // next collective: it ends every rank with "<who>: error: <name> on rank r: <what>", exit 1.
  void measure(const std::string& what, const std::string& name, const std::function<void()>& body);

 private:
  Engine& engine_;
  Settings settings_;
  Watchdog watchdog_;
  int measured_ = 0;
};

}  // namespace bb::lockstep
