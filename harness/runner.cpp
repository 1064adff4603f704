#include "harness/runner.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <regex>
#include <stdexcept>

#include <fmt/format.h>

#include "harness/bound.h"
#include "harness/checks.h"
#include "harness/drift.h"
#include "harness/host_threads.h"
#include "harness/measure.h"
#include "harness/nvml.h"
#include "harness/regression.h"
#include "harness/results.h"

namespace bb {
namespace {

using json = nlohmann::json;

// One repetition of one case, as the benchmark function leaves it for the reporter.
struct Record {
  json params;
  json observations;
  Work work;
  Measurement m;
  Bounds bounds;
  std::vector<Check> checks;
  std::string error;
  bool skipped = false;  // CaseSkipped: not an error of the run
};

// The state of one run, owned by run_cases and captured by reference by the benchmark functions.
struct RunState {
  const RunOptions& opts;
  const Environment& env;
  std::size_t total = 0, started = 0;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  std::map<std::string, std::deque<Record>> pending;  // by registered name
  std::map<std::string, const SelectedCase*> by_name;
  std::vector<SummaryRow> rows;
  std::vector<Check> checks;
  std::map<std::string, std::vector<double>> cpu_per_sample;  // by case, one per repetition
  std::map<const Suite*, std::vector<CaseResult>> results;    // measured cases, for suite checks
  RunOutcome outcome;
  SpareTime spare{opts.spare_s};                    // what is left of the run's spare seconds
  std::map<const Suite*, std::size_t> suite_cases;  // selected cases per suite (case_undecided)
  std::unique_ptr<Nvml>
      nvml;  // the GPU clocks and their event reasons: loaded at the 1st CUDA case
  // Pairing groups of two or more selected cases, by "suite/backend/group", in selection order;
  // the group of each member (by full name); records measured ahead with their group, by full
  // name; the number of group measurements so far.
  std::map<std::string, std::vector<const SelectedCase*>> groups;
  std::map<std::string, std::string> group_of;
  std::map<std::string, std::deque<Record>> premeasured;
  std::size_t paired_runs = 0;
};

double elapsed_s(const RunState& s) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - s.t0).count();
}

// The GPU a case runs on; none for a host case.
const GpuDevice* gpu_of(const RunState& rs, const Case& c) {
  return c.backend == Backend::cuda ? &rs.env.gpus.devices.at(rs.opts.device) : nullptr;
}

// A case (or a member of a pairing group) prepared and validated, ready to sample; where it is
// not, its record says why.
struct Member {
  const SelectedCase* sel = nullptr;
  Record rec;
  Prepared p;
  bool ready = false;
  const std::string& suite() const { return sel->suite->name; }
  const std::string& name() const { return sel->item->name; }
};

// CaseSkipped (the case does not fit this machine) is a SKIP; anything else a FAIL.
void fail_member(Member& mb, const std::exception& e) {
  mb.ready = false;
  mb.rec.skipped = dynamic_cast<const CaseSkipped*>(&e) != nullptr;
  mb.rec.error = (mb.rec.skipped ? "skipped: " : "") + std::string(e.what());
  const CheckHead head{mb.suite(), mb.name() + "/run",
                       "the case prepares, validates and runs without error"};
  mb.rec.checks.push_back(mb.rec.skipped ? skipped(head, e.what()) : fault(head, e.what()));
}

void prepare_member(Member& mb, const CaseContext& ctx) {
  try {
    mb.p = prepare_case(*mb.sel->item, ctx);
    mb.rec.params = mb.p.params;
    mb.rec.work = mb.p.work;
    const Comparison cmp = mb.p.instance->validate();
    mb.rec.checks.push_back(validation_check(mb.suite(), mb.name(), cmp));
    if (!cmp.ok()) {
      mb.rec.error = "validation failed: " + cmp.describe();
    } else if (ctx.gpu && ctx.gpu->simulated && !ctx.gpu->simulated_timing) {
      // A functional simulator (GPGPU-Sim) computes real results, so the case is validated; its
      // times are no measurements (events give 0), so none is taken or reported. Its timing model
      // gives simulated time: measured like a GPU, the device's name saying what it is.
      const std::string why = "simulated device (" + ctx.gpu->name +
                              "): validated against the reference; timings are not measurements";
      mb.rec.skipped = true;
      mb.rec.error = "skipped: " + why;
      mb.rec.checks.push_back(
          skipped({mb.suite(), mb.name() + "/measure", "the case is timed on a GPU"}, why));
    } else {
      mb.ready = true;
    }
  } catch (const std::exception& e) {
    fail_member(mb, e);
  }
}

