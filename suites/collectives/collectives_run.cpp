// `boundbench collectives`: settles the run on every rank, then measures each rank count's group in
// lockstep (harness/lockstep.h), size by size; rank 0 reports (collectives_report.h).
#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>
#include <set>
#include <stdexcept>

#include "harness/gpu.h"
#include "harness/lockstep.h"
#include "suites/collectives/collectives.h"
#include "suites/collectives/collectives_plan.h"
#include "suites/collectives/collectives_report.h"
#include "suites/collectives/transport.h"

namespace bb::collectives {
namespace {

constexpr const char* kWho = "boundbench collectives";

double available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kib = 0;
  while (meminfo >> key >> kib)
    if (key == "MemAvailable:") return kib * 1024;
  return 0;
}

// Options that need no other rank are judged first (a one-line error, exit 2).
void check_options(const Options& o) {
  if (!(o.min_bytes >= 1) || (o.max_bytes != 0 && o.max_bytes < o.min_bytes))
    throw std::invalid_argument("--min-bytes must be >= 1 and <= --max-bytes");
  if (!(o.step_factor > 1)) throw std::invalid_argument("--step-factor must be > 1");
  if (o.time_reduction != "max" && o.time_reduction != "mean")
    throw std::invalid_argument("--time-reduction must be max or mean");
  (void)plan(o, 1, false, std::max(o.min_bytes, o.max_bytes));  // unknown names throw here
}

// --max-bytes, or the default of the transport and mode.
double largest_size(const Options& o, bool nccl) {
  const double max_bytes = o.max_bytes > 0
                               ? o.max_bytes
                               : (nccl ? (o.quick ? 0x1p28 : 0x1p30) : (o.quick ? 0x1p24 : 0x1p26));
  if (max_bytes < o.min_bytes)
    throw std::invalid_argument("--min-bytes is above the largest size, " +
                                std::to_string(static_cast<long long>(max_bytes)) + " B");
  return max_bytes;
}

std::unique_ptr<Transport> make_transport(const std::string& name, lockstep::Processes& procs) {
  if (name == "mpi") return make_mpi_transport(procs);
  const GpuStatus gpus = query_gpus();
  if (!gpus.usable)
    throw std::runtime_error("--transport nccl: no usable GPU (" + gpus.reason + ")");
  if (gpus.devices.front().simulated)
    throw std::runtime_error("--transport nccl: " + sass_only_reason("NCCL"));
  return make_nccl_transport(procs, static_cast<int>(gpus.devices.size()));
}

// Rank counts, sample defaults and the largest size, the same on every rank. Memory: each rank
// holds an input and an output of at most n bytes each: 80% of a GPU, half of the host memory
// available to the ranks of this node.
Setup settle(Options& o, lockstep::Processes& procs, const Transport& transport,
             const std::string& transport_name, double max_bytes) {
  Setup s;
  s.transport = transport_name;
  s.world_ranks = transport.world_ranks();
  s.rank_counts = rank_counts(o, s.world_ranks);
  if (o.samples <= 0) o.samples = o.quick ? 3 : 10;
  if (o.sample_time_s <= 0) o.sample_time_s = o.quick ? 1e-3 : 1e-2;
  const int on_node = std::min(procs.on_this_node(), s.world_ranks);
  const double memory_cap = procs.min_over_all(
      transport_name == "nccl" ? 0.4 * static_cast<double>(query_gpus().devices[0].memory_bytes)
                               : 0.25 * available_memory_bytes() / on_node);
  s.max_bytes = max_bytes;
  if (memory_cap > 0 && max_bytes > memory_cap) {
    s.memory_note = "--max-bytes lowered from " +
                    std::to_string(static_cast<long long>(max_bytes)) + " to fit memory";
    s.max_bytes = std::max(o.min_bytes, std::exp2(std::floor(std::log2(memory_cap))));
  }
  s.engine = transport.description();
  return s;
}

// Every rank count's group, size by size, on every rank in lockstep; `report` is rank 0's (null
// elsewhere). Each size is prepared, verified and sampled (coverage sizes: one sample, no
// warm-up). Returns whether some size had wrong elements.
bool sweep(const Options& o, const Setup& setup, lockstep::Processes& procs, Transport& transport,
           Report* report) {
  lockstep::Lockstep lockstep(transport, {.who = kWho,
                                          .timeout_s = o.timeout_s,
                                          .rank = procs.rank(),
                                          .simulate_hang = o.simulate_hang});
  const bool nccl = setup.transport == "nccl";
  bool wrong_anywhere = false;
  for (int ranks : setup.rank_counts) {
    if (transport.begin_group(ranks)) {
      const bool coverage = o.coverage && ranks == setup.rank_counts.back();
      std::set<std::string> done;  // a coverage size may repeat a sweep size
      for (const Planned& p : plan(o, ranks, coverage, setup.max_bytes)) {
        const auto shape = reference::collective_shape(p.spec.op, static_cast<std::size_t>(p.bytes),
                                                       ranks, p.spec.dtype);
        if (shape.count == 0 || shape.in_count == 0 || shape.out_count == 0) continue;
        if (!transport.runs(p.spec, shape)) continue;
        Measured m{.planned = p,
                   .shape = shape,
                   .name = case_name(p.spec, setup.transport, ranks, shape.bytes),
                   .ranks = ranks,
                   .ranks_on_node = nccl ? 1 : std::min(ranks, procs.on_this_node())};
        if (!done.insert(m.name).second) continue;
        const lockstep::SampleRule rule{.samples = p.sweep ? o.samples : 1,
                                        .warmup = p.sweep ? o.warmup : 0,
                                        .sample_time_s = o.sample_time_s,
                                        .reduction = o.time_reduction == "max"
                                                         ? lockstep::TimeReduction::max
                                                         : lockstep::TimeReduction::mean};
        const std::string what = std::string(theory::collective_name(p.spec.op)) + " of " +
                                 std::to_string(shape.bytes) + " bytes on " +
                                 std::to_string(ranks) + " ranks (" + m.name + ", rank " +
                                 std::to_string(procs.rank()) + ")";
        lockstep.measure(what, m.name, [&] {
          const double wrong_here =
              static_cast<double>(transport.prepare_and_verify(p.spec, shape));
          // Over the group; a double holds these counts exactly (far below 2^53).
          m.wrong = static_cast<std::uint64_t>(transport.sum_over_group(wrong_here));
          m.sampled = lockstep::sample_in_lockstep(transport, rule);
        });
        wrong_anywhere = wrong_anywhere || m.wrong > 0;
        if (report) report->add(m);
      }
    }
    transport.end_group();
    procs.meet();
  }
  return wrong_anywhere;
}

// Everything after the processes are up: runs on every rank.
int measure(Options& o, lockstep::Processes& procs, const std::string& transport_name,
            double max_bytes) {
  if (!lockstep::same_options_everywhere(procs, kWho, canonical(o))) return lockstep::kExitUsage;
  lockstep::check_slurm_world(procs);
  const std::unique_ptr<Transport> transport = make_transport(transport_name, procs);
  const Setup setup = settle(o, procs, *transport, transport_name, max_bytes);
  std::optional<Report> report;
  if (procs.rank() == 0) report.emplace(o, setup, procs);
  const bool wrong_anywhere = sweep(o, setup, procs, *transport, report ? &*report : nullptr);
  if (!report) return wrong_anywhere && !o.no_fail ? lockstep::kExitFailed : 0;
  return report->finish();
}

}  // namespace

int run(Options o, int& argc, char**& argv) {
  check_options(o);
  const bool gpu_usable = query_gpus().usable;
  std::string transport_name = o.transport;
  if (transport_name == "auto")
    transport_name = gpu_usable && !lockstep::launched_by_mpi() ? "nccl" : "mpi";
  const double max_bytes = largest_size(o, transport_name == "nccl");
  const auto procs = lockstep::make_processes(transport_name == "mpi", kOpenMpiWorld, argc, argv);
  return lockstep::run_ending_every_rank_on_error(
      *procs, kWho, [&] { return measure(o, *procs, transport_name, max_bytes); });
}

}  // namespace bb::collectives
