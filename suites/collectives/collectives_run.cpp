#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <stdexcept>

#include "harness/cli.h"
#include "harness/gpu.h"
#include "harness/host_info.h"
#include "harness/lockstep.h"
#include "harness/lockstep_processes.h"
#include "harness/results.h"
#include "harness/runner.h"
#include "harness/summary.h"
#include "suites/collectives/collectives.h"
#include "suites/collectives/collectives_checks.h"
#include "suites/collectives/transport.h"

namespace bb::collectives {
namespace {

using json = nlohmann::json;
using reference::DType;
using reference::RedOp;
using theory::Collective;
constexpr const char* kWho = "boundbench collectives";

struct Planned {
  Spec spec;
  double bytes = 0;
  bool sweep = true;
};

template <typename T, typename F>
std::vector<T> parse_list(const std::vector<std::string>& names, F from_name, const char* what) {
  std::vector<T> out;
  for (const auto& n : names) {
    const auto v = from_name(n);
    if (!v) throw std::invalid_argument(std::string("unknown ") + what + " '" + n + "'");
    out.push_back(*v);
  }
  return out;
}

std::vector<double> sweep_sizes(double min_bytes, double max_bytes, double factor) {
  std::vector<double> sizes;
  for (double b = min_bytes; b <= max_bytes * (1 + 1e-12); b *= factor)
    sizes.push_back(std::floor(b));
  return sizes;
}

bool has_root(theory::Collective c) {
  return c == theory::Collective::broadcast || c == theory::Collective::reduce;
}

std::vector<Planned> plan(const Options& o, int ranks, bool coverage_here, double max_bytes) {
  const auto ops = o.ops.empty()
                       ? std::vector<Collective>(std::begin(theory::kAllCollectives),
                                                 std::end(theory::kAllCollectives))
                       : parse_list<Collective>(o.ops, theory::collective_from_name, "collective");
  const auto dtypes = parse_list<DType>(o.dtypes, reference::dtype_from_name, "data type");
  const auto redops = parse_list<RedOp>(o.redops, reference::redop_from_name, "reduction");
  std::vector<bool> placements;
  if (o.placement != "in-place") placements.push_back(false);
  if (o.placement != "out-of-place") placements.push_back(true);
  std::vector<Planned> out;
  const auto sizes = sweep_sizes(o.min_bytes, max_bytes, o.step_factor);
  for (auto op : ops)
    for (auto t : dtypes)
      for (std::size_t r = 0; r < (theory::collective_reduces(op) ? redops.size() : 1); ++r)
        for (bool in_place : placements)
          for (double b : sizes) out.push_back({{op, t, redops[r], in_place, 0}, b, true});
  if (!coverage_here) return out;
  // Coverage: every type, operator and placement, verified at one element per rank, at an odd
  // count, and at 256 KiB.
  for (auto op : theory::kAllCollectives)
    for (auto t : reference::kAllDTypes)
      for (auto r : reference::kAllRedOps) {
        if (!theory::collective_reduces(op) && r != RedOp::sum) continue;
        for (bool in_place : {false, true}) {
          const double e = static_cast<double>(reference::dtype_bytes(t));
          for (double b : {e * ranks, e * ranks * 945, 262144.0})
            out.push_back({{op, t, r, in_place, ranks > 1 && has_root(op) ? 1 : 0}, b, false});
        }
      }
  return out;
}

std::string placement_name(bool in_place) { return in_place ? "in-place" : "out-of-place"; }

std::string case_name(const Spec& s, const std::string& transport, int ranks, std::size_t bytes) {
  std::string n = std::string(theory::collective_name(s.op)) + "/" +
                  std::string(reference::dtype_name(s.dtype)) + "/";
  if (theory::collective_reduces(s.op)) n += std::string(reference::redop_name(s.redop)) + "/";
  if (s.root != 0) n += "root" + std::to_string(s.root) + "/";
  return n + placement_name(s.in_place) + "/" + std::to_string(bytes) + "B/" + transport + "-p" +
         std::to_string(ranks);
}

double available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kib = 0;
  while (meminfo >> key >> kib)
    if (key == "MemAvailable:") return kib * 1024;
  return 0;
}

std::vector<int> rank_counts(const Options& o, int world) {
  if (!o.ranks.empty()) {
    for (int r : o.ranks)
      if (r < 1 || r > world)
        throw std::invalid_argument("--ranks " + std::to_string(r) + ": the world has " +
                                    std::to_string(world) + " ranks");
    return o.ranks;
  }
  std::vector<int> counts;
  for (int r = 1; r < world; r *= 2) counts.push_back(r);
  counts.push_back(world);
  return counts;
}

std::string canonical(const Options& o) {
  json j = {{"transport", o.transport},   {"ops", o.ops},
            {"dtypes", o.dtypes},         {"redops", o.redops},
            {"placement", o.placement},   {"min", o.min_bytes},
            {"max", o.max_bytes},         {"step", o.step_factor},
            {"ranks", o.ranks},           {"samples", o.samples},
            {"warmup", o.warmup},         {"time", o.sample_time_s},
            {"coverage", o.coverage},     {"timeout", o.timeout_s},
            {"reduce", o.time_reduction}, {"quick", o.quick}};
  return j.dump();
}

// The CPUs this process may run on (a cpuset or container limit included).
int cores_here() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

json entry(const std::string& name, const Planned& p, const reference::CollectiveShape& shape,
           int ranks, const std::string& transport, const std::vector<double>& samples,
           int iterations, double cpu_per_sample_s, double wall_s, std::uint64_t wrong,
           const std::string& reduction) {
  const Summary s = summarize(samples);
  const double factor = theory::bus_bandwidth_factor(p.spec.op, ranks);
  const double n = static_cast<double>(shape.bytes);
  json e = {
      {"name", "collectives/" + name},
      {"run_name", "collectives/" + name},
      {"run_type", "iteration"},
      {"repetitions", 1},
      {"repetition_index", 0},
      {"threads", 1},
      {"time_unit", "ns"},
      {"suite", "collectives"},
      {"case", name},
      {"backend", transport == "nccl" ? "cuda" : "host"},
      {"iterations", s.samples},
      {"real_time", s.median_s * 1e9},
      {"cpu_time", cpu_per_sample_s * 1e9},
      {"params",
       {{"collective", theory::collective_name(p.spec.op)},
        {"dtype", reference::dtype_name(p.spec.dtype)},
        {"redop", theory::collective_reduces(p.spec.op) ? json(reference::redop_name(p.spec.redop))
                                                        : json(nullptr)},
        {"in_place", p.spec.in_place},
        {"root", p.spec.root},
        {"transport", transport},
        {"ranks", ranks},
        {"bytes", shape.bytes},
        {"count", shape.count},
        {"sweep", p.sweep},
        {"collectives_per_sample", iterations},
        {"time_reduction", reduction}}},
      {"observations", {{"wrong", wrong}}},
      {"bytes_read", n},
      {"bytes_written", 0.0},
      {"bytes", n},
      {"flop", 0.0},
      {"elements", static_cast<double>(shape.count)},
      {"precision", reference::dtype_name(p.spec.dtype)},
      {"samples", s.samples},
      {"min_s", s.min_s},
      {"median_s", s.median_s},
      {"mean_s", s.mean_s},
      {"max_s", s.max_s},
      {"rel_noise", s.rel_noise},
      {"stop_reason", "fixed"},
      // Per sample: its wall time beyond its collectives' (barrier, reduction of the times).
      {"harness_overhead_s",
       std::max(0.0, wall_s / static_cast<double>(s.samples) - s.mean_s * iterations)},
      {"bytes_per_s", n / s.median_s},
      {"flop_per_s", 0.0},
      {"algbw_bytes_per_s", n / s.median_s},
      {"busbw_bytes_per_s", n / s.median_s * factor}};
  return e;
}

}  // namespace