// The checks of a measured member: the roofline, the clock, the case's own.
void finish_member(const RunState& rs, Member& mb, const GpuDevice* gpu) {
  try {
    Record& rec = mb.rec;
    rec.bounds = bounds_for(mb.sel->item->backend, mb.p.work, gpu, rs.env.host,
                            rs.opts.host_peak_bytes_per_s);
    // A case that declares no work (a latency chase) has no roofline to be held against.
    if (mb.p.work.bytes() > 0 || mb.p.work.flop > 0)
      rec.checks.push_back(roofline_check(mb.suite(), mb.name(), mb.p.work, rec.bounds,
                                          rec.m.summary, rs.opts.roofline_tolerance));
    if (gpu) rec.checks.push_back(clock_check(mb.suite(), mb.name(), rec.m));
    rec.observations = mb.p.instance->observations();
    if (mb.sel->item->extra_checks)
      for (auto& c : mb.sel->item->extra_checks(mb.p, rec.m)) rec.checks.push_back(std::move(c));
  } catch (const std::exception& e) {
    fail_member(mb, e);
  }
}

// For a pairing group whose suite has checks over its cases: whether one of those checks, made
// from the group's samples so far, is a law still INCONCLUSIVE. The suite's checks see the group's
// members alone, as measured so far (each summary at the samplers' sequential confidence, which
// the paired checks judge at); a check that cannot be made from them is no reason to go on. None
// (empty) for a case sampled alone or a suite without such checks.
UndecidedFn group_undecided(const RunState& rs, std::vector<Member>& ms,
                            const std::vector<std::size_t>& index) {
  if (index.size() < 2) return {};
  const Suite& suite = *ms[index.front()].sel->suite;
  if (!suite.suite_checks) return {};
  const std::size_t run = rs.paired_runs + 1;  // the number this measurement will get
  return [&ms, index, &suite, run](std::span<const Sampler> samplers) {
    std::vector<CaseResult> partial;
    for (std::size_t k = 0; k < index.size(); ++k) {
      const Member& mb = ms[index[k]];
      const Sampler& s = samplers[k];
      partial.push_back({mb.name(), mb.sel->item->backend, mb.p.params, json::object(), mb.p.work,
                         s.summary(), kept_samples(s.samples()), mb.sel->item->pairing_group, run,
                         kept_rounds(s.samples()), s.confidence()});
    }
    try {
      const std::vector<Check> checks = suite.suite_checks(partial);
      return std::any_of(checks.begin(), checks.end(), [](const Check& c) {
        return c.kind == CheckKind::law && c.verdict == Verdict::inconclusive;
      });
    } catch (const std::exception&) {
      return false;
    }
  };
}

bool law_inconclusive(const Check& c) {
  return c.kind == CheckKind::law && c.verdict == Verdict::inconclusive;
}

