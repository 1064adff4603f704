// The lockstep sampling loop: every rank of a group times the same operation the same number of
// times (as nccl-tests does), each sample reduced over the ranks, so that every rank holds the
// same numbers; and the measured sizes run one after the other under a watchdog, an error on one
// rank ending every rank. The engine is the suite's (harness/lockstep_engine.h).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "harness/lockstep_engine.h"

namespace bb::lockstep {

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
// per sample for all ranks; then the warm-up and the samples. Each sample: the group meets, times
// `iterations` operations, and reduces the per-rank seconds per operation.
Sampled sample_in_lockstep(Engine& engine, const SampleRule& rule);

// The measured sizes of a run, one after the other, each the same on every rank of the group. A
// hung collective never returns, so a watchdog waits in its own thread and aborts every rank
// through the group when one size takes longer than the timeout (results written so far stay on
// disk).
class Lockstep {
 public:
  struct Settings {
    std::string who;         // starts every message: "boundbench collectives"
    double timeout_s = 120;  // per size (--timeout); beyond 10^9 s (31 years) held there
    int rank = 0;            // this process's, for messages
    int simulate_hang = -1;  // testing the watchdog: this rank stops at the second size it runs
  };
  Lockstep(Group& group, Settings settings);
  ~Lockstep();  // not copyable, as its mutex and thread are not

  // Runs `body` (one size: preparing, verifying and sampling it) under the watchdog. Past the
  // timeout, the group aborts with "<who>: error: <what> did not complete within <t> s
  // (--timeout): …", exit 3; `what`: "all_reduce of 16 bytes on 2 ranks (…)". An exception in
  // `body` would leave the other ranks waiting in their next collective: it ends every rank with
  // "<who>: error: <name> on rank r: <what>", exit 1.
  void measure(const std::string& what, const std::string& name, const std::function<void()>& body);

 private:
  void watch();  // the watchdog's thread

  Group& group_;
  Settings settings_;
  int measured_ = 0;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::string what_;  // the size being measured while armed_
  std::chrono::steady_clock::time_point deadline_;
  bool armed_ = false, stop_ = false;
  std::thread watchdog_;
};

}  // namespace bb::lockstep
