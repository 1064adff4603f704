// Every suite boundbench knows, as the command line (app/) reaches them, built on each call (no
// global registry). A case-based suite describes cases that the harness runs (`boundbench run`); a
// suite with its own driver (collectives: every rank in lockstep under mpirun) is a command of its
// own, mounted on the command line's parser.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "harness/case.h"

namespace bb::suites {

// The machine the case lists are built for: sweeps span its caches (4 KiB up to a multiple of the
// last-level cache or L2), and --quick runs take fewer points. Null host or GPU: nominal sizes
// (32 MiB LLC, 50 MiB L2), as `list` shows without hardware.
struct SuiteTarget {
  const HostInfo* host = nullptr;
  const GpuDevice* gpu = nullptr;
  bool quick = false;
};

// The case-based suites.
std::vector<Suite> all_suites(const SuiteTarget& target = {});

// A suite with its own driver, mounted as `boundbench NAME [OPTIONS]`.
struct SuiteCommand {
  CLI::App* command = nullptr;  // chosen when *command
  // Runs once the options are parsed; `command_line` is recorded in the results, and argc/argv go
  // to MPI_Init. Returns the exit code (0, 1 a check failed); throws std::invalid_argument on bad
  // input (the caller prints it as a usage error, exit code 2).
  std::function<int(const std::string& command_line, int& argc, char**& argv)> run;
};

// Reads a number with a unit suffix ("64Mi", "1e9"); throws std::invalid_argument when malformed.
using QuantityParser = double (*)(const std::string& text);

// Mounts the suites with their own driver on `app`, each with fresh option state (held by its
// `run`: keep the SuiteCommand while parsing and running).
std::vector<SuiteCommand> mount_suite_commands(CLI::App& app, QuantityParser parse_quantity);

// Formula parameters a results file measured, for `theory --from RESULTS.json`: the collectives
// suite's fitted all_reduce link gives alpha_s and link_bytes_per_s. Throws std::invalid_argument
// naming the file when it measured none.
struct MeasuredParameters {
  std::map<std::string, double> values;  // by parameter name
  std::string source;                    // what measured them: "mpi, 4 ranks, all_reduce/fp32/..."
};
MeasuredParameters measured_parameters(const std::string& results_path);

}  // namespace bb::suites