// For a case sampled alone (issue 27): whether a law it feeds is still INCONCLUSIVE given its
// samples so far, as group_undecided does for a pairing group: its own checks (the roofline, the
// case's extra_checks) made from those samples, and, once every other case of its suite in this
// run has been measured (a series judged before it is complete is no reason to go on), its suite's
// checks over those cases and it, counting only the laws it changes (absent without it, or with
// another verdict or value). None for a group, or under --repetitions (a suite's cases then come
// back more than once).
UndecidedFn case_undecided(const RunState& rs, std::vector<Member>& ms,
                           const std::vector<std::size_t>& index) {
  if (index.size() != 1 || rs.opts.repetitions > 1) return {};
  const Member& mb = ms[index.front()];
  const Suite& suite = *mb.sel->suite;
  const auto measured = rs.results.find(&suite);
  const std::size_t before = measured == rs.results.end() ? 0 : measured->second.size();
  const bool last_of_suite = suite.suite_checks && rs.suite_cases.at(&suite) == before + 1;
  const Bounds bounds = bounds_for(mb.sel->item->backend, mb.p.work, gpu_of(rs, *mb.sel->item),
                                   rs.env.host, rs.opts.host_peak_bytes_per_s);
  // The suite's laws without this case: name → (verdict, measured).
  std::map<std::string, std::pair<Verdict, double>> without;
  const std::vector<CaseResult> others =
      last_of_suite && measured != rs.results.end() ? measured->second : std::vector<CaseResult>{};
  if (last_of_suite) {
    try {
      for (const Check& c : suite.suite_checks(others)) without[c.name] = {c.verdict, c.measured};
    } catch (const std::exception&) {
      // Judged below with this case, where a failure means no reason to go on.
    }
  }
  return [&mb, &suite, &rs, bounds, last_of_suite, without,
          others](std::span<const Sampler> samplers) {
    const Sampler& s = samplers.front();
    Measurement m;
    m.summary = s.summary();
    m.samples_s.assign(s.samples().begin(), s.samples().end());
    try {
      if ((mb.p.work.bytes() > 0 || mb.p.work.flop > 0) &&
          law_inconclusive(roofline_check(mb.suite(), mb.name(), mb.p.work, bounds, m.summary,
                                          rs.opts.roofline_tolerance)))
        return true;
      if (mb.sel->item->extra_checks)
        for (const Check& c : mb.sel->item->extra_checks(mb.p, m))
          if (law_inconclusive(c)) return true;
      if (!last_of_suite) return false;
      std::vector<CaseResult> results = others;
      results.push_back({mb.name(), mb.sel->item->backend, mb.p.params, json::object(), mb.p.work,
                         m.summary, kept_samples(s.samples())});
      for (const Check& c : suite.suite_checks(results)) {
        if (!law_inconclusive(c)) continue;
        const auto w = without.find(c.name);
        // Measured values default to NaN: two NaNs are the same value here.
        const bool same_value =
            w != without.end() && (w->second.second == c.measured ||
                                   (std::isnan(w->second.second) && std::isnan(c.measured)));
        if (w == without.end() || w->second.first != c.verdict || !same_value) return true;
      }
    } catch (const std::exception&) {
      // A check that cannot be made from these samples is no reason to go on.
    }
    return false;
  };
}

