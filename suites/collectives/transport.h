// The engines the collectives suite measures: MPI between processes (CPU) and NCCL between GPUs.
// boundbench does not move the bytes itself; it prepares inputs with exactly predictable results,
// runs the engine's collective (kernels/collectives_mpi.h, kernels/collectives_nccl.h) in lockstep
// on every rank, verifies and times it. A transport adapts those wrappers to the lockstep
// harness's engine (harness/lockstep_engine.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "harness/lockstep_engine.h"
#include "kernels/collectives.h"
#include "reference/collectives.h"

namespace bb::kernels {
class MpiWorld;
}

namespace bb::collectives {

using Spec = kernels::CollectiveSpec;

// One engine over the processes. A "group" is the first `ranks` ranks; the others sit it out.
class Transport : public lockstep::Engine {
 public:
  virtual int world_ranks() const = 0;
  virtual std::string description() const = 0;  // library version, devices
  // Collective over all processes: forms the group; true where this process takes part.
  virtual bool begin_group(int ranks) = 0;
  virtual void end_group() = 0;
  // Whether the engine runs `spec` at `shape` on the group; the same answer on every rank.
  virtual bool runs(const Spec&, const reference::CollectiveShape&) const { return true; }
  // Prepares `spec` at `shape` (freeing the previous size's buffers first), runs it once on
  // poisoned outputs and counts the wrong elements on this process.
  virtual std::uint64_t prepare_and_verify(const Spec& spec,
                                           const reference::CollectiveShape& shape) = 0;
};

// One rank's host buffers before a verified run: its input filled, its output (max(in_count,
// out_count) elements) poisoned, and in place the input copied where nccl-tests and MPI expect it
// in the output (a broadcast's receivers keep the poison).
void fill_buffers(const Spec& spec, const reference::CollectiveShape& shape, int rank, int ranks,
                  void* input, void* output);

// The node-local rank the launcher gave this process (SLURM_LOCALID, else MPI_LOCALRANKID, else
// OMPI_COMM_WORLD_LOCAL_RANK), or -1 when none is set: it picks the process's GPU.
int launcher_local_rank();

// Throw std::runtime_error naming what is missing (not built with MPI or NCCL, no GPU, …).
std::unique_ptr<Transport> make_mpi_transport(lockstep::Processes& processes);
std::unique_ptr<Transport> make_nccl_transport(lockstep::Processes& processes, int device_count);

#ifdef BOUNDBENCH_WITH_MPI
// MPI's world as the run's processes (transport_mpi.cpp).
std::unique_ptr<lockstep::Processes> open_mpi_processes(int& argc, char**& argv);
inline constexpr lockstep::OpenMpiWorld kOpenMpiWorld = &open_mpi_processes;
#else
inline constexpr lockstep::OpenMpiWorld kOpenMpiWorld = nullptr;
#endif
// The MPI world behind `processes`; null for a single process and without MPI.
kernels::MpiWorld* mpi_world(lockstep::Processes& processes);

}  // namespace bb::collectives
