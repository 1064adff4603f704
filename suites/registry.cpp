#include "suites/registry.h"

#include <memory>

#include "harness/regression.h"
#include "harness/results.h"
#include "suites/collectives/collectives.h"
#include "suites/collectives/collectives_checks.h"

namespace bb::suites {
namespace {

// `boundbench collectives`: its options fill a collectives::Options that its run takes.
SuiteCommand collectives_command() {
  auto o = std::make_shared<collectives::Options>();
  using Q = CommandOption::Quantity;
  using R = CommandOption::Range;
  return {
      "collectives",
      "collectives (MPI or NCCL) over message sizes and rank counts; run under mpirun",
      {
          {.name = "--transport",
           .help = "auto (NCCL with a GPU, else MPI), mpi or nccl",
           .value = &o->transport,
           .choices = {"auto", "mpi", "nccl"}},
          {"--op",
           "collective (repeatable; default all): all_reduce, all_gather, reduce_scatter, "
           "broadcast, reduce, all_to_all, send_recv",
           &o->ops},
          {"--dtype", "fp32, bf16, fp16, int32 (repeatable; default fp32)", &o->dtypes},
          {"--redop", "sum, max, min (repeatable; default sum)", &o->redops},
          {.name = "--placement",
           .help = "out-of-place, in-place or both",
           .value = &o->placement,
           .choices = {"out-of-place", "in-place", "both"}},
          {"--min-bytes", "smallest message (default 8)", Q{&o->min_bytes}},
          {"--max-bytes",
           "largest message (default MPI 64Mi, NCCL 1Gi; --quick 16Mi / 256Mi; bounded by memory)",
           Q{&o->max_bytes}},
          {"--step-factor", "size multiplier (default 2)", &o->step_factor},
          {"--ranks", "rank counts (repeatable; default 1, 2, 4, ... and all)", &o->ranks},
          {.name = "--samples",
           .help = "samples per size (default 10; --quick 3)",
           .value = &o->samples,
           .range = R{1, 100000}},
          {.name = "--warmup",
           .help = "collectives before sampling (default 5)",
           .value = &o->warmup,
           .range = R{0, 100000}},
          {.name = "--sample-time",
           .help = "seconds per sample (default 0.01; --quick 0.001)",
           .value = &o->sample_time_s,
           .positive = true},
          {"!--no-coverage", "skip the every-type/operator/placement pass", &o->coverage},
          {.name = "--timeout",
           .help = "watchdog: seconds one size may take (default 120)",
           .value = &o->timeout_s,
           .positive = true},
          {.name = "--time-reduction",
           .help = "per-rank times to one: max or mean",
           .value = &o->time_reduction,
           .choices = {"max", "mean"}},
          {"--quick", "fewer samples and smaller sizes", &o->quick},
          {"--no-fail", "exit 0 even when a check fails", &o->no_fail},
          {.name = "--out",
           .help = "results JSON file",
           .value = &o->out,
           .default_value = "boundbench-collectives.json"},
          {"--summary", "markdown summary (default: OUT with .md)", &o->summary},
          {"--simulate-hang",
           "testing the watchdog: this rank stops at the second size it takes part in",
           &o->simulate_hang},
      },
      [o](const std::string& command_line, int& argc, char**& argv) {
        o->command_line = command_line;
        ensure_writable(o->out);
        return collectives::run(*o, argc, argv);
      }};
}

}  // namespace

std::vector<SuiteCommand> suite_commands() { return {collectives_command()}; }

MeasuredParameters measured_parameters(const std::string& results_path) {
  const auto link = collectives::measured_link(load_results(results_path), results_path);
  return {{{"alpha_s", link.alpha_s}, {"link_bytes_per_s", link.link_bytes_per_s}}, link.source};
}

}  // namespace bb::suites
