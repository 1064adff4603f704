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

// Whether a results entry is a measured case: an iteration (not one of Google Benchmark's derived
// aggregates), no error, a median time > 0.
inline bool measured_entry(const nlohmann::json& e) {
  return json_str(e, "run_type", "iteration") == "iteration" && !e.value("error_occurred", false) &&
         json_num(e, "median_s") > 0;
}

// The entry of the GPU a run measured on (context.boundbench.gpus.devices[options.device]), or a
// null when it names none.
inline const nlohmann::json& run_gpu_device(const nlohmann::json& doc) {
  const nlohmann::json& bb = json_field(json_field(doc, "context"), "boundbench");
  const nlohmann::json& devices = json_field(json_field(bb, "gpus"), "devices");
  const auto index = static_cast<std::size_t>(json_num(json_field(bb, "options"), "device"));
  static const nlohmann::json null_json;
  return devices.is_array() && index < devices.size() ? devices[index] : null_json;
}

}  // namespace bb
