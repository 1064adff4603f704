// The engines the collectives suite measures: MPI between processes (CPU) and NCCL between GPUs.
// boundbench does not move the bytes itself; it prepares inputs with exactly predictable results,
// runs the engine's collective in lockstep on every rank, verifies and times it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "reference/collectives.h"
#include "theory/collectives.h"

namespace bb::collectives {

struct Spec {
  theory::Collective op = theory::Collective::all_reduce;
  reference::DType dtype = reference::DType::fp32;
  reference::RedOp redop = reference::RedOp::sum;
  bool in_place = false;
  int root = 0;
};

// How the per-rank times of one sample become the sample: the slowest rank (nccl-tests) or the
// mean.
enum class TimeReduction { max, mean };

// The processes of the run: MPI_COMM_WORLD under mpirun/srun, or this process alone. Every call is
// collective over all processes unless it says otherwise.
class Processes {
 public:
  virtual ~Processes() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::string launcher() const = 0;  // "mpi", "single"
  // Processes sharing this node (for oversubscription: ranks beyond the cores share them).
  virtual int on_this_node() const = 0;
  // True everywhere when every process passed the same `text`; otherwise `differing` (on rank 0)
  // names the first process that did not.
  virtual bool same_everywhere(const std::string& text, std::string& differing) = 0;
  // The smallest of every process's `v` (so that all plan with the same numbers).
  virtual double min_over_all(double v) = 0;
  // All processes meet; those with nothing to do wait here without spinning.
  virtual void meet() = 0;
  // Not collective: ends every process of the run (MPI_Abort), after printing `message`.
  [[noreturn]] virtual void abort(const std::string& message, int exit_code) = 0;
};

// Creates MPI's world when boundbench runs under an MPI launcher or `want_mpi` is set (and was
// built with MPI); otherwise the single process. Throws std::runtime_error when MPI is wanted but
// unavailable.
std::unique_ptr<Processes> make_processes(bool want_mpi, int& argc, char**& argv);
bool launched_by_mpi();  // OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_RANK or MPI_LOCALNRANKS in the env

// One engine over the processes. A "group" is the first `ranks` ranks; the others sit it out.
class Transport {
 public:
  virtual ~Transport() = default;
  virtual std::string name() const = 0;  // "mpi", "nccl"
  virtual int world_ranks() const = 0;
  virtual std::string description() const = 0;  // library version, devices
  // Collective over all processes: forms the group; true where this process takes part.
  virtual bool begin_group(int ranks) = 0;
  virtual void end_group() = 0;
  // Empty when the engine runs `spec`; otherwise why not (e.g. in-place all_to_all).
  virtual std::string unsupported(const Spec& spec) const = 0;
  virtual void prepare(const Spec& spec, const reference::CollectiveShape& shape) = 0;
  // Poisons the outputs, runs the collective once and counts wrong elements over the group.
  virtual std::uint64_t run_and_verify() = 0;
  // `iterations` back-to-back collectives; seconds per collective reduced over the group's ranks
  // (the same value on every process of the group).
  virtual double sample_s(int iterations, TimeReduction reduction) = 0;
  virtual void release() = 0;
  // Ends the run from the watchdog thread: ncclCommAbort / MPI_Abort, exit `exit_code`.
  [[noreturn]] virtual void abort(const std::string& message, int exit_code) = 0;
};

// all_to_all and send_recv run out of place only (NCCL has no in-place form of them; the MPI
// engine measures the same set).
inline bool has_in_place(theory::Collective op) {
  return op != theory::Collective::all_to_all && op != theory::Collective::send_recv;
}

// Throws std::runtime_error naming what is missing (not built with MPI or NCCL, no GPU, …).
std::unique_ptr<Transport> make_mpi_transport(Processes& processes);
std::unique_ptr<Transport> make_nccl_transport(Processes& processes, int device_count);

}  // namespace bb::collectives
