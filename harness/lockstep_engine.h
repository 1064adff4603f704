// What the lockstep harness needs from an engine that measures across processes (MPI, NCCL): the
// processes of the run, and the group of ranks that measures one operation. Measuring in lockstep,
// every rank runs the same operations the same number of times in the same order (as nccl-tests
// does), instead of the harness's per-process stopping rule. The harness includes no MPI or NCCL:
// the suites implement these classes with the wrappers in kernels/.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace bb::lockstep {

// Exit codes of a run that ends every rank: as the command line's (1 a failure, 2 bad input), and
// 3 when an operation hung.
inline constexpr int kExitFailed = 1, kExitUsage = 2, kExitHang = 3;

// The processes of the run: MPI's world under mpirun/srun, or this process alone. Every call is
// collective over all processes unless it says otherwise.
class Processes {
 public:
  virtual ~Processes() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::string launcher() const = 0;  // "mpi", "single"
  // Processes sharing this node (for oversubscription: ranks beyond the cores share them).
  virtual int on_this_node() const = 0;
  // True everywhere when every process passed rank 0's `text`; otherwise `differing_rank` (on
  // rank 0) is the first process that did not.
  virtual bool same_everywhere(const std::string& text, int& differing_rank) = 0;
  // The smallest of every process's `v` (so that all plan with the same numbers).
  virtual double min_over_all(double v) = 0;
  // All processes meet; those with nothing to do wait here without spinning.
  virtual void meet() = 0;
  // Not collective: ends every process of the run, after printing `message` on stderr.
  [[noreturn]] virtual void abort(const std::string& message, int exit_code) = 0;
};

// Opens MPI's world (argc and argv as MPI_Init takes them); the suite that has one supplies it.
using OpenMpiWorld = std::unique_ptr<Processes> (*)(int& argc, char**& argv);

// MPI's world when started by an MPI launcher or when `want_mpi`; otherwise this process alone.
// `open_mpi` is null when boundbench was built without MPI: then wanting MPI, or being started by
// a launcher, throws std::runtime_error saying so.
std::unique_ptr<Processes> make_processes(bool want_mpi, OpenMpiWorld open_mpi, int& argc,
                                          char**& argv);
bool launched_by_mpi();  // OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_RANK or MPI_LOCALNRANKS in the env

// The Slurm task this process is when `srun` started it (SLURM_PROCID, SLURM_NTASKS,
// SLURM_LOCALID, SLURM_JOB_ID, SLURM_STEP_ID, SLURM_NODEID); ntasks 0 otherwise. The MPI rank
// and the local rank that picks a GPU come from the same launch (srun --mpi=pmix).
struct SlurmTask {
  int procid = -1, ntasks = 0, localid = -1, nodeid = -1;
  std::string job_id, step_id;
};
SlurmTask slurm_task();
// Throws std::invalid_argument when srun started several tasks but they are not one world of
// that many ranks with this task's rank (srun without an MPI plugin: each task alone).
void check_slurm_world(const Processes& processes);

// True when every process was started with the same `options` (their canonical text); otherwise
// rank 0 prints "<who>: error: rank r was started with other arguments than rank 0; nothing
// measured" and every process gets false.
bool same_options_everywhere(Processes& processes, std::string_view who,
                             const std::string& options);

// Runs `body` on this process and returns its exit code. An error on some processes only would
// leave the others waiting in their next collective (and MPI_Finalize waiting for them): with more
// than one process, an exception ends every one with "<who>: error: <what> (rank r)", exit 2 for
// std::invalid_argument, else 1. Alone, the exception climbs to the caller.
int run_ending_every_rank_on_error(Processes& processes, std::string_view who,
                                   const std::function<int()>& body);

// How the per-rank times of one sample become the sample: the slowest rank (nccl-tests) or the
// mean.
enum class TimeReduction { max, mean };

// Seconds per operation on the ranks this process drives (one, or one per GPU when a process
// drives several): the slowest of them and their sum.
struct LocalTimes {
  double slowest_s = 0, total_s = 0;
};

// A group of ranks (the others sit it out): what the watchdog (Lockstep) and a suite's own
// sampling need of it. Calls are collective over the group unless they say otherwise.
class Group {
 public:
  virtual ~Group() = default;
  virtual int group_ranks() const = 0;
  virtual void barrier() = 0;
  // Reductions over the group's processes (the same value on every one).
  virtual double max_over_group(double v) = 0;
  virtual double sum_over_group(double v) = 0;
  // Not collective, from any thread (the watchdog's): ends every process of the run.
  [[noreturn]] virtual void abort(const std::string& message, int exit_code) = 0;
};

// One prepared operation on a group, which sample_in_lockstep times.
class Engine : public Group {
 public:
  // `iterations` back-to-back operations, timed on this process's ranks.
  virtual LocalTimes time_here(int iterations) = 0;
};

}  // namespace bb::lockstep
