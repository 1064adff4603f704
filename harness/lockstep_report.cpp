#include "harness/lockstep_report.h"

#include <cstdio>
#include <utility>

#include "harness/gpu.h"
#include "harness/lockstep_engine.h"
#include "harness/results.h"
#include "harness/runner.h"

namespace bb::lockstep {

nlohmann::json run_context(const RunContext& run, const HostInfo& host, const std::string& suite,
                           nlohmann::json suite_context) {
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
  c["boundbench"][suite] = std::move(suite_context);
  return c;
}

nlohmann::json case_entry(const std::string& suite, const std::string& name, const Summary& s,
                          std::span<const double> samples_s, double bytes, double flop) {
  nlohmann::json e = {{"name", suite + "/" + name},
                      {"run_name", suite + "/" + name},
                      {"run_type", "iteration"},
                      {"repetitions", 1},
                      {"repetition_index", 0},
                      {"threads", 1},
                      {"time_unit", "ns"},
                      {"suite", suite},
                      {"case", name},
                      {"iterations", s.samples},
                      {"real_time", s.median_s * 1e9},
                      {"bytes_read", bytes},
                      {"bytes_written", 0.0},
                      {"bytes", bytes},
                      {"flop", flop},
                      {"stop_reason", "fixed"},
                      {"bytes_per_s", bytes / s.median_s},
                      {"flop_per_s", flop / s.median_s}};
  add_summary(e, s, samples_s);
  return e;
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
