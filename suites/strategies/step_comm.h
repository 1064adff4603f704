// The communication a training step needs from an engine: point-to-point sends between pipeline
// stages, the all-reduce of gradients and activations, and MoE's all-to-all; over the run's
// processes, with the lockstep harness's group calls (reductions, barrier, abort) for the
// sampling loop and the watchdog. The strategies run on this interface only, whatever the engine
// (MPI: comm_mpi.cpp, over kernels/collectives_mpi.h; NCCL: comm_nccl.cpp, over
// kernels/nccl_steps.h, one process per GPU; what both share: group_comm.h).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "harness/lockstep_engine.h"

namespace bb::strategies {

class StepComm : public lockstep::Group {
 public:
  virtual int rank() const = 0;
  virtual std::string description() const = 0;  // library version, processes
  // Starts a send to `to` (the buffer lives until complete_sends()); `receive` returns once the
  // bytes from `from` have arrived. Not collective.
  virtual void send(const float* data, std::size_t count, int to, int tag) = 0;
  virtual void receive(float* data, std::size_t count, int from, int tag) = 0;
  virtual void complete_sends() = 0;
  // Collective: the sum over every rank, in place.
  virtual void all_reduce_sum(float* data, std::size_t count) = 0;
  // Collective, non-blocking: starts the sum over every rank of `count` floats in place, which the
  // engine progresses while this rank computes (every rank starts the same ones in the same
  // order); complete_all_reduces() returns once every started one has completed (--overlap).
  virtual void start_all_reduce_sum(float* data, std::size_t count) = 0;
  virtual void complete_all_reduces() = 0;
  // Collective: counts[r] floats to and from rank r, packed in rank order.
  virtual void all_to_all(const float* send, const std::vector<int>& send_counts, float* recv,
                          const std::vector<int>& recv_counts) = 0;
  // Collective over every process of the run (not only this group): the first `ranks` of them as
  // an engine of their own, for the weak-scaling sweep; null on the others, which sit it out.
  virtual std::unique_ptr<StepComm> first_ranks(int ranks) = 0;
  // Collective over every process of the run: all meet, those with nothing to do waiting without
  // holding a core.
  virtual void meet_everyone() = 0;
};

// Throws std::runtime_error naming what is missing (not built with MPI).
std::unique_ptr<StepComm> make_mpi_comm(lockstep::Processes& processes);
// Throws naming what is missing (built without CUDA, NCCL or MPI; no usable GPU; more processes
// on a node than GPUs).
std::unique_ptr<StepComm> make_nccl_comm(lockstep::Processes& processes);

}  // namespace bb::strategies
