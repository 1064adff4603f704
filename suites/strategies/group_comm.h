// What the MPI and NCCL engines (comm_mpi.cpp, comm_nccl.cpp) share: the run's processes
// (kernels/collectives_mpi.h) and the group of the first of them that the engine drives, which
// carries the lockstep harness's reductions, barriers and abort, and the meeting of every process.
#pragma once

#include <string>

#include "kernels/collectives_mpi.h"
#include "suites/strategies/step_comm.h"

namespace bb::strategies {

class GroupComm : public StepComm {
 public:
  // Collective over the world: its first `ranks` processes (member() false on the others, which
  // must not use it).
  GroupComm(kernels::MpiWorld& world, int ranks) : world_(world), group_(world, ranks) {}
  bool member() const { return group_.member(); }

  int rank() const override { return group_.rank(); }
  void meet_everyone() override { world_.meet(); }
  int group_ranks() const override { return group_.size(); }
  void barrier() override { group_.barrier(); }
  double max_over_group(double v) override { return group_.max(v); }
  double sum_over_group(double v) override { return group_.sum(v); }
  // Over NCCL too, not ncclCommAbort: it may wait for the peers, which the launcher ends when this
  // one exits.
  [[noreturn]] void abort(const std::string& message, int exit_code) override {
    world_.abort(message, exit_code);
  }

 protected:
  kernels::MpiWorld& world_;
  kernels::MpiGroup group_;
};

}  // namespace bb::strategies
