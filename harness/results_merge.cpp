#include "harness/results_merge.h"

#include <fmt/format.h>

#include <map>
#include <stdexcept>

#include "harness/bound.h"
#include "harness/fingerprint.h"
#include "harness/json_fields.h"

namespace bb {
namespace {

using json = nlohmann::json;

// The name of the GPU the run measured on (its options' device), or "".
std::string gpu_name(const json& doc) { return json_str(run_gpu_device(doc), "name", ""); }

void require_one_machine(const RunFile& first, const RunFile& f) {
  std::vector<std::string> diffs = fingerprint_differences(recorded_fingerprint(first.doc).fields,
                                                           recorded_fingerprint(f.doc).fields);
  const std::string ga = gpu_name(first.doc), gb = gpu_name(f.doc);
  if (!ga.empty() && !gb.empty() && ga != gb)
    diffs.insert(diffs.begin(), fmt::format("GPU '{}' vs '{}'", ga, gb));
  if (diffs.empty()) return;
  throw std::invalid_argument(
      fmt::format("{} and {} are from different machines ({}{}): the files of one side must be "
                  "one machine's run",
                  first.name, f.name, diffs.front(),
                  diffs.size() > 1 ? fmt::format(" (+{} more)", diffs.size() - 1) : ""));
}

// `into` gains `from`'s figures, a later file's: objects merged key by key, any other value
// replacing the earlier one; an empty value (a suite that drew no figure) replaces nothing.
void merge_figures(json& into, const json& from) {
  if (!from.is_object()) return;
  for (const auto& [key, v] : from.items()) {
    if (v.is_null() || (v.is_structured() && v.empty())) continue;
    if (v.is_object() && into.contains(key) && into[key].is_object())
      merge_figures(into[key], v);
    else
      into[key] = v;
  }
}

// STREAM's best per backend over the merged cases, by the bandwidth suite's rule
// (suites/bandwidth/bandwidth_checks.cpp, best_stream_bytes_per_s): a bandwidth kernel case
// (params.kernel, no stride) at memory level DRAM, its bytes over its median.
void set_stream_best(json& doc) {
  std::map<std::string, json> best;
  for (const auto& e : doc["benchmarks"]) {
    const json& p = json_field(e, "params");
    if (!measured_entry(e) || json_str(e, "suite", "") != "bandwidth" || !p.contains("kernel") ||
        p.contains("stride_elements"))
      continue;
    const EntryWork w = entry_work(e);
    if (w.memory_level != "dram" || !(w.bytes > 0)) continue;
    const double bytes_per_s = w.bytes / json_num(e, "median_s");
    json& b = best[e.value("backend", "host")];
    if (bytes_per_s > json_num(b, "bytes_per_s"))
      b = {{"case", e.value("case", "")}, {"bytes_per_s", bytes_per_s}};  // as the suite names it
  }
  for (const auto& [backend, b] : best) doc["figures"]["bandwidth"][backend]["stream_best"] = b;
}

}  // namespace

MergedRun merge_runs(std::vector<RunFile> files) {
  if (files.empty()) throw std::invalid_argument("no results file given");
  if (files.size() == 1) return {std::move(files.front().doc), {}};
  for (std::size_t i = 1; i < files.size(); ++i) require_one_machine(files.front(), files[i]);

  // Per case, the files that measured it and the last that ran it, in the order given.
  std::map<std::string, std::vector<std::size_t>> measured_in;
  std::map<std::string, std::size_t> last_ran;
  for (std::size_t i = 0; i < files.size(); ++i)
    for (const auto& e : files[i].doc["benchmarks"]) {
      const std::string name = e.value("name", "");
      auto& m = measured_in[name];
      if (measured_entry(e) && (m.empty() || m.back() != i)) m.push_back(i);
      last_ran[name] = i;
    }
  MergedRun out;
  std::map<std::string, std::size_t> owner;
  for (const auto& [name, ran] : last_ran) {
    const auto& m = measured_in[name];
    owner[name] = m.empty() ? ran : m.back();
    std::string earlier;
    for (std::size_t k = 0; k + 1 < m.size(); ++k)
      earlier += (earlier.empty() ? "" : ", ") + files[m[k]].name;
    if (!earlier.empty())
      out.notes.push_back(
          fmt::format("{}: measured in {} and {}; {}'s taken (a later file supersedes)", name,
                      earlier, files[m.back()].name, files[m.back()].name));
    if (!m.empty() && ran > m.back())
      out.notes.push_back(fmt::format("{}: {}'s measurement kept ({} ran it without one)", name,
                                      files[m.back()].name, files[ran].name));
  }

  out.doc = files.back().doc;
  json benchmarks = json::array(), figures = json::object();
  std::string label;
  double host_peak_bytes_per_s = 0;
  for (std::size_t i = 0; i < files.size(); ++i) {
    for (const auto& e : files[i].doc["benchmarks"])
      if (owner.at(e.value("name", "")) == i) benchmarks.push_back(e);
    merge_figures(figures, json_field(files[i].doc, "figures"));
    label += (i ? " + " : "") + files[i].name;
    const json& options =
        json_field(json_field(json_field(files[i].doc, "context"), "boundbench"), "options");
    if (json_num(options, "host_peak_bytes_per_s") > 0)
      host_peak_bytes_per_s = json_num(options, "host_peak_bytes_per_s");
  }
  out.doc["benchmarks"] = std::move(benchmarks);
  out.doc["figures"] = std::move(figures);
  out.doc.erase("checks");
  json& bb = out.doc["context"]["boundbench"];
  bb["label"] = label;
  if (host_peak_bytes_per_s > 0) bb["options"]["host_peak_bytes_per_s"] = host_peak_bytes_per_s;
  set_stream_best(out.doc);
  return out;
}

}  // namespace bb