// Measures one case, or the members of a pairing group together (prepared at once, sampled in
// rotating rounds), and queues their records for run_one. `note`: why a member of a group is
// measured alone.
void measure_members(RunState& rs, const std::vector<const SelectedCase*>& sels,
                     const std::string& note = "") {
  const Case& first = *sels.front()->item;
  const GpuDevice* gpu = gpu_of(rs, first);
  std::vector<Member> ms(sels.size());
  for (std::size_t i = 0; i < sels.size(); ++i) ms[i].sel = sels[i];
  try {
    if (gpu) set_current_gpu(*gpu);
  } catch (const std::exception& e) {
    for (auto& mb : ms) fail_member(mb, e);
  }
  const CaseContext ctx{rs.env.host, gpu, rs.opts.quick};
  const bool hot = rs.opts.hot || first.warm_caches;  // no GPU L2 flush before each sample
  std::vector<Instance*> live;
  std::vector<StoppingRule> rules;
  std::vector<std::size_t> index;
  for (std::size_t i = 0; i < ms.size(); ++i) {
    if (!ms[i].rec.error.empty()) continue;
    prepare_member(ms[i], ctx);
    if (!ms[i].ready) continue;
    live.push_back(ms[i].p.instance.get());
    // A timing simulator is deterministic up to the placement of blocks: few samples suffice,
    // and each costs seconds of host time.
    rules.push_back(gpu && gpu->simulated_timing ? StoppingRule::simulated()
                    : sels[i]->item->sweep_point ? rs.opts.rule.for_sweep_point()
                                                 : rs.opts.rule);
    // After the rounds (StoppingRule::after_rounds): a sample that does not depend on what ran
    // before it (flushed GPU L2, a working set beyond the last-level cache) may continue them; a
    // cache-sized host member takes its own samples back to back; a hot GPU member stops there.
    using After = StoppingRule::AfterRounds;
    rules.back().after_rounds = (gpu && !hot) || ms[i].p.work.memory_level == "dram"
                                    ? After::continue_rounds
                                : gpu ? After::rounds_only
                                      : After::own_samples;
    index.push_back(i);
  }
  if (!live.empty()) {
    try {
      if (gpu && !rs.nvml) rs.nvml = std::make_unique<Nvml>();  // once per run, if a GPU case
      const UndecidedFn undecided =
          index.size() == 1 ? case_undecided(rs, ms, index) : group_undecided(rs, ms, index);
      const double spare_left_s = rs.spare.left_s();
      std::vector<Measurement> measured =
          gpu ? measure_cuda_group(live, rules, *gpu, hot, rs.nvml.get(),
                                   rs.opts.quick ? kGpuWarmupQuickS : kGpuWarmupS, undecided,
                                   &rs.spare)
              : measure_host_group(live, rules, undecided, &rs.spare);
      const std::size_t run = live.size() >= 2 ? ++rs.paired_runs : 0;
      for (std::size_t k = 0; k < live.size(); ++k) {
        Member& mb = ms[index[k]];
        mb.rec.m = std::move(measured[k]);
        mb.rec.m.spare_left_s = spare_left_s;
        if (run) {
          mb.rec.m.paired_group = mb.sel->item->pairing_group;
          mb.rec.m.paired_members = live.size();
          mb.rec.m.paired_run = run;
        }
        finish_member(rs, mb, gpu);
      }
    } catch (const std::exception& e) {
      for (std::size_t i : index) fail_member(ms[i], e);  // one sampling loop: all or none
    }
  }
  // Released in the reverse order of preparation: a member that changes a device setting and
  // restores it on release (e.g. the L2 fetch granularity) nests with the others.
  for (auto it = ms.rbegin(); it != ms.rend(); ++it) it->p.instance.reset();
  for (auto& mb : ms) {
    mb.rec.m.pairing_note = note;
    rs.premeasured[mb.sel->full_name].push_back(std::move(mb.rec));
  }
}

// A pairing group: its members together when their declared memory fits, else one at a time.
void measure_group(RunState& rs, const std::vector<const SelectedCase*>& sels) {
  const Case& first = *sels.front()->item;
  const GpuDevice* gpu = gpu_of(rs, first);
  std::uint64_t host_bytes = 0, gpu_bytes = 0;
  for (const auto* sel : sels) {
    try {
      const Declared d = sel->item->declare({rs.env.host, gpu, rs.opts.quick});
      host_bytes += d.host_memory_bytes;
      gpu_bytes += d.gpu_memory_bytes;
    } catch (const std::exception&) {
      // Declaring again while preparing reports it, for that member alone.
    }
  }
  const bool host_fits = fits_in_memory(host_bytes, rs.env.host.memory_bytes);
  const bool gpu_fits = !gpu || fits_in_memory(gpu_bytes, gpu->memory_bytes);
  if (host_fits && gpu_fits) return measure_members(rs, sels);
  const std::string note = fmt::format(
      "sampled alone, not paired: the {} members of pairing group '{}' need {} MiB of {} memory "
      "together, more than 3/4 of its {} MiB",
      sels.size(), first.pairing_group, (host_fits ? gpu_bytes : host_bytes) >> 20,
      host_fits ? "GPU" : "host", (host_fits ? gpu->memory_bytes : rs.env.host.memory_bytes) >> 20);
  for (const auto* sel : sels) measure_members(rs, {sel}, note);
}

void run_one(benchmark::State& st, RunState& rs, const SelectedCase& sel) {
  ++rs.started;
  const double el = elapsed_s(rs);
  const double eta = rs.started > 1 ? el / static_cast<double>(rs.started - 1) *
                                          static_cast<double>(rs.total - rs.started + 1)
                                    : 0.0;
  std::printf("[%s] case %zu/%zu %s  (elapsed %.1f s, ETA %s)\n", sel.suite->name.c_str(),
              rs.started, rs.total, sel.item->name.c_str(), el,
              rs.started > 1 ? (std::to_string(static_cast<int>(eta + 0.5)) + " s").c_str() : "?");
  std::fflush(stdout);

  // A member of a pairing group was measured with the first of its members to run (one record per
  // repetition); any other case is measured now.
  auto& queue = rs.premeasured[sel.full_name];
  if (queue.empty()) {
    const auto group = rs.group_of.find(sel.full_name);
    if (group == rs.group_of.end())
      measure_members(rs, {&sel});
    else
      measure_group(rs, rs.groups.at(group->second));
  }
  Record rec = std::move(queue.front());
  queue.pop_front();
  if (!rec.error.empty())
    st.SkipWithError(rec.error.c_str());
  else
    for (auto _ : st) st.SetIterationTime(rec.m.summary.median_s);
  rs.pending[sel.full_name].push_back(std::move(rec));
}

