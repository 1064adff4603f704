// The suites' own commands (suites/registry.h) mounted as subcommands of the command line.
#pragma once

#include <CLI/CLI.hpp>
#include <list>
#include <string>

#include "suites/registry.h"

namespace bb::app {

// One suite command on the command line: a CLI11 subcommand with the command's options.
class MountedCommand {
 public:
  MountedCommand(CLI::App& app, suites::SuiteCommand command);
  MountedCommand(const MountedCommand&) = delete;
  MountedCommand& operator=(const MountedCommand&) = delete;

  const std::string& name() const { return command_.name; }
  bool chosen() const { return static_cast<bool>(*sub_); }
  // Converts the quantities given ("64Mi"), then runs the command; returns its exit code. Throws
  // std::invalid_argument on bad input.
  int run(const std::string& command_line, int& argc, char**& argv);

 private:
  struct QuantityText {
    std::string text;  // as given
    double* value = nullptr;
    const CLI::Option* option = nullptr;
  };
  CLI::Option* add(const suites::CommandOption& o);

  suites::SuiteCommand command_;
  CLI::App* sub_ = nullptr;
  std::list<QuantityText> quantities_;  // a list: CLI11 holds references to the texts
};

}  // namespace bb::app
