// The strategies' training steps, each run on every rank in lockstep and held against its formula
// (theory/parallelism.h): data parallel with accumulation, pipeline (GPipe, 1F1B), tensor parallel
// (Megatron layer) and expert parallel (MoE all-to-alls, uniform and skewed router). First the link
// (α, β of the all-reduce and of the all-to-all), measured in the same run, that the predictions
// use.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/case.h"
#include "harness/lockstep.h"
#include "suites/strategies/compute.h"
#include "suites/strategies/step_comm.h"
#include "suites/strategies/strategies.h"
#include "theory/collectives.h"

namespace bb::strategies {

// One collective's α and β, fitted to its times at a few sizes measured on every rank.
struct Link {
  std::string collective;  // "all_reduce", "all_to_all"
  std::vector<double> bytes, times_s;
  double alpha_s = 0, beta_s_per_byte = 0;  // 0 with one rank (no communication)
  // β from the ends of the Theil–Sen slope's interval (at most `beta_s_per_byte` apart when the
  // fit has too few points for one).
  double beta_low_s_per_byte = 0, beta_high_s_per_byte = 0;
  double bytes_per_s() const { return beta_s_per_byte > 0 ? 1 / beta_s_per_byte : 0; }  // 1/β
};

// One measured case as rank 0 reports it: the results entry's figures and its checks.
struct CaseResult {
  std::string name;            // "pipeline/gpipe/p4/m8/synthetic"
  std::string strategy;        // data, pipeline, tensor, expert
  std::vector<double> step_s;  // per sample: the slowest rank's step
  double predicted_step_s = 0;
  double flop = 0;   // per step, over every rank (declared by theory/)
  double bytes = 0;  // per step, sent by every rank together
  // The link the step's collectives use ("all_reduce", "all_to_all": its measured α–β link) and the
  // bytes one rank puts on it per step in the busbw convention (theory::link_work); empty/0 where
  // the step has no collective across ranks (one rank, or the pipeline's sends).
  std::string link;
  double link_wire_bytes_per_rank = 0;
  nlohmann::json params, observations;
  std::vector<Check> checks;
};

// What every strategy needs: the options, the ranks' communication and compute, the links.
struct StepContext {
  const Options& o;
  StepComm& comm;
  Compute& compute;
  const Link& all_reduce;
  const Link& all_to_all;
  double tolerance = 0.05;       // the laws' relative band: 5% synthetic, 10% gemm
  lockstep::Lockstep& lockstep;  // runs each case's steps under the watchdog
};

// α and β of the all-reduce (sizes up to the larger of the bucket and the tensor-parallel
// activation) and of the all-to-all (up to the skewed router's busiest exchange); `non_blocking`:
// the all-reduce as the overlapped data-parallel step runs it, one per bucket queued at once.
Link measure_link(StepComm& comm, const Options& o, theory::Collective collective,
                  bool non_blocking = false);

// Each returns its cases (the same on every rank; checks judged there too).
std::vector<CaseResult> run_data_parallel(StepContext& c);
std::vector<CaseResult> run_pipeline(StepContext& c);
std::vector<CaseResult> run_tensor_parallel(StepContext& c);
std::vector<CaseResult> run_expert_parallel(StepContext& c);

// The GEMM shapes the compute may run at most (its buffers).
std::vector<GemmShape> largest_shapes(const Options& o, int ranks);

}  // namespace bb::strategies