json benchmark_entry(const benchmark::BenchmarkReporter::Run& run, const SelectedCase& sel,
                     const Record* rec) {
  // Names without Google Benchmark's "/iterations:1/repeats:N/manual_time" suffix, which every case
  // shares; aggregates keep its "_mean"-style suffix, as compare.py expects.
  const bool aggregate = run.run_type == benchmark::BenchmarkReporter::Run::RT_Aggregate;
  json e = {{"name", aggregate ? sel.full_name + "_" + run.aggregate_name : sel.full_name},
            {"family_index", run.family_index},
            {"per_family_instance_index", run.per_family_instance_index},
            {"run_name", sel.full_name},
            {"run_type", aggregate ? "aggregate" : "iteration"},
            {"repetitions", run.repetitions},
            {"threads", run.threads},
            {"time_unit", benchmark::GetTimeUnitString(run.time_unit)},
            {"suite", sel.suite->name},
            {"case", sel.item->name},
            {"backend", backend_name(sel.item->backend)}};
  if (aggregate) {
    e["aggregate_name"] = run.aggregate_name;
    e["aggregate_unit"] = run.aggregate_unit == benchmark::kPercentage ? "percentage" : "time";
  } else {
    e["repetition_index"] = run.repetition_index;
  }
  if (run.error_occurred) {
    e["error_occurred"] = true;
    e["error_message"] = run.error_message;
    return e;
  }
  e["iterations"] = run.iterations;
  // As Google Benchmark's JSON reporter: percentages (the _cv aggregate) are raw fractions.
  const bool percentage = aggregate && run.aggregate_unit == benchmark::kPercentage;
  e["real_time"] = percentage ? run.real_accumulated_time : run.GetAdjustedRealTime();
  e["cpu_time"] = percentage ? run.cpu_accumulated_time : run.GetAdjustedCPUTime();
  for (const auto& [k, c] : run.counters) e[k] = c.value;
  if (!rec) return e;
  const Summary& s = rec->m.summary;
  // One sample's CPU time, as the harness's sampling loop measured it (the calling thread's).
  e["cpu_time"] =
      rec->m.cpu_per_sample_s >= 0
          ? rec->m.cpu_per_sample_s * benchmark::GetTimeUnitMultiplier(run.time_unit)
          : run.GetAdjustedCPUTime() / static_cast<double>(std::max<std::size_t>(s.samples, 1));
  e["iterations"] = s.samples;
  e["params"] = rec->params;
  if (!rec->observations.empty()) e["observations"] = rec->observations;
  e["bytes_read"] = rec->work.bytes_read;
  e["bytes_written"] = rec->work.bytes_written;
  e["bytes"] = rec->work.bytes();
  e["flop"] = rec->work.flop;
  e["elements"] = rec->work.elements;
  e["precision"] = theory::precision_name(rec->work.precision);
  e["memory_level"] = rec->work.memory_level;
  add_summary(e, s, rec->m.samples_s);
  e["stop_reason"] = stop_reason_name(rec->m.stop);
  if (!rec->m.paired_group.empty()) {
    // Own samples are all taken alone; else the samples after the rounds.
    const std::size_t alone =
        rec->m.own_samples ? s.samples : s.samples - std::min(rec->m.rounds, s.samples);
    e["pairing"] = {{"group", rec->m.paired_group},
                    {"members", rec->m.paired_members},
                    {"run", rec->m.paired_run},
                    {"rounds", rec->m.rounds},
                    {"alone", alone},
                    {"confidence", rec->m.round_confidence},
                    {"order", "rotating"}};
    if (rec->m.own_samples) e["pairing"]["own_samples"] = true;
    e["round_samples_s"] = kept_rounds(round_samples(rec->m));
  }
  if (!rec->m.pairing_note.empty()) e["pairing_note"] = rec->m.pairing_note;
  if (rec->m.spare_left_s >= 0) e["spare_left_s"] = rec->m.spare_left_s;
  e["harness_overhead_s"] = rec->m.harness_overhead_s;
  e["bytes_per_s"] = rec->work.bytes() / s.median_s;
  e["flop_per_s"] = rec->work.flop / s.median_s;
  if (rec->bounds.bandwidth_bytes_per_s > 0) {
    e["peak_bytes_per_s"] = rec->bounds.bandwidth_bytes_per_s;
    e["pct_of_peak_bandwidth"] =
        100 * e["bytes_per_s"].get<double>() / rec->bounds.bandwidth_bytes_per_s;
  }
  for (const auto& c : rec->checks)
    if (c.name.ends_with("/roofline") && c.verdict != Verdict::skip)
      e["pct_of_bound"] = 100 * c.predicted / s.median_s;
  if (rec->m.clock_start_hz > 0) {
    e["clock_start_hz"] = rec->m.clock_start_hz;
    e["clock_end_hz"] = rec->m.clock_end_hz;
    if (rec->m.clock_reprobe_hz > 0) e["clock_reprobe_hz"] = rec->m.clock_reprobe_hz;
    if (rec->m.clock_reference_hz > 0) {
      e["clock_reference_hz"] = rec->m.clock_reference_hz;
      e["clock_reference_source"] = rec->m.clock_reference_source;
    }
    if (rec->m.clock_reasons_known) {
      e["clock_event_reasons"] = clock_event_reason_names(rec->m.clock_event_reasons);
      e["clock_slowdown"] = clock_event_is_slowdown(rec->m.clock_event_reasons);
    }
    e["throttled"] = clock_throttled(rec->m);
  }
  return e;
}

