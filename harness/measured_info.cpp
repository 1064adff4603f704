#include "harness/measured_info.h"

#include <cmath>

#include <fmt/format.h>

#include "theory/hierarchy.h"

namespace bb {
namespace {

using nlohmann::json;

// j[key] when it is there, else an empty object (no temporaries: what is returned outlives the
// call).
const json& child(const json& j, const char* key) {
  static const json empty = json::object();
  return j.is_object() && j.contains(key) ? j[key] : empty;
}

double num(const json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : NAN;
}

std::string levels_text(const json& sweep, bool latency) {
  std::string s;
  for (const auto& p : child(sweep, "plateaus"))
    s += "      " + theory::format_bytes(num(p, "from_bytes")) + " – " +
         theory::format_bytes(num(p, "to_bytes")) + ": " +
         (latency ? fmt::format("{:.3g} ns", num(p, "latency_ns"))
                  : fmt::format("{:.4g} GB/s", num(p, "bytes_per_s") / 1e9)) +
         "\n";
  for (const auto& l : child(sweep, "levels")) {
    const double detected = num(l, "detected_bytes");
    s += "      " + l.value("name", "?") + ": reported " +
         theory::format_bytes(num(l, "reported_bytes")) + ", detected " +
         (std::isnan(detected)
              ? std::string("no clear step")
              : theory::format_bytes(detected) +
                    fmt::format(" (x{:.2f})", detected / num(l, "reported_bytes"))) +
         "\n";
  }
  return s;
}

}  // namespace

std::string measured_hierarchy_text(const json& results) {
  const json& figures = child(child(results, "figures"), "bandwidth");
  const json& bb = child(child(results, "context"), "boundbench");
  std::string s = "measured (" + bb.value("date", std::string("?")) + ", commit " +
                  bb.value("git_commit", std::string("?")).substr(0, 12) + "):\n";
  if (figures.empty()) return s + "  no bandwidth figures in this file (run the bandwidth suite)\n";
  for (const auto& [backend, f] : figures.items()) {
    s += "  " + backend + ":\n";
    if (f.contains("stream_best")) {
      const json& b = f["stream_best"];
      s += fmt::format("    best STREAM {:.4g} GB/s", num(b, "bytes_per_s") / 1e9) + " (" +
           b.value("case", std::string("?")) + ")" +
           (b.contains("pct_of_peak")
                ? fmt::format(", {:.1f}% of the DRAM peak", num(b, "pct_of_peak"))
                : std::string()) +
           "\n";
    }
    if (f.contains("dram_latency_ns"))
      s += fmt::format("    DRAM latency {:.4g} ns", num(f, "dram_latency_ns")) +
           (f.contains("bytes_in_flight")
                ? fmt::format("; Little's law: {:.4g} KiB in flight for the best bandwidth",
                              num(f, "bytes_in_flight") / 1024)
                : std::string()) +
           "\n";
    if (f.contains("latency")) s += "    latency plateaus:\n" + levels_text(f["latency"], true);
    if (f.contains("read_bandwidth"))
      s += "    read-bandwidth plateaus:\n" + levels_text(f["read_bandwidth"], false);
    for (const auto& [dtype, c] : child(f, "ceilings").items())
      s += "    " + dtype +
           fmt::format(" ceilings: {:.4g} GFLOP/s, {:.4g} GB/s, ridge {:.3g} flop/byte",
                       num(c, "flop_per_s") / 1e9, num(c, "bytes_per_s") / 1e9,
                       num(c, "ridge_flop_per_byte")) +
           (c.contains("table_ridge_flop_per_byte")
                ? fmt::format(" (datasheet {:.3g})", num(c, "table_ridge_flop_per_byte"))
                : std::string()) +
           "\n";
  }
  return s;
}

}  // namespace bb
