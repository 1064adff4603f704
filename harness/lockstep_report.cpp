#include "harness/lockstep_report.h"

#include <cstdio>

#include "harness/gpu.h"
#include "harness/lockstep_engine.h"
#include "harness/results.h"
#include "harness/runner.h"

namespace bb::lockstep {

nlohmann::json run_context(const RunContext& run, const HostInfo& host) {
  RunOptions ro;
  ro.quick = run.quick;
  ro.command_line = run.command_line;
  ro.rule.min_samples = static_cast<std::size_t>(run.samples);
  ro.rule.warmup_samples = static_cast<std::size_t>(run.warmup);
  ro.rule.min_time_s = run.sample_time_s;
  ro.rule.timeout_s = run.timeout_s;
  nlohmann::json c = make_context(ro, Environment{host, query_gpus()});
  const SlurmTask slurm = slurm_task();
  if (slurm.ntasks > 0)
    c["boundbench"]["slurm"] = {{"job_id", slurm.job_id},
                                {"step_id", slurm.step_id},
                                {"ntasks", slurm.ntasks},
                                {"rank_0_localid", slurm.localid},
                                {"rank_0_nodeid", slurm.nodeid}};
  return c;
}

void write_summary(const std::string& out, const std::string& summary,
                   const std::vector<SummaryRow>& rows, const std::vector<Check>& checks,
                   const nlohmann::json& results) {
  // Without a dot, rfind's npos keeps the whole path.
  const std::string path = summary.empty() ? out.substr(0, out.rfind('.')) + ".md" : summary;
  write_file_atomically(path, markdown_summary(rows, checks, results));
  std::printf("results: %s\nsummary: %s\n", out.c_str(), path.c_str());
}

}  // namespace bb::lockstep
