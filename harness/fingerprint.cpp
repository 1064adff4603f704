#include "harness/fingerprint.h"

#include <cmath>

#include <fmt/format.h>

#include "harness/results.h"

namespace bb {
namespace {

using json = nlohmann::json;

// "L1d", "L1i", "L2", "L3": a cache's name in the fingerprint.
std::string cache_key(int level, const std::string& type) {
  return fmt::format("L{}{}", level, type == "Data" ? "d" : type == "Instruction" ? "i" : "");
}

// MemTotal rounded up to whole GiB: the kernel reserves a few % of the installed memory and moves
// that by MiBs between boots, so rounding up names the installed size (23.54 -> 24 here) far from
// a boundary, where rounding to nearest could flip at x.5.
int memory_gib(double bytes) { return static_cast<int>(std::ceil(bytes / (1u << 30))); }

// Each device's fields, from GpuStatus's JSON (results.h to_json, or an older file's context).
json gpus_fields(const json& status) {
  json list = json::array();
  for (const auto& d : status.value("devices", json::array())) {
    json g = {{"name", d.value("name", "")},
              {"sm_count", d.value("sm_count", 0)},
              {"memory_bytes", d.value("memory_bytes", 0.0)},
              {"sm_clock_hz", d.value("sm_clock_hz", 0.0)},
              {"memory_clock_hz", d.value("memory_clock_hz", 0.0)},
              {"driver_version", status.value("driver_version", 0)},
              {"runtime_version", status.value("runtime_version", 0)}};
    if (d.contains("uuid")) g["uuid"] = d["uuid"];
    list.push_back(std::move(g));
  }
  return list;
}

std::string value_text(const std::string& path, const json& v) {
  const bool size = path.find("caches.") == 0 || path.find("memory_bytes") != std::string::npos;
  if (size && v.is_number()) return binary_size_text(v.get<double>());
  if (path == "memory_gib" && v.is_number()) return v.dump() + " GiB";
  return v.is_string() ? fmt::format("'{}'", v.get<std::string>()) : v.dump();
}

}  // namespace

json machine_fingerprint(const HostInfo& h, const GpuStatus& g) {
  json caches = json::object();
  for (const auto& c : h.caches) caches[cache_key(c.level, c.type)] = c.size_bytes;
  json fp = {{"cpu",
              {{"vendor", h.cpu_vendor},
               {"family", h.cpu_family},
               {"model", h.cpu_model_number},
               {"stepping", h.cpu_stepping},
               {"microcode", h.microcode},
               {"model_name", h.cpu_model}}},
             {"topology",
              {{"sockets", h.sockets}, {"cores", h.physical_cores}, {"threads", h.logical_cpus}}},
             {"caches", caches},
             {"memory_gib", memory_gib(static_cast<double>(h.memory_bytes))},
             {"hypervisor", h.hypervisor}};
  if (g.built_with_cuda) fp["gpus"] = gpus_fields(to_json(g));
  return fp;
}

RecordedFingerprint recorded_fingerprint(const json& doc) {
  const json& bb = doc.at("context").at("boundbench");
  if (bb.contains("fingerprint") && bb["fingerprint"].is_object())
    return {bb["fingerprint"], false};
  RecordedFingerprint r;
  r.legacy = true;
  const json host = bb.value("host", json::object());
  json caches = json::object();
  for (const auto& c : host.value("caches", json::array()))
    caches[cache_key(c.value("level", 0), c.value("type", ""))] = c.value("size_bytes", 0.0);
  r.fields = {
      {"cpu", {{"model_name", host.value("cpu_model", "")}}},
      {"topology",
       {{"cores", host.value("physical_cores", 0)}, {"threads", host.value("logical_cpus", 0)}}},
      {"caches", caches},
      {"memory_gib", memory_gib(host.value("memory_bytes", 0.0))}};
  const json gpus = bb.value("gpus", json::object());
  if (gpus.value("usable", false)) r.fields["gpus"] = gpus_fields(gpus);
  return r;
}

std::vector<std::string> fingerprint_differences(const json& a, const json& b) {
  std::vector<std::string> out;
  const json fa = a.flatten(), fb = b.flatten();
  for (const auto& [key, va] : fa.items()) {
    if (!fb.contains(key) || fb[key] == va) continue;
    std::string path = key.substr(1);  // "/cpu/model_name" → "cpu.model_name"
    for (char& ch : path)
      if (ch == '/') ch = '.';
    out.push_back(path + " " + value_text(path, va) + " vs " + value_text(path, fb[key]));
  }
  // A GPU count that differs is a difference even though each GPU's fields are per index.
  if (a.contains("gpus") && b.contains("gpus") && a["gpus"].size() != b["gpus"].size())
    out.push_back("gpus: " + std::to_string(a["gpus"].size()) + " vs " +
                  std::to_string(b["gpus"].size()));
  return out;
}

}  // namespace bb
