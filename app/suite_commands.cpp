#include "app/suite_commands.h"

#include <type_traits>
#include <utility>
#include <variant>

#include "app/theory_catalogue.h"

namespace bb::app {
namespace {

// CLI11 describes a range by its type ("INT in [1 - 100000]"): the option's.
CLI::Range range_check(const suites::CommandOption& o) {
  if (std::holds_alternative<int*>(o.value) || std::holds_alternative<std::vector<int>*>(o.value))
    return CLI::Range(static_cast<int>(o.range->min), static_cast<int>(o.range->max));
  return CLI::Range(o.range->min, o.range->max);
}

}  // namespace

MountedCommand::MountedCommand(CLI::App& app, suites::SuiteCommand command)
    : command_(std::move(command)), sub_(app.add_subcommand(command_.name, command_.description)) {
  for (const auto& o : command_.options) {
    CLI::Option* option = add(o);
    if (!o.choices.empty()) option->check(CLI::IsMember(o.choices));
    if (o.range) option->check(range_check(o));
    if (o.positive) option->check(CLI::PositiveNumber);
    if (!o.default_value.empty()) option->default_val(o.default_value);
  }
}

CLI::Option* MountedCommand::add(const suites::CommandOption& o) {
  return std::visit(
      [&](auto value) -> CLI::Option* {
        using V = decltype(value);
        if constexpr (std::is_same_v<V, bool*>) {
          return sub_->add_flag(o.name, *value, o.help);
        } else if constexpr (std::is_same_v<V, suites::CommandOption::Quantity>) {
          QuantityText& q = quantities_.emplace_back();
          CLI::Option* option = sub_->add_option(o.name, q.text, o.help);
          q.value = value.value;
          q.option = option;
          return option;
        } else {
          return sub_->add_option(o.name, *value, o.help);
        }
      },
      o.value);
}

int MountedCommand::run(const std::string& command_line, int& argc, char**& argv) {
  for (const auto& q : quantities_)
    if (q.option->count() > 0) *q.value = parse_quantity(q.text);
  return command_.run(command_line, argc, argv);
}

}  // namespace bb::app
