#include "harness/lockstep.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <stdexcept>
#include <utility>

namespace bb::lockstep {
namespace {

class SingleProcess final : public Processes {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string launcher() const override { return "single"; }
  int on_this_node() const override { return 1; }
  bool same_everywhere(const std::string&, int&) override { return true; }
  double min_over_all(double v) override { return v; }
  void meet() override {}
  [[noreturn]] void abort(const std::string& message, int exit_code) override {
    std::fprintf(stderr, "%s\n", message.c_str());
    std::fflush(nullptr);
    std::_Exit(exit_code);
  }
};

double cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

// One sample: the group meets, times `iterations` operations, and reduces the per-rank seconds
// per operation (the same value on every rank of the group).
double sample_s(Engine& engine, int iterations, TimeReduction reduction) {
  engine.barrier();
  const LocalTimes here = engine.time_here(iterations);
  if (reduction == TimeReduction::max) return engine.max_over_group(here.slowest_s);
  return engine.sum_over_group(here.total_s) / engine.group_ranks();
}

}  // namespace

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(v)) return true;
  return false;
}

SlurmTask slurm_task() {
  SlurmTask t;
  if (!std::getenv("SLURM_NTASKS") || !std::getenv("SLURM_PROCID")) return t;
  const auto number = [](const char* name) {
    const char* v = std::getenv(name);
    return v ? std::atoi(v) : -1;
  };
  t.ntasks = number("SLURM_NTASKS");
  t.procid = number("SLURM_PROCID");
  t.localid = number("SLURM_LOCALID");
  t.nodeid = number("SLURM_NODEID");
  if (const char* v = std::getenv("SLURM_JOB_ID")) t.job_id = v;
  if (const char* v = std::getenv("SLURM_STEP_ID")) t.step_id = v;
  return t;
}

void check_slurm_world(const Processes& processes) {
  const SlurmTask t = slurm_task();
  if (t.ntasks <= 1) return;
  if (processes.size() != t.ntasks || processes.rank() != t.procid)
    throw std::invalid_argument(fmt::format(
        "srun started {} tasks but this one is rank {} of {} (SLURM_PROCID {}): launch with an MPI "
        "plugin, srun --mpi=pmix",
        t.ntasks, processes.rank(), processes.size(), t.procid));
}

std::unique_ptr<Processes> make_processes(bool want_mpi, OpenMpiWorld open_mpi, int& argc,
                                          char**& argv) {
  if (!want_mpi && !launched_by_mpi()) return std::make_unique<SingleProcess>();
  if (open_mpi) return open_mpi(argc, argv);
  if (want_mpi)
    throw std::runtime_error(
        "this boundbench was built without MPI (install libopenmpi-dev and rebuild)");
  // Started by a launcher but without MPI: every process would think it is alone.
  throw std::runtime_error(
      "started by an MPI launcher, but this boundbench was built without MPI; rebuild with MPI");
}

bool same_options_everywhere(Processes& processes, std::string_view who,
                             const std::string& options) {
  int differing_rank = -1;
  if (processes.same_everywhere(options, differing_rank)) return true;
  if (processes.rank() == 0)
    std::fprintf(stderr,
                 "%s: error: rank %d was started with other arguments than rank 0; nothing "
                 "measured\n",
                 std::string(who).c_str(), differing_rank);
  return false;
}

int run_ending_every_rank_on_error(Processes& processes, std::string_view who,
                                   const std::function<int()>& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    if (processes.size() > 1)
      processes.abort(std::string(who) + ": error: " + e.what() + " (rank " +
                          std::to_string(processes.rank()) + ")",
                      dynamic_cast<const std::invalid_argument*>(&e) ? kExitUsage : kExitFailed);
    throw;
  }
}

Sampled sample_in_lockstep(Engine& engine, const SampleRule& rule) {
  Sampled out;
  const double pilot_s = sample_s(engine, 1, TimeReduction::max);
  out.iterations = static_cast<int>(std::clamp(std::ceil(rule.sample_time_s / pilot_s), 1.0, 1e5));
  if (rule.warmup > 0) sample_s(engine, std::min(rule.warmup, out.iterations), rule.reduction);
  const auto wall0 = std::chrono::steady_clock::now();
  const double cpu0 = cpu_seconds();
  for (int s = 0; s < rule.samples; ++s)
    out.times_s.push_back(sample_s(engine, out.iterations, rule.reduction));
  out.cpu_per_operation_s = (cpu_seconds() - cpu0) / rule.samples / out.iterations;
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return out;
}

Lockstep::Lockstep(Group& group, Settings settings)
    : group_(group), settings_(std::move(settings)) {
  // A longer timeout would overflow the clock.
  settings_.timeout_s = std::min(settings_.timeout_s, 1e9);
  watchdog_ = std::thread([this] { watch(); });
}

Lockstep::~Lockstep() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  watchdog_.join();
}

void Lockstep::measure(const std::string& what, const std::string& name,
                       const std::function<void()>& body) {
  {
    std::lock_guard lock(mutex_);
    what_ = what;
    deadline_ = std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                    std::chrono::duration<double>(settings_.timeout_s));
    armed_ = true;
    wake_.notify_all();
  }
  if (++measured_ == 2 && settings_.rank == settings_.simulate_hang)
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));  // the others wait
  try {
    body();
  } catch (const std::exception& e) {
    group_.abort(settings_.who + ": error: " + name + " on rank " + std::to_string(settings_.rank) +
                     ": " + e.what(),
                 kExitFailed);
  }
  std::lock_guard lock(mutex_);
  armed_ = false;
}

void Lockstep::watch() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    if (!armed_) {
      wake_.wait(lock);
      continue;
    }
    if (wake_.wait_until(lock, deadline_) == std::cv_status::timeout && armed_ && !stop_ &&
        std::chrono::steady_clock::now() >= deadline_) {
      group_.abort(settings_.who + ": error: " + what_ + " did not complete within " +
                       fmt::format("{:g}", settings_.timeout_s) +
                       " s (--timeout): aborting every rank; results so far are kept",
                   kExitHang);
    }
  }
}

}  // namespace bb::lockstep
