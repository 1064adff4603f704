// `boundbench history add|changes`: the history store's commands (harness/history_store.h,
// harness/history_changes.h), mounted on the command line as one subcommand with its own.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>

namespace bb::app {

struct HistoryCommand {
  CLI::App* command = nullptr;  // chosen when *command
  // Runs once the options are parsed; returns the exit code: 0, 1 (--fail-within found a
  // regression), 2 (bad input: a foreign or truncated file, one line on stderr).
  std::function<int()> run;
};

// Keep the HistoryCommand while parsing and running: its options live in it.
HistoryCommand mount_history_command(CLI::App& app);

}  // namespace bb::app
