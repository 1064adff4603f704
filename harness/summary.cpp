#include "harness/summary.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "harness/build_info.h"
#include "harness/drift.h"
#include "harness/fingerprint.h"
#include "harness/results.h"
#include "harness/runner.h"
#include "harness/stats.h"

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

// "[1.21, 1.32] (97.9%)": the median's interval and its coverage.
std::string median_interval_text(const SummaryRow& r) {
  return fmt::format("[{}, {}] ({:.1f}%)", human_time(r.median_ci_low_s),
                     human_time(r.median_ci_high_s), 100 * r.median_ci_coverage);
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
  r.rel_noise = e.value("rel_noise", 0.0);
  r.rel_mad = e.value("rel_mad", 0.0);
  r.median_ci_low_s = e.value("median_ci_low_s", 0.0);
  r.median_ci_high_s = e.value("median_ci_high_s", 0.0);
  r.median_ci_coverage = e.value("median_ci_coverage", 0.0);
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

void set_bound(SummaryRow& r, const nlohmann::json& e) {
  if (!e.contains("bound") || !e["bound"].is_object()) return;
  const auto& b = e["bound"];
  r.limiter = b.value("limiter", "");
  r.speed_of_light = b.value("speed_of_light", "");
  r.bound_fraction = b.value("fraction", -1.0);
}

void print_case_line(const SummaryRow& r) {
  if (!r.error.empty()) {
    std::printf("  %s: ERROR %s\n", r.name.c_str(), r.error.c_str());
  } else {
    std::printf(
        "  %s: median %s %s, %s GB/s (%s of peak BW, %s of bound), noise %.2f%% (robust %.2f%%),"
        " %zu samples [%s]\n",
        r.name.c_str(), human_time(r.median_s).c_str(), median_interval_text(r).c_str(),
        gbps_or_dash(r.bytes_per_s).c_str(), pct_or_dash(r.pct_of_peak_bandwidth).c_str(),
        pct_or_dash(r.pct_of_bound).c_str(), 100 * r.rel_noise, 100 * r.rel_mad, r.samples,
        r.verdicts.c_str());
  }
  std::fflush(stdout);
}

void print_summary(const std::vector<SummaryRow>& rows, const std::vector<Check>& checks,
                   double elapsed_s) {
  std::printf("\n%-36s %12s %11s %10s %9s %7s %7s %5s  %s\n", "case", "median", "GB/s", "%peak BW",
              "%bound", "noise", "robust", "n", "limiter (speed of light)");
  for (const auto& r : rows) {
    if (!r.error.empty()) {
      std::printf("%-36s ERROR: %s\n", r.name.c_str(), r.error.c_str());
      continue;
    }
    // %bound: of the hierarchical bound (its limiter), else of the roofline check's.
    const double pct_bound = r.bound_fraction >= 0 ? 100 * r.bound_fraction : r.pct_of_bound;
    std::printf("%-36s %12s %11s %10s %9s %6.2f%% %6.2f%% %5zu  %s\n", r.name.c_str(),
                human_time(r.median_s).c_str(), gbps_or_dash(r.bytes_per_s).c_str(),
                pct_or_dash(r.pct_of_peak_bandwidth).c_str(), pct_or_dash(pct_bound).c_str(),
                100 * r.rel_noise, 100 * r.rel_mad, r.samples,
                r.limiter.empty() ? "-" : (r.limiter + " (" + r.speed_of_light + ")").c_str());
  }
  for (const auto& c : checks)
    if (c.verdict != Verdict::pass && c.verdict != Verdict::below_expectation)
      std::printf("%s %s/%s: %s\n", verdict_name(c.verdict).c_str(), c.suite.c_str(),
                  c.name.c_str(), c.reason.c_str());
  std::printf("%s", findings_text(checks).c_str());
  std::printf("%s; %zu cases in %.1f s\n", verdict_counts_text(count_verdicts(checks)).c_str(),
              rows.size(), elapsed_s);
  std::fflush(stdout);
}

VerdictCounts count_verdicts(const std::vector<Check>& checks) {
  VerdictCounts n;
  for (const auto& c : checks) {
    n.pass += c.verdict == Verdict::pass;
    n.fail += c.verdict == Verdict::fail;
    n.skip += c.verdict == Verdict::skip;
    n.inconclusive += c.verdict == Verdict::inconclusive;
    n.below_expectation += c.verdict == Verdict::below_expectation;
  }
  return n;
}

std::string verdict_counts_text(const VerdictCounts& n) {
  return "checks: " + std::to_string(n.pass) + " passed, " + std::to_string(n.fail) + " failed, " +
         std::to_string(n.inconclusive) + " inconclusive, " + std::to_string(n.below_expectation) +
         " below expectation, " + std::to_string(n.skip) + " skipped";
}

std::string findings_text(const std::vector<Check>& checks) {
  std::string s;
  for (const auto& c : checks)
    if (c.verdict == Verdict::below_expectation)
      s += "  " + c.suite + "/" + c.name + ": " + c.reason + "\n";
  if (s.empty()) return s;
  return "FINDINGS (BELOW-EXPECTATION: what a well-tuned library or machine reaches, not reached "
         "here; not failures):\n" +
         s;
}

std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (ch == '|')
      out += "\\|";
    else if (ch == '\n' || ch == '\r')
      out += ' ';
    else
      out += ch;
  }
  return out;
}

