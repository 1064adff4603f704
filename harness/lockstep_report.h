// What the reports of the suites measured in lockstep (collectives, strategies) share: the results
// file's context for a run over processes, and the end of a run (the markdown summary and the
// lines naming both files).
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "harness/case.h"
#include "harness/host_info.h"
#include "harness/stats.h"
#include "harness/summary.h"

namespace bb::lockstep {

// The run's sampling, as the context's stopping rule records it.
struct RunContext {
  bool quick = false;
  std::string command_line;
  int samples = 0, warmup = 0;
  double sample_time_s = StoppingRule{}.min_time_s;  // the target of one sample, where there is one
  double timeout_s = 0;
};
// make_context (harness/summary.h) with this rule, the host and the GPUs, plus
// context.boundbench.slurm (the job id and tasks) when srun launched the run, and
// context.boundbench.<suite>: the suite's own settings, `suite_context`.
nlohmann::json run_context(const RunContext& run, const HostInfo& host, const std::string& suite,
                           nlohmann::json suite_context);

// The fields of a case's results entry that both suites fill alike: Google Benchmark's for one run
// of "<suite>/<name>" (one repetition, one thread, real_time the median sample in ns), the suite
// and case, the `bytes` (as read; none written) and `flop` of one operation with their rates at
// the median, stop_reason "fixed", and the statistics of the samples `s` summarizes
// (add_summary). The suite adds the rest: backend, cpu_time, params, observations, elements,
// precision, harness_overhead_s and its own figures.
nlohmann::json case_entry(const std::string& suite, const std::string& name, const Summary& s,
                          std::span<const double> samples_s, double bytes, double flop);

// Writes the markdown summary atomically to `summary` (--summary) when given, else to the results
// path `out` with its extension replaced by .md; then prints "results: OUT" and "summary: PATH".
void write_summary(const std::string& out, const std::string& summary,
                   const std::vector<SummaryRow>& rows, const std::vector<Check>& checks,
                   const nlohmann::json& results);

}  // namespace bb::lockstep
