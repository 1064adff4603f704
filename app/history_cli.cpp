#include "app/history_cli.h"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

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
  const ChangeReport r = find_history_changes(store.history(o.filter));
  if (o.json)
    std::cout << changes_json(r).dump(2) << "\n";
  else
    std::cout << changes_table(r);
  if (!o.markdown.empty()) write_file_atomically(o.markdown, changes_markdown(r));
  return o.fail_within >= 0 && regression_within(r, static_cast<std::size_t>(o.fail_within)) ? 1
                                                                                             : 0;
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
  ch->add_option("--markdown", o->markdown, "also write a markdown summary here");
  ch->add_option("--fail-within", o->fail_within,
                 "exit 1 on a slower change in the last N commits of its machine")
      ->check(CLI::NonNegativeNumber);
  return {h, [o, add, ch]() -> int {
            try {
              if (*add) return cmd_add(*o);
              if (*ch) return cmd_changes(*o);
              return 2;
            } catch (const std::invalid_argument& e) {
              // A foreign, truncated or unreadable file: one line, exit 2, the store untouched.
              std::fprintf(stderr, "boundbench: error: %s\n", e.what());
              return 2;
            }
          }};
}

}  // namespace bb::app
