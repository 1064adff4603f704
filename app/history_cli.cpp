#include "app/history_cli.h"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "harness/history_changes.h"
#include "harness/history_store.h"
#include "harness/regression.h"
#include "harness/results.h"

namespace bb::app {
namespace {

struct HistoryOptions {
  std::string db = kDefaultHistoryPath;
  std::vector<std::string> files;
  HistoryFilter filter;
  bool json = false;
  std::string markdown;
  int fail_within = -1;
  double fdr = 0.05;      // history changes, show: ChangeOptions::alpha
  std::string case_name;  // history show
};

int cmd_add(const HistoryOptions& o) {
  // Every file is read and validated before the store is touched: one bad file adds nothing.
  std::vector<std::pair<std::string, nlohmann::json>> runs;
  for (const auto& f : o.files) runs.emplace_back(f, load_results(f));
  HistoryStore store(o.db);
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<AddedRun> added = store.add(runs);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (const auto& a : added)
    std::printf("%s: %s (machine %s, commit %.12s, %s, %zu cases)\n", a.source.c_str(),
                a.outcome.c_str(), a.id.machine.c_str(), a.id.commit.c_str(), a.id.date.c_str(),
                a.cases);
  std::printf("%s: %zu runs (this add: %.3f s)\n", o.db.c_str(), store.run_count(), s);
  return 0;
}

int cmd_changes(const HistoryOptions& o) {
  if (!o.markdown.empty()) ensure_writable(o.markdown);
  const HistoryStore store(o.db);
  const ChangeReport r = find_history_changes(store.history(o.filter), {.alpha = o.fdr});
  if (o.json)
    std::cout << changes_json(r).dump(2) << "\n";
  else
    std::cout << changes_table(r);
  if (!o.markdown.empty()) write_file_atomically(o.markdown, changes_markdown(r));
  return o.fail_within >= 0 && regression_within(r, static_cast<std::size_t>(o.fail_within)) ? 1
                                                                                             : 0;
}

// A time with 4 significant digits and its unit (s).
std::string format_seconds(double s) { return fmt::format("{:.4g} s", s); }

// `history show CASE`: its series per machine (run, commit, median, interval) and its change
// points as `history changes` finds them over every case of those machines (the false-discovery
// rate is held over all of them, so a change shown here is one `changes` reports).
int cmd_show(const HistoryOptions& o) {
  const HistoryStore store(o.db);
  const History all = store.history({o.filter.machine, "", o.filter.since});
  const ChangeReport report = find_history_changes(all, {.alpha = o.fdr});
  std::vector<CaseRunInterval> intervals = store.case_intervals(o.case_name);
  const auto interval_of = [&](const MachineRuns& m, std::uint32_t run) -> const CaseRunInterval* {
    for (const auto& c : intervals)
      if (c.machine == m.machine && c.commit == m.commits[run] && c.date == m.dates[run] &&
          c.label == m.labels[run])
        return &c;
    return nullptr;
  };
  nlohmann::json doc = {{"case", o.case_name}, {"machines", nlohmann::json::array()}};
  std::string text;
  for (const CaseSeries& s : all.cases) {
    if (s.name != o.case_name) continue;
    const MachineRuns& m = all.machines[s.machine];
    std::vector<const HistoryChange*> changes;
    for (const auto& c : report.changes)
      if (c.case_name == s.name && c.machine == m.machine) changes.push_back(&c);
    nlohmann::json runs = nlohmann::json::array(), list = nlohmann::json::array();
    text += fmt::format("{} on {} ({}): {} runs, {} change point(s)\n", s.name, m.machine,
                        m.description, s.run.size(), changes.size());
    text += fmt::format("  {:>4}  {:<20}  {:<12}  {:>12}  {:<27}  {}\n", "run", "date", "commit",
                        "median", "interval", "change");
    // The commit index `changes` reports: commit changes among the machine's runs before a run.
    std::vector<std::size_t> commit_of(m.commits.size(), 0);
    for (std::size_t k = 1; k < m.commits.size(); ++k)
      commit_of[k] = commit_of[k - 1] + (m.commits[k] != m.commits[k - 1]);
    for (std::size_t i = 0; i < s.run.size(); ++i) {
      const std::uint32_t run = s.run[i];
      const std::size_t commit_index = commit_of[run];
      const CaseRunInterval* iv = interval_of(m, run);
      const bool has_iv = iv && iv->low_s > 0 && iv->high_s > 0;
      std::string mark;
      for (const HistoryChange* c : changes)
        if (c->index == commit_index && (i == 0 || m.commits[s.run[i - 1]] != m.commits[run]))
          mark = fmt::format("{} {:+.1f}% [{:+.1f}%, {:+.1f}%] q={:.2g}",
                             c->slower() ? "SLOWER" : "FASTER", 100 * (c->ratio - 1),
                             100 * (c->low - 1), 100 * (c->high - 1), c->q_value);
      text += fmt::format(
          "  {:>4}  {:<20}  {:<12.12}  {:>12}  {:<27}  {}\n", i, m.dates[run], m.commits[run],
          format_seconds(s.median_s[i]),
          has_iv ? "[" + format_seconds(iv->low_s) + ", " + format_seconds(iv->high_s) + "]"
                 : std::string("-"),
          mark);
      nlohmann::json r = {{"run", i},
                          {"commit", m.commits[run]},
                          {"date", m.dates[run]},
                          {"label", m.labels[run]},
                          {"commit_index", commit_index},
                          {"median_s", s.median_s[i]}};
      r["interval_s"] = has_iv ? nlohmann::json::array({iv->low_s, iv->high_s}) : nlohmann::json();
      runs.push_back(std::move(r));
    }
    for (const HistoryChange* c : changes)
      list.push_back({{"commit", c->commit},
                      {"index", c->index},
                      {"ratio", c->ratio},
                      {"interval", {c->low, c->high}},
                      {"direction", c->slower() ? "slower" : "faster"},
                      {"q_value", c->q_value}});
    doc["machines"].push_back({{"machine", m.machine},
                               {"description", m.description},
                               {"runs", std::move(runs)},
                               {"changes", std::move(list)}});
  }
  if (doc["machines"].empty())
    throw std::invalid_argument(
        "history show: no case '" + o.case_name + "' in " + o.db +
        (o.filter.machine.empty() ? "" : " for machine '" + o.filter.machine + "'"));
  if (o.json)
    std::cout << doc.dump(2) << "\n";
  else
    std::cout << text;
  return 0;
}

}  // namespace

HistoryCommand mount_history_command(CLI::App& app) {
  auto o = std::make_shared<HistoryOptions>();
  auto* h = app.add_subcommand("history", "the history store: add runs, find change points");
  h->require_subcommand(1);
  auto* add = h->add_subcommand("add", "add results files to the store (idempotent)");
  add->add_option("--db", o->db, "the SQLite store")->default_val(kDefaultHistoryPath);
  add->add_option("runs", o->files, "results files")->required();
  auto* ch = h->add_subcommand("changes", "per case and machine, the commits where it stepped");
  ch->add_option("--db", o->db, "the SQLite store")->default_val(kDefaultHistoryPath);
  ch->add_option("--machine", o->filter.machine, "a machine id prefix or description substring");
  ch->add_option("--case", o->filter.case_regex, "ECMAScript regex searched in suite/case");
  ch->add_option("--since", o->filter.since, "only runs dated at or after (ISO 8601 prefix)");
  ch->add_flag("--json", o->json, "print JSON");
  ch->add_option("--fdr", o->fdr, "false discovery rate over all candidate steps (default 0.05)")
      ->check(CLI::Range(1e-6, 0.5));
  ch->add_option("--markdown", o->markdown, "also write a markdown summary here");
  ch->add_option("--fail-within", o->fail_within,
                 "exit 1 on a slower change in the last N commits of its machine")
      ->check(CLI::NonNegativeNumber);
  auto* show = h->add_subcommand("show",
                                 "one case's series (run, commit, median, interval) and "
                                 "its change points");
  show->add_option("case", o->case_name, "suite/case, exactly")->required();
  show->add_option("--db", o->db, "the SQLite store")->default_val(kDefaultHistoryPath);
  show->add_option("--machine", o->filter.machine, "a machine id prefix or description substring");
  show->add_option("--since", o->filter.since, "only runs dated at or after (ISO 8601 prefix)");
  show->add_flag("--json", o->json, "print JSON");
  show->add_option("--fdr", o->fdr, "false discovery rate, as for `history changes`")
      ->check(CLI::Range(1e-6, 0.5));
  return {h, [o, add, ch, show]() -> int {
            try {
              if (*add) return cmd_add(*o);
              if (*ch) return cmd_changes(*o);
              if (*show) return cmd_show(*o);
              return 2;
            } catch (const std::invalid_argument& e) {
              // A foreign, truncated or unreadable file: one line, exit 2, the store untouched.
              std::fprintf(stderr, "boundbench: error: %s\n", e.what());
              return 2;
            }
          }};
}

}  // namespace bb::app