// Everything after MPI is up: runs on every rank in lockstep.
int measure(Options& o, lockstep::Processes& procs, const std::string& transport_name,
            double max_bytes) {
  const bool nccl = transport_name == "nccl";
  const bool reporter = procs.rank() == 0;
  if (!lockstep::same_options_everywhere(procs, kWho, canonical(o))) return lockstep::kExitUsage;
  std::unique_ptr<Transport> transport;
  if (transport_name == "mpi") {
    transport = make_mpi_transport(procs);
  } else {
    const GpuStatus gpus = query_gpus();
    if (!gpus.usable)
      throw std::runtime_error("--transport nccl: no usable GPU (" + gpus.reason + ")");
    transport = make_nccl_transport(procs, static_cast<int>(gpus.devices.size()));
  }
  const int world = transport->world_ranks();
  const std::vector<int> counts = rank_counts(o, world);
  if (o.samples <= 0) o.samples = o.quick ? 3 : 10;
  if (o.sample_time_s <= 0) o.sample_time_s = o.quick ? 1e-3 : 1e-2;
  // Memory: each rank holds an input and an output of at most n bytes each: 80% of a GPU, half of
  // the host memory available to the ranks of this node.
  const int on_node = std::min(procs.on_this_node(), world);
  const double memory_cap =
      procs.min_over_all(nccl ? 0.4 * static_cast<double>(query_gpus().devices[0].memory_bytes)
                              : 0.25 * available_memory_bytes() / on_node);
  std::string memory_note;
  if (memory_cap > 0 && max_bytes > memory_cap) {
    memory_note = "--max-bytes lowered from " + std::to_string(static_cast<long long>(max_bytes)) +
                  " to fit memory";
    max_bytes = std::max(o.min_bytes, std::exp2(std::floor(std::log2(memory_cap))));
  }

  std::unique_ptr<ResultsFile> file;
  std::vector<SummaryRow> rows;
  std::vector<Check> checks;
  std::vector<Point> points;
  const auto t_start = std::chrono::steady_clock::now();
  if (reporter) {
    RunOptions ro;
    ro.quick = o.quick;
    ro.command_line = o.command_line;
    ro.rule.min_samples = static_cast<std::size_t>(o.samples);
    ro.rule.warmup_samples = static_cast<std::size_t>(o.warmup);
    ro.rule.min_time_s = o.sample_time_s;
    ro.rule.timeout_s = o.timeout_s;
    json context = make_context(ro, Environment{query_host(), query_gpus()});
    context["boundbench"]["collectives"] = {
        {"transport", transport_name},
        {"engine", transport->description()},
        {"launcher", procs.launcher()},
        {"world_ranks", world},
        {"processes", procs.size()},
        {"processes_on_this_node", procs.on_this_node()},
        {"cores_on_this_node", cores_here()},
        {"rank_counts", counts},
        {"max_bytes", max_bytes},
        {"samples_per_size", o.samples},
        {"sample_time_s", o.sample_time_s},
        {"time_reduction", o.time_reduction},
        {"memory_note", memory_note},
        {"nccl_algo", std::getenv("NCCL_ALGO") ? std::getenv("NCCL_ALGO") : ""},
        {"nccl_proto", std::getenv("NCCL_PROTO") ? std::getenv("NCCL_PROTO") : ""}};
    file = std::make_unique<ResultsFile>(o.out, context);
    std::printf("collectives: %s (%s); rank counts", transport_name.c_str(),
                transport->description().c_str());
    for (int c : counts) std::printf(" %d", c);
    std::printf("; sizes %.0f to %.0f B%s\n", o.min_bytes, max_bytes,
                memory_note.empty() ? "" : (" (" + memory_note + ")").c_str());
    std::printf("%-46s %6s %12s %12s %12s %10s %7s\n", "case", "ranks", "bytes", "time (us)",
                "algbw GB/s", "busbw GB/s", "#wrong");
  }

  const lockstep::TimeReduction reduction =
      o.time_reduction == "max" ? lockstep::TimeReduction::max : lockstep::TimeReduction::mean;
  lockstep::Lockstep lockstep(*transport, {kWho, o.timeout_s, procs.rank(), o.simulate_hang});
  bool wrong_anywhere = false;
  for (int ranks : counts) {
    const bool member = transport->begin_group(ranks);
    if (member) {
      const int node_ranks = nccl ? 1 : std::min(ranks, procs.on_this_node());
      std::set<std::string> done;  // a coverage size may repeat a sweep size
      for (const Planned& p : plan(o, ranks, o.coverage && ranks == counts.back(), max_bytes)) {
        const auto shape = reference::collective_shape(p.spec.op, static_cast<std::size_t>(p.bytes),
                                                       ranks, p.spec.dtype);
        if (shape.count == 0 || shape.in_count == 0 || shape.out_count == 0) continue;
        if (!transport->unsupported(p.spec, shape).empty()) continue;
        const std::string name = case_name(p.spec, transport_name, ranks, shape.bytes);
        if (!done.insert(name).second) continue;
        std::uint64_t wrong = 0;
        lockstep::Sampled sampled;
        const lockstep::SampleRule rule{p.sweep ? o.samples : 1, p.sweep ? o.warmup : 0,
                                        o.sample_time_s, reduction};
        lockstep.measure(std::string(theory::collective_name(p.spec.op)) + " of " +
                             std::to_string(shape.bytes) + " bytes on " + std::to_string(ranks) +
                             " ranks (" + name + ", rank " + std::to_string(procs.rank()) + ")",
                         name, [&] {
                           transport->prepare(p.spec, shape);
                           wrong = transport->run_and_verify();
                           sampled = lockstep::sample_in_lockstep(*transport, rule);
                           transport->release();
                         });
        wrong_anywhere = wrong_anywhere || wrong > 0;
        if (!reporter) continue;
        json e = entry(name, p, shape, ranks, transport_name, sampled.times_s, sampled.iterations,
                       sampled.cpu_per_operation_s, sampled.wall_s, wrong, o.time_reduction);
        Check v;
        v.suite = "collectives";
        v.name = name + "/verify";
        v.law = "every output element equals the CPU reference (exact)";
        v.predicted = 0;
        v.measured = static_cast<double>(wrong);
        v.tolerance = 0;
        v.verdict = wrong == 0 ? Verdict::pass : Verdict::fail;
        v.reason =
            std::to_string(wrong) + " wrong elements over " + std::to_string(ranks) + " ranks";
        file->add({e}, {v});
        checks.push_back(v);
        rows.push_back(summary_row(e, {v}));
        Point pt{transport_name,
                 p.spec.op,
                 p.spec.dtype,
                 p.spec.redop,
                 p.spec.in_place,
                 ranks,
                 static_cast<double>(shape.bytes),
                 e["median_s"].get<double>(),
                 wrong,
                 p.sweep,
                 node_ranks,
                 nccl ? 0 : cores_here()};
        points.push_back(pt);
        std::printf("%-46s %6d %12zu %12.2f %12.3f %10.3f %7llu\n",
                    name.substr(0, name.rfind('/')).c_str(), ranks, shape.bytes, pt.time_s * 1e6,
                    algbw_bytes_per_s(pt) / 1e9, busbw_bytes_per_s(pt) / 1e9,
                    static_cast<unsigned long long>(wrong));
        std::fflush(stdout);
      }
    }
    transport->end_group();
    procs.meet();
  }
  if (!reporter) return wrong_anywhere && !o.no_fail ? lockstep::kExitFailed : 0;

  std::vector<Check> laws = collectives_checks(points);
  file->add_figures("collectives", collectives_figures(points));
  file->add({}, laws);
  for (const auto& c : laws) checks.push_back(c);
  file->finish();
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  // The per-size verify checks are in the table above; the laws follow, then the counts.
  int failed = 0, passed = 0, skipped = 0;
  for (const auto& c : laws)
    std::printf("%s %s: %s\n", verdict_name(c.verdict).c_str(), c.name.c_str(), c.reason.c_str());
  for (const auto& c : checks) {
    failed += c.verdict == Verdict::fail;
    passed += c.verdict == Verdict::pass;
    skipped += c.verdict == Verdict::skip;
  }
  std::printf(
      "collectives: %zu sizes measured and verified; checks: %d passed, %d failed, %d "
      "skipped; %.1f s\n",
      points.size(), passed, failed, skipped, elapsed);
  std::string summary = o.summary;
  if (summary.empty()) {
    summary = o.out;
    const auto dot = summary.rfind('.');
    summary = (dot == std::string::npos ? summary : summary.substr(0, dot)) + ".md";
  }
  write_file_atomically(summary, markdown_summary(rows, checks, file->document()));
  std::printf("results: %s\nsummary: %s\n", o.out.c_str(), summary.c_str());
  return failed > 0 && !o.no_fail ? lockstep::kExitFailed : 0;
}

