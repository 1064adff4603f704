// `boundbench ab BASE_BINARY NEW_BINARY [--rounds N] [--json] [--markdown FILE] -- RUN_OPTIONS`:
// runs the two builds alternately (harness/ab.h) and judges each case on the per-round ratios.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace bb::app {

struct AbCommand {
  CLI::App* command = nullptr;  // chosen when *command
  // Runs once the options are parsed, with the options after "--" (given to every `run`).
  // Returns 0, 1 (a case is SLOWER) or 2 (bad input, a round that failed: one line on stderr).
  std::function<int(const std::vector<std::string>& run_options)> run;
};

AbCommand mount_ab_command(CLI::App& app);

}  // namespace bb::app
