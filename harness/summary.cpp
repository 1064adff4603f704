#include "harness/summary.h"

#include <unistd.h>

#include <cstdio>
#include <ctime>

#include <fmt/format.h>

#include "harness/build_info.h"
#include "harness/results.h"
#include "harness/runner.h"

namespace bb {
namespace {

std::string pct_or_dash(double pct) { return pct < 0 ? "-" : fmt::format("{:.1f}%", pct); }
// A case that moves no bytes (a latency chase) has no bandwidth to show.
std::string gbps_or_dash(double bytes_per_s) {
  return bytes_per_s > 0 ? fmt::format("{:.2f}", bytes_per_s / 1e9) : "-";
}

std::string human_time(double s) {
  if (s >= 1) return fmt::format("{:.3f} s", s);
  if (s >= 1e-3) return fmt::format("{:.3f} ms", s * 1e3);
  return fmt::format("{:.3f} us", s * 1e6);
}

std::string iso_date_utc() {
  char buf[32];
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

SummaryRow summary_row(const nlohmann::json& e, const std::vector<Check>& checks) {
  SummaryRow r;
  r.name = e.value("suite", "") + "/" + e.value("case", "");
  r.error = e.value("error_message", "");
  r.median_s = e.value("median_s", 0.0);
  r.bytes_per_s = e.value("bytes_per_s", 0.0);
  r.flop_per_s = e.value("flop_per_s", 0.0);
  r.rel_noise = e.value("rel_noise", 0.0);
  r.pct_of_peak_bandwidth = e.value("pct_of_peak_bandwidth", -1.0);
  r.pct_of_bound = e.value("pct_of_bound", -1.0);
  r.samples = e.value("samples", std::size_t{0});
  for (const auto& c : checks) {
    const auto slash = c.name.rfind('/');
    r.verdicts +=
        (r.verdicts.empty() ? "" : ", ") + c.name.substr(slash + 1) + " " + verdict_name(c.verdict);
  }
  return r;
}

void print_case_line(const SummaryRow& r) {
  if (!r.error.empty()) {
    std::printf("  %s: ERROR %s\n", r.name.c_str(), r.error.c_str());
  } else {
    std::printf(
        "  %s: median %s, %s GB/s (%s of peak BW, %s of bound), noise %.2f%%, %zu samples"
        " [%s]\n",
        r.name.c_str(), human_time(r.median_s).c_str(), gbps_or_dash(r.bytes_per_s).c_str(),
        pct_or_dash(r.pct_of_peak_bandwidth).c_str(), pct_or_dash(r.pct_of_bound).c_str(),
        100 * r.rel_noise, r.samples, r.verdicts.c_str());
  }
  std::fflush(stdout);
}

void print_summary(const std::vector<SummaryRow>& rows, const std::vector<Check>& checks,
                   double elapsed_s) {
  std::printf("\n%-36s %12s %11s %10s %9s %7s %5s\n", "case", "median", "GB/s", "%peak BW",
              "%bound", "noise", "n");
  for (const auto& r : rows) {
    if (!r.error.empty()) {
      std::printf("%-36s ERROR: %s\n", r.name.c_str(), r.error.c_str());
      continue;
    }
    std::printf("%-36s %12s %11s %10s %9s %6.2f%% %5zu\n", r.name.c_str(),
                human_time(r.median_s).c_str(), gbps_or_dash(r.bytes_per_s).c_str(),
                pct_or_dash(r.pct_of_peak_bandwidth).c_str(), pct_or_dash(r.pct_of_bound).c_str(),
                100 * r.rel_noise, r.samples);
  }
  int pass = 0, fail = 0, skip = 0;
  for (const auto& c : checks) {
    pass += c.verdict == Verdict::pass;
    fail += c.verdict == Verdict::fail;
    skip += c.verdict == Verdict::skip;
    if (c.verdict != Verdict::pass)
      std::printf("%s %s/%s: %s\n", verdict_name(c.verdict).c_str(), c.suite.c_str(),
                  c.name.c_str(), c.reason.c_str());
  }
  std::printf("checks: %d passed, %d failed, %d skipped; %zu cases in %.1f s\n", pass, fail, skip,
              rows.size(), elapsed_s);
  std::fflush(stdout);
}

std::string markdown_summary(const std::vector<SummaryRow>& rows, const std::vector<Check>& checks,
                             const nlohmann::json& results) {
  const auto& bb = results["context"]["boundbench"];
  std::string md = "## boundbench run\n\n";
  md += "commit `" + bb.value("git_commit", "") + "`, " + bb.value("date", "") + ", host " +
        bb["host"].value("cpu_model", "") + "\n\n";
  if (bb["gpus"].value("usable", false))
    for (const auto& d : bb["gpus"]["devices"])
      md += "GPU " + std::to_string(d.value("index", 0)) + ": " + d.value("name", "") + "\n\n";
  else
    md += "GPU: none usable (" + bb["gpus"].value("reason", "") + ")\n\n";
  md += "| case | median | GB/s | % peak BW | % bound | noise | samples | checks |\n";
  md += "|---|---:|---:|---:|---:|---:|---:|---|\n";
  for (const auto& r : rows) {
    if (!r.error.empty()) {
      md += "| " + r.name + " | error: " + r.error + " | | | | | | |\n";
      continue;
    }
    md += "| " + r.name + " | " + human_time(r.median_s) + " | " + gbps_or_dash(r.bytes_per_s) +
          " | " + pct_or_dash(r.pct_of_peak_bandwidth) + " | " + pct_or_dash(r.pct_of_bound) +
          " | " + fmt::format("{:.2f}%", 100 * r.rel_noise) + " | " + std::to_string(r.samples) +
          " | " + r.verdicts + " |\n";
  }
  md += "\n| verdict | check | law | reason |\n|---|---|---|---|\n";
  for (Verdict v : {Verdict::fail, Verdict::skip, Verdict::pass})
    for (const auto& c : checks)
      if (c.verdict == v)
        md += "| " + verdict_name(v) + " | " + c.suite + "/" + c.name + " | `" + c.law + "` | " +
              c.reason + " |\n";
  return md;
}

nlohmann::json make_context(const RunOptions& opts, const Environment& env) {
  char exe[4096] = {};
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  nlohmann::json caches = nlohmann::json::array();
  for (const auto& c : env.host.caches)
    caches.push_back({{"type", c.type},
                      {"level", c.level},
                      {"size", c.size_bytes},
                      {"num_sharing", c.shared_by_cpus}});
  double load[3] = {0, 0, 0};
  const int loads = getloadavg(load, 3);
  const std::string date = iso_date_utc();
  return {{"date", date},
          {"host_name", env.host.hostname},
          {"executable", n > 0 ? std::string(exe, static_cast<std::size_t>(n)) : "boundbench"},
          {"num_cpus", env.host.logical_cpus},
          {"mhz_per_cpu", static_cast<int>(env.host.cpu_clock_hz / 1e6)},
          {"cpu_scaling_enabled", false},
          {"caches", caches},
          {"load_avg",
           loads == 3 ? nlohmann::json{load[0], load[1], load[2]} : nlohmann::json::array()},
          {"library_build_type", kBuildType == std::string("Debug") ? "debug" : "release"},
          {"boundbench",
           {{"schema_version", kResultsSchemaVersion},
            {"version", kVersion},
            {"git_commit", kGitCommit},
            {"build_type", kBuildType},
            {"cuda_built", kWithCuda},
            {"compiler", kCompiler},
            {"command_line", opts.command_line},
            {"date", date},
            {"options",
             {{"quick", opts.quick},
              {"hot", opts.hot},
              {"device", opts.device},
              {"repetitions", opts.repetitions},
              {"filter", opts.filter},
              {"roofline_tolerance", opts.roofline_tolerance},
              {"stopping_rule",
               {{"warmup_samples", opts.rule.warmup_samples},
                {"min_samples", opts.rule.min_samples},
                {"min_time_s", opts.rule.min_time_s},
                {"max_rel_noise", opts.rule.max_rel_noise},
                {"timeout_s", opts.rule.timeout_s}}}}},
            {"host", to_json(env.host)},
            {"gpus", to_json(env.gpus)}}}};
}

}  // namespace bb
