#include "suites/registry.h"

#include <memory>

#include "harness/regression.h"
#include "harness/results.h"
#include "suites/collectives/collectives.h"
#include "suites/collectives/collectives_checks.h"
#include "suites/strategies/strategies.h"
#include "suites/strategies/strategies_report.h"

namespace bb::suites {
namespace {

// `boundbench collectives`: its options fill a collectives::Options that its run takes.
SuiteCommand collectives_command(CLI::App& app, QuantityParser parse_quantity) {
  // The options' state, held by `run`; the sizes are read as text ("64Mi") and converted there.
  struct State {
    collectives::Options o;
    std::string min_bytes = "8", max_bytes = "0";
  };
  const auto state = std::make_shared<State>();
  collectives::Options& o = state->o;
  CLI::App* c = app.add_subcommand(
      "collectives",
      "collectives (MPI or NCCL) over message sizes and rank counts; run under mpirun");
  c->add_option("--transport", o.transport, "auto (NCCL with a GPU, else MPI), mpi or nccl")
      ->check(CLI::IsMember({"auto", "mpi", "nccl"}));
  c->add_option("--op", o.ops,
                "collective (repeatable; default all): all_reduce, all_gather, reduce_scatter, "
                "broadcast, reduce, all_to_all, send_recv");
  c->add_option("--dtype", o.dtypes, "fp32, bf16, fp16, int32 (repeatable; default fp32)");
  c->add_option("--redop", o.redops, "sum, max, min (repeatable; default sum)");
  c->add_option("--placement", o.placement, "out-of-place, in-place or both")
      ->check(CLI::IsMember({"out-of-place", "in-place", "both"}));
  c->add_option("--min-bytes", state->min_bytes, "smallest message (default 8)");
  c->add_option(
      "--max-bytes", state->max_bytes,
      "largest message (default MPI 64Mi, NCCL 1Gi; --quick 16Mi / 256Mi; bounded by memory)");
  c->add_option("--step-factor", o.step_factor, "size multiplier (default 2)");
  c->add_option("--ranks", o.ranks, "rank counts (repeatable; default 1, 2, 4, ... and all)");
  c->add_option("--samples", o.samples, "samples per size (default 10; --quick 3)")
      ->check(CLI::Range(1, 100000));
  c->add_option("--warmup", o.warmup, "collectives before sampling (default 5)")
      ->check(CLI::Range(0, 100000));
  c->add_option("--sample-time", o.sample_time_s,
                "seconds per sample (default 0.01; --quick 0.001)")
      ->check(CLI::PositiveNumber);
  c->add_flag("!--no-coverage", o.coverage, "skip the every-type/operator/placement pass");
  c->add_option("--timeout", o.timeout_s, "watchdog: seconds one size may take (default 120)")
      ->check(CLI::PositiveNumber);
  c->add_option("--time-reduction", o.time_reduction, "per-rank times to one: max or mean")
      ->check(CLI::IsMember({"max", "mean"}));
  c->add_flag("--quick", o.quick, "fewer samples and smaller sizes");
  c->add_flag("--no-fail", o.no_fail, "exit 0 even when a check fails");
  c->add_flag("--strict", o.strict,
              "exit 1 on INCONCLUSIVE or BELOW-EXPECTATION checks too, not only on FAIL");
  c->add_option("--out", o.out, "results JSON file")->default_val("boundbench-collectives.json");
  c->add_option("--summary", o.summary, "markdown summary (default: OUT with .md)");
  c->add_option("--simulate-hang", o.simulate_hang,
                "testing the watchdog: this rank stops at the second size it takes part in");
  return {c, [state, parse_quantity](const std::string& command_line, int& argc, char**& argv) {
            state->o.min_bytes = parse_quantity(state->min_bytes);
            state->o.max_bytes = parse_quantity(state->max_bytes);
            state->o.command_line = command_line;
            ensure_writable(state->o.out);
            return collectives::run(state->o, argc, argv);
          }};
}

// `boundbench strategies`: its options fill a strategies::Options that its run takes.
SuiteCommand strategies_command(CLI::App& app, QuantityParser parse_quantity) {
  struct State {
    strategies::Options o;
    std::string parameters = "0", bucket_bytes = "1Mi";
  };
  const auto state = std::make_shared<State>();
  strategies::Options& o = state->o;
  CLI::App* c = app.add_subcommand(
      "strategies",
      "training steps (data, pipeline, tensor, expert parallel) against their formulas; run "
      "under mpirun or srun");
  c->add_option("--engine", o.engine, "auto (MPI), mpi or nccl")
      ->check(CLI::IsMember({"auto", "mpi", "nccl"}));
  c->add_option("--strategy", o.strategies,
                "data, pipeline, tensor, expert (repeatable; default all)");
  c->add_option("--compute", o.compute,
                "synthetic (a wait of the declared duration, holding no core) or gemm (the host "
                "GEMM, one thread per rank)")
      ->check(CLI::IsMember({"synthetic", "gemm"}));
  c->add_option("--synthetic-rate", o.synthetic_flop_per_s,
                "flop/s a synthetic compute waits at (default 1e9)");
  c->add_option("--batch", o.batch, "sequences per micro-batch (default 1)");
  c->add_option("--sequence", o.sequence, "tokens per sequence (default 64)");
  c->add_option("--hidden", o.hidden, "hidden size h (default 128)");
  c->add_option("--stages", o.stages, "pipeline stages (default: every rank; must divide them)");
  c->add_option("--micro-batches", o.micro_batches,
                "pipeline micro-batches per step (repeatable; default 4, 8, 16)");
  c->add_option("--schedule", o.schedules,
                "gpipe, 1f1b, interleaved (repeatable; default gpipe and 1f1b)");
  c->add_option("--chunks", o.chunks,
                "interleaved: model chunks (virtual stages) per stage, v >= 2 (default 2)");
  c->add_option("--accumulation", o.accumulation,
                "data parallel: micro-steps per all-reduce (repeatable; default 1, 4, 16)");
  c->add_option("--parameters", state->parameters,
                "data parallel: gradients all-reduced (default 2Mi; --quick 512Ki)");
  c->add_option("--bucket-bytes", state->bucket_bytes, "all-reduce bucket (default 1Mi)");
  c->add_flag("--overlap", o.overlap,
              "data parallel: each case also with the buckets' all-reduces overlapped with the "
              "last backward");
  c->add_option("--layers", o.layers, "tensor parallel: layers per step (default 2)");
  c->add_option("--tokens", o.tokens, "expert parallel: tokens per rank (default 64)");
  c->add_option("--top-k", o.top_k, "expert parallel: experts per token (default 2)");
  c->add_option("--samples", o.samples, "steps measured per case (default 15; --quick 5)")
      ->check(CLI::Range(1, 100000));
  c->add_option("--warmup", o.warmup, "steps before sampling (default 1)")
      ->check(CLI::Range(0, 100000));
  c->add_option("--timeout", o.timeout_s, "watchdog: seconds one case may take (default 120)")
      ->check(CLI::PositiveNumber);
  c->add_flag("--quick", o.quick, "fewer steps, fewer parameters");
  c->add_flag("--no-fail", o.no_fail, "exit 0 even when a check fails");
  c->add_option("--out", o.out, "results JSON file")->default_val("boundbench-strategies.json");
  c->add_option("--summary", o.summary, "markdown summary (default: OUT with .md)");
  c->add_option("--simulate-hang", o.simulate_hang,
                "testing the watchdog: this rank stops at the second case it runs");
  return {c, [state, parse_quantity](const std::string& command_line, int& argc, char**& argv) {
            state->o.parameters = parse_quantity(state->parameters);
            state->o.bucket_bytes = parse_quantity(state->bucket_bytes);
            state->o.command_line = command_line;
            ensure_writable(state->o.out);
            return strategies::run(state->o, argc, argv);
          }};
}

}  // namespace

std::vector<SuiteCommand> mount_suite_commands(CLI::App& app, QuantityParser parse_quantity) {
  return {collectives_command(app, parse_quantity), strategies_command(app, parse_quantity)};
}

MeasuredParameters measured_parameters(const std::string& results_path) {
  const auto results = load_results(results_path);
  const collectives::MeasuredLink link =
      results.contains("figures") && results["figures"].contains("strategies")
          ? strategies::measured_link(results, results_path)
          : collectives::measured_link(results, results_path);
  return {{{"alpha_s", link.alpha_s}, {"link_bytes_per_s", link.link_bytes_per_s}}, link.source};
}

}  // namespace bb::suites