// Iteration entries give cpu_time per sample; Google Benchmark's aggregates were computed from its
// whole-loop CPU times, so their cpu_time is recomputed from the per-sample values.
// Google Benchmark reports a case's repetitions and its aggregates in separate calls, so the
// per-sample values are kept per case name.
void per_sample_cpu_aggregates(std::vector<json>& entries,
                               std::map<std::string, std::vector<double>>& cpu_by_case) {
  for (const auto& e : entries)
    if (e["run_type"] == "iteration" && e.contains("cpu_time"))
      cpu_by_case[e["run_name"]].push_back(e["cpu_time"]);
  for (auto& e : entries) {
    if (e["run_type"] != "aggregate" || !e.contains("cpu_time")) continue;
    const Summary s = summarize(cpu_by_case[e["run_name"]]);
    const std::string agg = e["aggregate_name"];
    if (agg == "mean") e["cpu_time"] = s.mean_s;
    if (agg == "median") e["cpu_time"] = s.median_s;
    if (agg == "stddev") e["cpu_time"] = s.stddev_s;
    if (agg == "cv") e["cpu_time"] = s.rel_noise;
  }
}

// Google Benchmark display reporter: writes the results file after each case and prints a line.
class Reporter : public benchmark::BenchmarkReporter {
 public:
  Reporter(RunState& rs, ResultsFile& file) : rs_(rs), file_(file) {}
  bool ReportContext(const Context&) override { return true; }

