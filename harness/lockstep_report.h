// What the reports of the suites measured in lockstep (collectives, strategies) share: the results
// file's context for a run over processes, and the end of a run (the markdown summary and the
// lines naming both files).
#pragma once

#include <nlohmann/json.hpp>
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
// context.boundbench.slurm (the job id and tasks) when srun launched the run.
nlohmann::json run_context(const RunContext& run, const HostInfo& host);

// Writes the markdown summary atomically to `summary` (--summary) when given, else to the results
// path `out` with its extension replaced by .md; then prints "results: OUT" and "summary: PATH".
void write_summary(const std::string& out, const std::string& summary,
                   const std::vector<SummaryRow>& rows, const std::vector<Check>& checks,
                   const nlohmann::json& results);

}  // namespace bb::lockstep
