// Reading optional fields of a results document without throwing: a missing key or a value of
// another type gives the fallback. Shared by the readers of results files (bound, info).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace bb {

// j[key] when j is an object holding it, else a null (which iterates as empty, holds no key and is
// .empty()). The reference outlives the call: no temporaries.
inline const nlohmann::json& json_field(const nlohmann::json& j, const char* key) {
  static const nlohmann::json null_json;
  return j.is_object() && j.contains(key) ? j[key] : null_json;
}

// j[key] as a number, or `fallback` when it is missing or not a number.
inline double json_num(const nlohmann::json& j, const char* key, double fallback = 0) {
  const nlohmann::json& v = json_field(j, key);
  return v.is_number() ? v.get<double>() : fallback;
}

// j[key] as a string, or `fallback` when it is missing or not a string.
inline std::string json_str(const nlohmann::json& j, const char* key, const std::string& fallback) {
  const nlohmann::json& v = json_field(j, key);
  return v.is_string() ? v.get<std::string>() : fallback;
}

}  // namespace bb