  void ReportRuns(const std::vector<Run>& runs) override {
    std::vector<json> entries;
    std::vector<Check> checks;
    for (const Run& run : runs) {
      const std::string key = run.run_name.function_name;
      const SelectedCase& sel = *rs_.by_name.at(key);
      std::optional<Record> rec;
      auto& queue = rs_.pending[key];
      if (run.run_type == Run::RT_Iteration && !queue.empty()) {
        rec = std::move(queue.front());
        queue.pop_front();
      }
      entries.push_back(benchmark_entry(run, sel, rec ? &*rec : nullptr));
      if (!rec) continue;
      ++rs_.outcome.cases;
      if (!rec->error.empty() && !rec->skipped) ++rs_.outcome.case_errors;
      if (rec->error.empty() && !run.error_occurred)
        rs_.results[sel.suite].push_back(
            {sel.item->name, sel.item->backend, rec->params, rec->observations, rec->work,
             rec->m.summary, kept_samples(rec->m.samples_s), rec->m.paired_group, rec->m.paired_run,
             rec->m.paired_group.empty() ? std::vector<double>{}
                                         : kept_rounds(round_samples(rec->m)),
             rec->m.paired_group.empty() ? 0.0 : rec->m.round_confidence});
      for (const auto& c : rec->checks) checks.push_back(c);
      rs_.rows.push_back(summary_row(entries.back(), rec->checks));
      print_case_line(rs_.rows.back());
    }
    per_sample_cpu_aggregates(entries, rs_.cpu_per_sample);
    for (const auto& c : checks) rs_.checks.push_back(c);
    file_.add(entries, checks);
  }

 private:
  RunState& rs_;
  ResultsFile& file_;
};

// Every case's bound, limiter and fraction, from the ceilings this run measured (and those of
// --ceilings where it did not): a roofline check skipped for want of a spec bound becomes the check
// against the hierarchical bound; the summary rows gain the limiter.
void add_bounds_after_run(RunState& rs, ResultsFile& file) {
  std::optional<json> earlier;
  if (!rs.opts.ceilings_path.empty()) earlier = load_results(rs.opts.ceilings_path);
  std::map<std::string, Check> made;
  file.edit([&](json& doc) {
    made = add_bounds(doc, rs.opts.roofline_tolerance, earlier ? &*earlier : nullptr);
  });
  for (auto& row : rs.rows)
    if (const auto it = made.find(row.name + "/roofline"); it != made.end()) {
      const std::string now = "roofline " + verdict_name(it->second.verdict);
      const auto at = row.verdicts.find("roofline SKIP");
      if (at != std::string::npos)
        row.verdicts.replace(at, std::string("roofline SKIP").size(), now);
      else
        row.verdicts += (row.verdicts.empty() ? "" : ", ") + now;
    }
  for (auto& c : rs.checks)
    if (const auto it = made.find(c.suite + "/" + c.name); it != made.end()) {
      c = it->second;
      made.erase(it);
    }
  for (auto& [name, c] : made) rs.checks.push_back(c);
  std::map<std::string, const json*> entries;
  for (const auto& e : file.document()["benchmarks"])
    if (e.value("run_type", "") == "iteration") entries[e.value("name", "")] = &e;
  for (auto& row : rs.rows)
    if (const auto it = entries.find(row.name); it != entries.end()) set_bound(row, *it->second);
}

}  // namespace

void require_known_suites(const std::vector<Suite>& suites,
                          const std::vector<std::string>& wanted) {
  for (const auto& w : wanted)
    if (std::none_of(suites.begin(), suites.end(), [&](const Suite& s) { return s.name == w; })) {
      std::string known;
      for (const auto& s : suites) known += (known.empty() ? "" : ", ") + s.name;
      throw std::invalid_argument("unknown suite '" + w + "' (suites: " + known + ")");
    }
}