int run(Options o, int& argc, char**& argv) {
  // Options that need no other rank are judged first (a one-line error, exit 2).
  if (!(o.min_bytes >= 1) || (o.max_bytes != 0 && o.max_bytes < o.min_bytes))
    throw std::invalid_argument("--min-bytes must be >= 1 and <= --max-bytes");
  if (!(o.step_factor > 1)) throw std::invalid_argument("--step-factor must be > 1");
  if (o.time_reduction != "max" && o.time_reduction != "mean")
    throw std::invalid_argument("--time-reduction must be max or mean");
  (void)plan(o, 1, false, std::max(o.min_bytes, o.max_bytes));  // unknown names throw here

  const bool gpu_usable = query_gpus().usable;
  std::string transport_name = o.transport;
  if (transport_name == "auto")
    transport_name = gpu_usable && !lockstep::launched_by_mpi() ? "nccl" : "mpi";
  const bool nccl = transport_name == "nccl";
  double max_bytes = o.max_bytes > 0
                         ? o.max_bytes
                         : (nccl ? (o.quick ? 0x1p28 : 0x1p30) : (o.quick ? 0x1p24 : 0x1p26));
  if (max_bytes < o.min_bytes)
    throw std::invalid_argument("--min-bytes is above the largest size, " +
                                std::to_string(static_cast<long long>(max_bytes)) + " B");
  const auto procs = lockstep::make_processes(transport_name == "mpi", kOpenMpiWorld, argc, argv);
  return lockstep::run_ending_every_rank_on_error(
      *procs, kWho, [&] { return measure(o, *procs, transport_name, max_bytes); });
}

}  // namespace bb::collectives
