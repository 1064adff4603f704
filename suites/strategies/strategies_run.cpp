// `boundbench strategies`: settles the run on every rank, measures the links, then each strategy's
// cases in lockstep under the watchdog (harness/lockstep.h); rank 0 reports.
#include <sys/prctl.h>

#include <cstdio>
#include <optional>
#include <stdexcept>

#include "harness/gpu.h"
#include "harness/lockstep.h"
#include "suites/collectives/transport.h"
#include "suites/strategies/strategies.h"
#include "suites/strategies/strategies_plan.h"
#include "suites/strategies/strategies_report.h"
#include "suites/strategies/strategies_steps.h"

namespace bb::strategies {
namespace {

constexpr const char* kWho = "boundbench strategies";

// The engine the run asked for, or why it cannot be had: the same answer on every rank.
std::string engine_name(const Options& o) {
  if (o.engine == "mpi" || (o.engine == "auto")) {
#ifndef BOUNDBENCH_WITH_MPI
    throw std::invalid_argument("--engine mpi: boundbench was built without MPI");
#endif
    return "mpi";
  }
  if (o.engine == "nccl") {
    const GpuStatus gpus = query_gpus();
    if (!gpus.usable)
      throw std::invalid_argument("--engine nccl: no usable GPU (" + gpus.reason + ")");
    if (gpus.devices.front().simulated)
      throw std::invalid_argument("--engine nccl: " + sass_only_reason("NCCL"));
#ifndef BOUNDBENCH_WITH_NCCL
    throw std::invalid_argument(
        "--engine nccl: this boundbench was built without the NCCL engine (needs the CUDA "
        "toolkit, NCCL and MPI)");
#endif
    return "nccl";
  }
  throw std::invalid_argument("--engine must be auto, mpi or nccl");
}

int measure(Options& o, lockstep::Processes& procs, const std::string& engine) {
  if (!lockstep::same_options_everywhere(procs, kWho, canonical(o))) return lockstep::kExitUsage;
  lockstep::check_slurm_world(procs);
  // Options judged against the world's size: the same verdict on every rank, so each returns
  // (exit 2) and rank 0 says why in one line; no rank is left waiting.
  try {
    check_options(o, procs.size());
  } catch (const std::invalid_argument& e) {
    if (procs.rank() == 0) std::fprintf(stderr, "%s: error: %s\n", kWho, e.what());
    return lockstep::kExitUsage;
  }
  // Timer slack 1 ns: the synthetic waits and the polled waits end when asked, not up to 50 µs
  // later (the default slack of a normal thread).
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  const std::unique_ptr<StepComm> comm =
      engine == "nccl" ? make_nccl_comm(procs) : make_mpi_comm(procs);
  Setup setup{engine, comm->description(), comm->group_ranks(),
              o.compute == "synthetic" ? 0.05 : 0.10};
  std::optional<Report> report;
  if (procs.rank() == 0) report.emplace(o, setup, procs);
  Compute compute(o.compute == "synthetic", o.synthetic_flop_per_s, largest_shapes(o, setup.ranks),
                  engine == "nccl");
  lockstep::Lockstep lockstep(*comm, {.who = kWho,
                                      .timeout_s = o.timeout_s,
                                      .rank = procs.rank(),
                                      .simulate_hang = o.simulate_hang});
  Link all_reduce, all_to_all;
  lockstep.measure("the all-reduce link", "link/all_reduce",
                   [&] { all_reduce = measure_link(*comm, o, theory::Collective::all_reduce); });
  lockstep.measure("the all-to-all link", "link/all_to_all",
                   [&] { all_to_all = measure_link(*comm, o, theory::Collective::all_to_all); });
  if (report) report->add_links(all_reduce, all_to_all);
  StepContext c{o, *comm, compute, all_reduce, all_to_all, setup.tolerance, lockstep};
  for (const std::string& s : strategy_list(o)) {
    std::vector<CaseResult> cases;
    if (s == "pipeline") {
      if (setup.ranks < 2 && o.stages <= 0) {
        if (report) std::printf("pipeline: skipped: one rank is one stage, no pipeline\n");
        continue;
      }
      cases = run_pipeline(c);
    }
    if (s == "data") cases = run_data_parallel(c);
    if (s == "tensor") cases = run_tensor_parallel(c);
    if (s == "expert") cases = run_expert_parallel(c);
    if (report)
      for (const CaseResult& r : cases) report->add(r);
  }
  const double max_overshoot = comm->max_over_group(compute.max_overshoot_s());
  const double mean_overshoot = comm->sum_over_group(compute.mean_overshoot_s()) / setup.ranks;
  comm->barrier();
  return report ? report->finish(compute, max_overshoot, mean_overshoot) : 0;
}

}  // namespace

int run(Options o, int& argc, char**& argv) {
  settle_defaults(o);
  const std::string engine = engine_name(o);
  check_options(o, 0);  // names and values, before MPI starts
  const auto procs = lockstep::make_processes(true, collectives::kOpenMpiWorld, argc, argv);
  return lockstep::run_ending_every_rank_on_error(*procs, kWho,
                                                  [&] { return measure(o, *procs, engine); });
}

}  // namespace bb::strategies
