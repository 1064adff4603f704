// `boundbench strategies`: distributed training steps (data, pipeline, tensor and expert parallel)
// executed on every rank, compute and communication, each held against its formula from
// theory/parallelism.h. Every rank runs the same schedule the same number of times in lockstep, as
// the collectives suite does; the results file has the same format (suite "strategies").
#pragma once

#include <string>
#include <vector>

namespace bb::strategies {

struct Options {
  std::string engine = "auto";          // auto, mpi, nccl
  std::vector<std::string> strategies;  // data, pipeline, tensor, expert; empty: all
  std::string compute = "synthetic";    // synthetic, gemm
  double synthetic_flop_per_s = 1e9;    // the declared rate a synthetic compute waits at
  // The micro-batch: b sequences of s tokens of h features (fp32 activations).
  int batch = 1, sequence = 64, hidden = 128;
  // Pipeline: p stages (0: every rank; p must divide the ranks: ranks/p pipelines side by side)
  // and m micro-batches per step.
  int stages = 0;
  std::vector<int> micro_batches;      // default 4, 8, 16
  std::vector<std::string> schedules;  // gpipe, 1f1b, interleaved; empty: gpipe and 1f1b
  int chunks = 2;                      // interleaved: model chunks (virtual stages) per stage
  // Data parallel: accumulation steps, parameters and the all-reduce's bucket.
  std::vector<int> accumulation;  // default 1, 4, 16
  double parameters = 0;          // 0: 2^19 (--quick), 2^21
  double bucket_bytes = 0x1p20;
  // Each case also with the buckets' all-reduces overlapped with the last backward (split per
  // bucket, each all-reduce started, non-blocking, as its gradients are ready).
  bool overlap = false;
  // Tensor parallel: layers per step. Expert parallel: tokens per rank, experts per token.
  int layers = 2;
  int tokens = 64, top_k = 2;
  int samples = 0;         // steps measured per case; 0: 5 with --quick, else 15
  int warmup = 1;          // steps before the samples
  double timeout_s = 120;  // watchdog, per case
  bool quick = false, no_fail = false;
  std::string out = "boundbench-strategies.json", summary;
  int simulate_hang = -1;  // testing the watchdog: this rank stops at the second case
  std::string command_line;
};

// Runs the suite on every rank; returns the exit code (0, 1 a check failed, 2 bad input).
int run(Options options, int& argc, char**& argv);

}  // namespace bb::strategies