std::string markdown_totals(const std::vector<Check>& checks) {
  std::map<std::string, std::vector<Check>> by_suite;
  for (const auto& c : checks) by_suite[c.suite].push_back(c);
  const auto row = [](const std::string& name, const VerdictCounts& n) {
    return fmt::format("| {} | {} | {} | {} | {} | {} |\n", name, n.pass, n.fail, n.inconclusive,
                       n.below_expectation, n.skip);
  };
  std::string md =
      "| suite | PASS | FAIL | INCONCLUSIVE | BELOW-EXPECTATION | SKIP "
      "|\n|---|---:|---:|---:|---:|---:|\n";
  for (const auto& [suite, list] : by_suite) md += row(markdown_cell(suite), count_verdicts(list));
  return md + row("**all**", count_verdicts(checks));
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
  const VerdictCounts n = count_verdicts(checks);
  md += fmt::format("checks: {} PASS, {} FAIL, {} INCONCLUSIVE, {} BELOW-EXPECTATION, {} SKIP\n\n",
                    n.pass, n.fail, n.inconclusive, n.below_expectation, n.skip) +
        markdown_totals(checks) + "\n";
  if (n.below_expectation > 0) {
    md +=
        "### Findings\n\nExpectations (what a well-tuned library or machine reaches) not reached "
        "here; findings, not failures.\n\n| check | expected | reason |\n|---|---|---|\n";
    for (const auto& c : checks)
      if (c.verdict == Verdict::below_expectation)
        md += "| " + markdown_cell(c.suite + "/" + c.name) + " | `" + markdown_cell(c.law) +
              "` | " + markdown_cell(c.reason) + " |\n";
    md += "\n";
  }
  const std::vector<std::string> drifting = drifting_cases(results["benchmarks"]);
  if (!drifting.empty()) {
    md +=
        "### Drifting\n\nCases whose samples trend or warm up in the order taken (Mann-Kendall "
        "and a warm-up test, false discovery rate 1%); findings, not failures.\n\n";
    for (const auto& l : drifting) md += "- " + markdown_cell(l) + "\n";
    md += "\n";
  }
  md +=
      "| case | median | median CI | GB/s | % peak BW | % bound | noise | robust noise | samples "
      "| checks |\n";
  md += "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
  for (const auto& r : rows) {
    if (!r.error.empty()) {
      md += "| " + markdown_cell(r.name) + " | error: " + markdown_cell(r.error) +
            " | | | | | | | | |\n";
      continue;
    }
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {:.2f}% | {:.2f}% | {} | {} |\n",
                      markdown_cell(r.name), human_time(r.median_s), median_interval_text(r),
                      gbps_or_dash(r.bytes_per_s), pct_or_dash(r.pct_of_peak_bandwidth),
                      r.bound_fraction >= 0
                          ? fmt::format("{:.1f}% ({})", 100 * r.bound_fraction, r.limiter)
                          : pct_or_dash(r.pct_of_bound),
                      100 * r.rel_noise, 100 * r.rel_mad, r.samples, markdown_cell(r.verdicts));
  }
  md += "\n| verdict | kind | check | law | reason |\n|---|---|---|---|---|\n";
  for (Verdict v :
       {Verdict::fail, Verdict::below_expectation, Verdict::inconclusive, Verdict::pass})
    for (const auto& c : checks)
      if (c.verdict == v)
        md += "| " + verdict_name(v) + " | " + check_kind_name(c.kind) + " | " +
              markdown_cell(c.suite + "/" + c.name) + " | `" + markdown_cell(c.law) + "` | " +
              markdown_cell(c.reason) + " |\n";
  // SKIPs: one row per reason, with how many checks gave it and the first of them.
  std::vector<std::pair<std::string, std::vector<const Check*>>> skips;
  for (const auto& c : checks) {
    if (c.verdict != Verdict::skip) continue;
    auto it = std::find_if(skips.begin(), skips.end(),
                           [&](const auto& s) { return s.first == c.reason; });
    if (it == skips.end()) it = skips.insert(skips.end(), {c.reason, {}});
    it->second.push_back(&c);
  }
  if (!skips.empty()) {
    md += "\n| SKIP | checks | reason |\n|---:|---|---|\n";
    for (const auto& [reason, list] : skips)
      md += "| " + std::to_string(list.size()) + " | " +
            markdown_cell(list.front()->suite + "/" + list.front()->name) +
            (list.size() > 1 ? fmt::format(" and {} more", list.size() - 1) : "") + " | " +
            markdown_cell(reason) + " |\n";
  }
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
            {"label", opts.label.empty() ? std::filesystem::path(opts.out_path).stem().string()
                                         : opts.label},
            {"date", date},
            {"options",
             {{"quick", opts.quick},
              {"hot", opts.hot},
              {"device", opts.device},
              {"repetitions", opts.repetitions},
              {"filter", opts.filter},
              {"roofline_tolerance", opts.roofline_tolerance},
              {"host_peak_bytes_per_s", opts.host_peak_bytes_per_s
                                            ? nlohmann::json(*opts.host_peak_bytes_per_s)
                                            : nlohmann::json()},
              {"stopping_rule",
               {{"warmup_samples", opts.rule.warmup_samples},
                {"min_samples", opts.rule.min_samples},
                {"min_time_s", opts.rule.min_time_s},
                {"max_rel_noise", opts.rule.max_rel_noise},
                {"precision", opts.rule.precision},
                {"alpha", opts.rule.alpha},
                {"alpha_spending",
                 {{"flat_looks", kSpendingFlatLooks}, {"flat_share", kSpendingFlatShare}}},
                {"check_timeout_s", opts.rule.check_timeout_s()},
                {"timeout_s", opts.rule.timeout_s},
                {"hard_timeout_s", opts.rule.hard_timeout_s()},
                {"spare_s", opts.spare_s}}},
              {"strict", opts.strict}}},
            {"host", to_json(env.host)},
            {"gpus", to_json(env.gpus)},
            {"fingerprint", machine_fingerprint(env.host, env.gpus)}}}};
}

}  // namespace bb
