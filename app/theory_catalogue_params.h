// Parameter specifications shared by the formula tables (theory_catalogue*.cpp).
#pragma once

#include <string>
#include <vector>

#include "app/theory_catalogue.h"

namespace bb::app::param {

// A whole number > 0 (a count).
inline ParamSpec count(std::string name, std::string help, std::string def = "") {
  return {std::move(name), std::move(help), {}, true, true, std::move(def)};
}
// A whole number ≥ 0.
inline ParamSpec whole(std::string name, std::string help, std::string def = "") {
  return {std::move(name), std::move(help), {}, false, true, std::move(def)};
}
// A number ≥ 0.
inline ParamSpec number(std::string name, std::string help, std::string def = "") {
  return {std::move(name), std::move(help), {}, false, false, std::move(def)};
}
// A number > 0 (a divisor).
inline ParamSpec positive(std::string name, std::string help, std::string def = "") {
  return {std::move(name), std::move(help), {}, true, false, std::move(def)};
}
// One of `choices`.
inline ParamSpec choice(std::string name, std::string help, std::vector<std::string> choices,
                        std::string def = "") {
  return {std::move(name), std::move(help), std::move(choices), false, false, std::move(def)};
}

// The names of a table's entries (`name_of(entry)` each), as a parameter's choices.
template <class Table, class NameOf>
std::vector<std::string> names_of(const Table& table, NameOf name_of) {
  std::vector<std::string> names;
  for (const auto& entry : table) names.emplace_back(name_of(entry));
  return names;
}

}  // namespace bb::app::param
