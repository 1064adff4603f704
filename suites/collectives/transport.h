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
using kernels::has_in_place;

// One engine over the processes. A "group" is the first `ranks` ranks; the others sit it out.
class Transport : public lockstep::Engine {
 public:
  virtual int world_ranks() const = 0;
  virtual std::string description() const = 0;  // library version, devices
  // Collective over all processes: forms the group; true where this process takes part.
  virtual bool begin_group(int ranks) = 0;
  virtual void end_group() = 0;
  // Empty when the engine runs `spec` at `shape` on the group; otherwise why not (e.g. in-place
  // all_to_all). The same answer on every rank.
  virtual std::string unsupported(const Spec& spec,
                                  const reference::CollectiveShape& shape) const = 0;
  virtual void prepare(const Spec& spec, const reference::CollectiveShape& shape) = 0;
  // Poisons the outputs, runs the collective once and counts wrong elements over the group.
  virtual std::uint64_t run_and_verify() = 0;
  virtual void release() = 0;
};

// Throw std::runtime_error naming what is missing (not built with MPI or NCCL, no GPU, …).
std::unique_ptr<Transport> make_mpi_transport(lockstep::Processes& processes);
std::unique_ptr<Transport> make_nccl_transport(lockstep::Processes& processes, int device_count);

#ifdef BOUNDBENCH_WITH_MPI
// MPI's world as the run's processes (transport_mpi.cpp).
std::unique_ptr<lockstep::Processes> open_mpi_processes(int& argc, char**& argv);
inline constexpr lockstep::OpenMpiWorld kOpenMpiWorld = &open_mpi_processes;
// The MPI world behind `processes`; null for a single process.
kernels::MpiWorld* mpi_world(lockstep::Processes& processes);
#else
inline constexpr lockstep::OpenMpiWorld kOpenMpiWorld = nullptr;
#endif

}  // namespace bb::collectives
