// What the lockstep harness needs from an engine that measures across processes (MPI, NCCL): the
// processes of the run, and the group of ranks that measures one operation. Measuring in lockstep,
// every rank runs the same operations the same number of times in the same order (as nccl-tests
// does), instead of the harness's per-process stopping rule. The harness includes no MPI or NCCL:
// the suites implement these classes with the wrappers in kernels/.
#pragma once

#include <string>

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
  // True everywhere when every process passed the same `text`; otherwise `differing` (on rank 0)
  // names the first process that did not.
  virtual bool same_everywhere(const std::string& text, std::string& differing) = 0;
  // The smallest of every process's `v` (so that all plan with the same numbers).
  virtual double min_over_all(double v) = 0;
  // All processes meet; those with nothing to do wait here without spinning.
  virtual void meet() = 0;
  // Not collective: ends every process of the run, after printing `message` on stderr.
  [[noreturn]] virtual void abort(const std::string& message, int exit_code) = 0;
};

// How the per-rank times of one sample become the sample: the slowest rank (nccl-tests) or the
// mean.
enum class TimeReduction { max, mean };

// Seconds per operation on the ranks this process drives (one, or one per GPU when a process
// drives several): the slowest of them and their sum.
struct LocalTimes {
  double slowest_s = 0, total_s = 0;
};

// One prepared operation on a group of ranks (the others sit it out). Calls are collective over
// the group unless they say otherwise.
class Engine {
 public:
  virtual ~Engine() = default;
  virtual int group_ranks() const = 0;
  virtual void barrier() = 0;
  // `iterations` back-to-back operations, timed on this process's ranks.
  virtual LocalTimes time_here(int iterations) = 0;
  // Reductions over the group's processes (the same value on every one).
  virtual double max_over_group(double v) = 0;
  virtual double sum_over_group(double v) = 0;
  // Not collective, from any thread (the watchdog's): ends every process of the run.
  [[noreturn]] virtual void abort(const std::string& message, int exit_code) = 0;
};

}  // namespace bb::lockstep