Selection select_cases(const std::vector<Suite>& suites, const RunOptions& opts,
                       const Environment& env) {
  require_known_suites(suites, opts.suites);
  if (env.gpus.usable &&
      (opts.device < 0 || opts.device >= static_cast<int>(env.gpus.devices.size())))
    throw std::invalid_argument("--device " + std::to_string(opts.device) + ": there are " +
                                std::to_string(env.gpus.devices.size()) + " CUDA devices");
  std::regex filter;
  try {
    filter = std::regex(opts.filter.empty() ? "." : opts.filter, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw std::invalid_argument("--filter: invalid regular expression '" + opts.filter + "'");
  }
  Selection sel;
  std::size_t cuda_left_out = 0;
  for (const auto& s : suites) {
    if (!opts.suites.empty() &&
        std::find(opts.suites.begin(), opts.suites.end(), s.name) == opts.suites.end())
      continue;
    for (const auto& c : s.cases) {
      const std::string full = s.name + "/" + c.name;
      if (opts.backend && *opts.backend != c.backend) continue;
      if (!std::regex_search(full, filter)) continue;
      if (opts.quick && !c.in_quick) continue;  // coverage cases: full runs only
      ++sel.matched;
      if (c.backend == Backend::cuda && !env.gpus.usable) {
        ++cuda_left_out;
        continue;
      }
      sel.run.push_back({&s, &c, full});
    }
  }
  const bool cuda_wanted = !opts.backend || *opts.backend == Backend::cuda;
  if (cuda_wanted && !env.gpus.usable)
    sel.skipped.push_back(
        skipped({"harness", "backend/cuda", "a usable CUDA device runs the CUDA cases"},
                "no usable GPU: " + env.gpus.reason + " (" + std::to_string(cuda_left_out) +
                    " CUDA cases skipped)"));
  return sel;
}

RunOutcome run_cases(const Selection& selection, const RunOptions& opts, const Environment& env) {
  json context = make_context(opts, env);
  std::optional<OpenmpPinning> pinning;  // for this run; the caller gets its CPUs back after
  if (std::any_of(selection.run.begin(), selection.run.end(),
                  [](const SelectedCase& c) { return c.item->backend == Backend::host; })) {
    pinning.emplace();
    context["boundbench"]["host_threads"] = pinning->description();
    std::printf("host: %s\n", pinning->description().c_str());
  }
  ResultsFile file(opts.out_path, context);
  file.add({}, selection.skipped);

  RunState rs{opts, env};
  rs.total = selection.run.size() * static_cast<std::size_t>(std::max(opts.repetitions, 1));
  rs.checks = selection.skipped;
  for (const auto& c : selection.run) ++rs.suite_cases[c.suite];
  for (const auto& c : selection.run) {
    if (c.item->pairing_group.empty()) continue;
    const std::string key =
        c.suite->name + "/" + backend_name(c.item->backend) + "/" + c.item->pairing_group;
    rs.groups[key].push_back(&c);
  }
  for (const auto& [key, members] : rs.groups)
    if (members.size() >= 2)
      for (const auto* c : members) rs.group_of[c->full_name] = key;
  for (const auto& c : selection.run) {
    rs.by_name[c.full_name] = &c;
    benchmark::RegisterBenchmark(c.full_name.c_str(),
                                 [&rs, &c](benchmark::State& st) { run_one(st, rs, c); })
        ->UseManualTime()
        ->Iterations(1)
        ->Repetitions(std::max(opts.repetitions, 1))
        ->Unit(benchmark::kNanosecond);
  }
  std::vector<std::string> args = {"boundbench"};
  for (const auto& a : opts.benchmark_args) args.push_back(a);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  benchmark::Initialize(&argc, argv.data());
  if (benchmark::ReportUnrecognizedArguments(argc, argv.data()))
    throw std::invalid_argument("unrecognised Google Benchmark argument");
  Reporter reporter(rs, file);
  if (!selection.run.empty()) benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::ClearRegisteredBenchmarks();

  for (const auto& [suite, results] : rs.results) {
    if (results.empty()) continue;
    std::vector<Check> checks;
    try {
      if (suite->suite_checks) checks = suite->suite_checks(results);
      if (suite->suite_figures) file.add_figures(suite->name, suite->suite_figures(results));
    } catch (const std::exception& e) {
      checks.push_back(fault({suite->name, "suite_checks",
                              "the suite's checks over its measured cases run without error"},
                             e.what()));
    }
    for (const auto& c : checks) rs.checks.push_back(c);
    file.add({}, checks);
  }

  add_bounds_after_run(rs, file);
  rs.outcome.checks = count_verdicts(rs.checks);
  file.finish();
  const std::vector<std::string> drifting = drifting_cases(file.document()["benchmarks"]);
  if (!drifting.empty()) {
    std::printf(
        "\nDRIFTING (samples that trend or warm up in the order taken; findings, not "
        "failures):\n");
    for (const auto& l : drifting) std::printf("  %s\n", l.c_str());
  }
  print_summary(rs.rows, rs.checks, elapsed_s(rs));
  if (!opts.summary_path.empty())
    write_file_atomically(opts.summary_path, markdown_summary(rs.rows, rs.checks, file.document()));
  return rs.outcome;
}

}  // namespace bb
