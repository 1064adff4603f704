// Parameter specifications shared by the formula tables (theory_catalogue*.cpp).
#pragma once

#include <string>

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

}  // namespace bb::app::param
