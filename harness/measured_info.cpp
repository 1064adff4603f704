#include "harness/measured_info.h"

#include <cmath>

#include <fmt/format.h>

#include "harness/json_fields.h"
#include "theory/hierarchy.h"

namespace bb {
namespace {

using nlohmann::json;

std::string levels_text(const json& sweep, bool latency) {
  std::string s;
  for (const auto& p : json_field(sweep, "plateaus"))
    s += "      " + theory::format_bytes(json_num(p, "from_bytes", NAN)) + " – " +
         theory::format_bytes(json_num(p, "to_bytes", NAN)) + ": " +
         (latency ? fmt::format("{:.3g} ns", json_num(p, "latency_ns", NAN))
                  : fmt::format("{:.4g} GB/s", json_num(p, "bytes_per_s", NAN) / 1e9)) +
         "\n";
  for (const auto& l : json_field(sweep, "levels")) {
    const double detected = json_num(l, "detected_bytes", NAN);
    s += "      " + l.value("name", "?") + ": reported " +
         theory::format_bytes(json_num(l, "reported_bytes", NAN)) + ", detected " +
         (std::isnan(detected)
              ? std::string("no clear step")
              : theory::format_bytes(detected) +
                    fmt::format(" (x{:.2f})", detected / json_num(l, "reported_bytes", NAN))) +
         "\n";
  }
  return s;
}

}  // namespace

std::string measured_hierarchy_text(const json& results) {
  const json& figures = json_field(json_field(results, "figures"), "bandwidth");
  const json& bb = json_field(json_field(results, "context"), "boundbench");
  std::string s = "measured (" + json_str(bb, "date", "?") + ", commit " +
                  json_str(bb, "git_commit", "?").substr(0, 12) + "):\n";
  if (figures.empty()) return s + "  no bandwidth figures in this file (run the bandwidth suite)\n";
  for (const auto& [backend, f] : figures.items()) {
    s += "  " + backend + ":\n";
    if (f.contains("stream_best")) {
      const json& b = f["stream_best"];
      s += fmt::format("    best STREAM {:.4g} GB/s", json_num(b, "bytes_per_s", NAN) / 1e9) +
           " (" + b.value("case", std::string("?")) + ")" +
           (b.contains("pct_of_peak")
                ? fmt::format(", {:.1f}% of the DRAM peak", json_num(b, "pct_of_peak", NAN))
                : std::string()) +
           "\n";
    }
    if (f.contains("dram_latency_ns"))
      s += fmt::format("    DRAM latency {:.4g} ns", json_num(f, "dram_latency_ns", NAN)) +
           (f.contains("bytes_in_flight")
                ? fmt::format("; Little's law: {:.4g} KiB in flight for the best bandwidth",
                              json_num(f, "bytes_in_flight", NAN) / 1024)
                : std::string()) +
           "\n";
    if (f.contains("latency")) s += "    latency plateaus:\n" + levels_text(f["latency"], true);
    if (f.contains("read_bandwidth"))
      s += "    read-bandwidth plateaus:\n" + levels_text(f["read_bandwidth"], false);
    for (const auto& [dtype, c] : json_field(f, "ceilings").items())
      s += "    " + dtype +
           fmt::format(" ceilings: {:.4g} GFLOP/s, {:.4g} GB/s, ridge {:.3g} flop/byte",
                       json_num(c, "flop_per_s", NAN) / 1e9, json_num(c, "bytes_per_s", NAN) / 1e9,
                       json_num(c, "ridge_flop_per_byte", NAN)) +
           (c.contains("table_ridge_flop_per_byte")
                ? fmt::format(" (datasheet {:.3g})", json_num(c, "table_ridge_flop_per_byte", NAN))
                : std::string()) +
           "\n";
  }
  return s;
}

}  // namespace bb
