// Every suite boundbench knows, as the command line (app/) reaches them, built on each call (no
// global registry). A case-based suite describes cases that the harness runs (`boundbench run`); a
// suite with its own driver (collectives: every rank in lockstep under mpirun) is a command of its
// own, its options given as data so that suites/ needs no command-line parser.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <variant>
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

// One option of a suite's command. `value` points into the command's state, which its `run` reads.
struct CommandOption {
  // A number with a unit suffix ("64Mi", "1e9"), read as text and converted before `run`.
  struct Quantity {
    double* value;
  };
  // A bool is a flag: set by "--name", cleared by a name written "!--no-name".
  using Value = std::variant<bool*, int*, double*, Quantity, std::string*, std::vector<int>*,
                             std::vector<std::string>*>;
  struct Range {
    double min, max;  // inclusive, in the value's type
  };
  std::string name;  // as on the command line: "--transport"
  std::string help;
  Value value;
  std::vector<std::string> choices;  // the values allowed; empty: any
  std::optional<Range> range;
  bool positive = false;      // a number > 0
  std::string default_value;  // shown in the help and taken when the option is absent
};

// A suite with its own driver, mounted as `boundbench NAME [OPTIONS]`.
struct SuiteCommand {
  std::string name;         // "collectives"
  std::string description;  // one line, for the help
  std::vector<CommandOption> options;
  // Runs once the options are parsed; `command_line` is recorded in the results, and argc/argv go
  // to MPI_Init. Returns the exit code (0, 1 a check failed); throws std::invalid_argument on bad
  // input (the caller prints it as a usage error, exit code 2).
  std::function<int(const std::string& command_line, int& argc, char**& argv)> run;
};

// The suites with their own driver, each with fresh option state (shared by its options and `run`:
// keep the SuiteCommand while parsing and running).
std::vector<SuiteCommand> suite_commands();

// Formula parameters a results file measured, for `theory --from RESULTS.json`: the collectives
// suite's fitted all_reduce link gives alpha_s and link_bytes_per_s. Throws std::invalid_argument
// naming the file when it measured none.
struct MeasuredParameters {
  std::map<std::string, double> values;  // by parameter name
  std::string source;                    // what measured them: "mpi, 4 ranks, all_reduce/fp32/..."
};
MeasuredParameters measured_parameters(const std::string& results_path);

}  // namespace bb::suites
