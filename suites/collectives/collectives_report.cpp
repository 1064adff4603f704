#include "suites/collectives/collectives_report.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "harness/bound.h"
#include "harness/checks.h"
#include "harness/lockstep_report.h"

namespace bb::collectives {
namespace {

using json = nlohmann::json;

const char* env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

json context(const Options& o, const Setup& s, const lockstep::Processes& procs,
             const HostInfo& host) {
  return lockstep::run_context({.quick = o.quick,
                                .command_line = o.command_line,
                                .samples = o.samples,
                                .warmup = o.warmup,
                                .sample_time_s = o.sample_time_s,
                                .timeout_s = o.timeout_s},
                               host, "collectives",
                               {{"transport", s.transport},
                                {"engine", s.engine},
                                {"launcher", procs.launcher()},
                                {"world_ranks", s.world_ranks},
                                {"processes", procs.size()},
                                {"processes_on_this_node", procs.on_this_node()},
                                {"cores_on_this_node", host.logical_cpus},
                                {"rank_counts", s.rank_counts},
                                {"max_bytes", s.max_bytes},
                                {"samples_per_size", o.samples},
                                {"sample_time_s", o.sample_time_s},
                                {"time_reduction", o.time_reduction},
                                {"memory_note", s.memory_note},
                                {"nccl_algo", env_or_empty("NCCL_ALGO")},
                                {"nccl_proto", env_or_empty("NCCL_PROTO")}});
}

json entry(const Measured& m, const std::string& transport, const std::string& reduction) {
  const Spec& spec = m.planned.spec;
  const Summary s = summarize(m.sampled.times_s);
  const double factor = theory::bus_bandwidth_factor(spec.op, m.ranks);
  const double n = static_cast<double>(m.shape.bytes);
  const int iterations = m.sampled.iterations;
  json e = lockstep::case_entry("collectives", m.name, s, m.sampled.times_s, n, 0.0);
  e.update(
      {{"backend", transport == "nccl" ? "cuda" : "host"},
       {"cpu_time", m.sampled.cpu_per_operation_s * 1e9},
       {"params",
        {{"collective", theory::collective_name(spec.op)},
         {"dtype", reference::dtype_name(spec.dtype)},
         {"redop", theory::collective_reduces(spec.op) ? json(reference::redop_name(spec.redop))
                                                       : json(nullptr)},
         {"in_place", spec.in_place},
         {"root", spec.root},
         {"transport", transport},
         {"ranks", m.ranks},
         {"bytes", m.shape.bytes},
         {"count", m.shape.count},
         {"sweep", m.planned.sweep},
         {"collectives_per_sample", iterations},
         {"time_reduction", reduction}}},
       {"observations", {{"wrong", m.wrong}}},
       {"elements", static_cast<double>(m.shape.count)},
       {"precision", reference::dtype_name(spec.dtype)},
       // Per sample: its wall time beyond its collectives' (barrier, reduction of the times).
       {"harness_overhead_s",
        std::max(0.0, m.sampled.wall_s / static_cast<double>(s.samples) - s.mean_s * iterations)},
       {"algbw_bytes_per_s", n / s.median_s},
       {"busbw_bytes_per_s", n / s.median_s * factor}});
  return e;
}

Check verify_check(const Measured& m) {
  Check v = exact_count(
      {"collectives", m.name + "/verify", "every output element equals the CPU reference (exact)",
       CheckKind::law, "wrong elements"},
      0, m.wrong);
  v.tolerance = 0;
  v.reason = std::to_string(m.wrong) + " wrong elements over " + std::to_string(m.ranks) + " ranks";
  return v;
}

}  // namespace

Report::Report(const Options& o, const Setup& setup, const lockstep::Processes& processes)
    : o_(o),
      setup_(setup),
      start_(std::chrono::steady_clock::now()),
      host_(query_host()),
      file_(o.out, context(o, setup, processes, host_)) {
  std::printf("collectives: %s (%s); rank counts", setup.transport.c_str(), setup.engine.c_str());
  for (int c : setup.rank_counts) std::printf(" %d", c);
  std::printf("; sizes %.0f to %.0f B%s\n", o.min_bytes, setup.max_bytes,
              setup.memory_note.empty() ? "" : (" (" + setup.memory_note + ")").c_str());
  std::printf("%-46s %6s %12s %12s %12s %10s %7s\n", "case", "ranks", "bytes", "time (us)",
              "algbw GB/s", "busbw GB/s", "#wrong");
}

void Report::add(const Measured& m) {
  const json e = entry(m, setup_.transport, o_.time_reduction);
  const Check v = verify_check(m);
  file_.add({e}, {v});
  checks_.push_back(v);
  rows_.push_back(summary_row(e, {v}));
  const Spec& spec = m.planned.spec;
  Point pt{setup_.transport,
           spec.op,
           spec.dtype,
           spec.redop,
           spec.in_place,
           m.ranks,
           static_cast<double>(m.shape.bytes),
           e["median_s"].get<double>(),
           m.planned.sweep,
           m.ranks_on_node,
           setup_.transport == "nccl" ? 0 : host_.logical_cpus};
  points_.push_back(pt);
  std::printf("%-46s %6d %12zu %12.2f %12.3f %10.3f %7llu\n",
              m.name.substr(0, m.name.rfind('/')).c_str(), m.ranks, m.shape.bytes, pt.time_s * 1e6,
              algbw_bytes_per_s(pt) / 1e9, busbw_bytes_per_s(pt) / 1e9,
              static_cast<unsigned long long>(m.wrong));
  std::fflush(stdout);
}

int Report::finish() {
  const std::vector<Check> laws = collectives_checks(points_);
  file_.add_figures("collectives", collectives_figures(points_));
  // Every size's limiter (the link's busbw or its latency α) and its fraction of that bound.
  file_.edit([](json& doc) { add_bounds(doc, 0.0); });
  file_.add({}, laws);
  checks_.insert(checks_.end(), laws.begin(), laws.end());
  file_.finish();
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  // The per-size verify checks are in the table above; the laws follow, then the counts.
  for (const auto& c : laws)
    if (c.verdict != Verdict::below_expectation)
      std::printf("%s %s (%s): %s\n", verdict_name(c.verdict).c_str(), c.name.c_str(),
                  check_kind_name(c.kind).c_str(), c.reason.c_str());
  // The findings on their own, after the rest, where they are seen.
  std::printf("%s", findings_text(laws).c_str());
  const VerdictCounts n = count_verdicts(checks_);
  std::printf("collectives: %zu sizes measured and verified; %s; %.1f s\n", points_.size(),
              verdict_counts_text(n).c_str(), elapsed);
  lockstep::write_summary(o_.out, o_.summary, rows_, checks_, file_.document());
  // A FAIL fails the run; INCONCLUSIVE and BELOW-EXPECTATION only with --strict.
  const bool failed = n.fail > 0 || (o_.strict && (n.inconclusive > 0 || n.below_expectation > 0));
  return failed && !o_.no_fail ? lockstep::kExitFailed : 0;
}

}  // namespace bb::collectives
