#include "harness/bound.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "harness/checks.h"
#include "harness/json_fields.h"
#include "harness/results.h"
#include "theory/collectives.h"

namespace bb {
namespace {

using json = nlohmann::json;

std::vector<theory::LevelPlateau> plateaus(const json& fig, const char* value_key, double scale) {
  std::vector<theory::LevelPlateau> out;
  for (const auto& p : json_field(fig, "plateaus"))
    if (json_num(p, value_key) > 0)
      out.push_back(
          {json_num(p, "from_bytes"), json_num(p, "to_bytes"), json_num(p, value_key) * scale});
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.from_bytes < b.from_bytes; });
  return out;
}

void add_spec(Ceilings& c, const json& doc) {
  const json& bb = json_field(json_field(doc, "context"), "boundbench");
  if (c.backend == "host") {
    const json& host = json_field(bb, "host");
    c.device = json_str(host, "cpu_model", "host");
    if (const double bw = json_num(json_field(bb, "options"), "host_peak_bytes_per_s"); bw > 0)
      c.dram_bytes_per_s = Ceiling{bw, "spec", "--host-peak-bw", 0};
    // The FMA estimate is a bound only at the maximum clock (cpufreq); "cpu MHz" may be lower.
    if (json_field(host, "clock_is_max").is_boolean() && host["clock_is_max"].get<bool>() &&
        json_num(host, "peak_fp64_flop_per_s_estimate") > 0) {
      const double fp64 = json_num(host, "peak_fp64_flop_per_s_estimate");
      const std::string basis = json_str(host, "peak_estimate_basis", "host FMA estimate");
      c.flop_per_s["fp64"] = {fp64, "spec", basis, 0};
      c.flop_per_s["fp32"] = {2 * fp64, "spec", basis + " (fp32: twice the lanes)", 0};
    }
    return;
  }
  const json& d = run_gpu_device(doc);
  if (d.is_null()) return;
  c.device = json_str(d, "name", "GPU");
  c.sm_clock_sms_hz = json_num(d, "sm_count") * json_num(d, "sm_clock_hz");
  if (json_num(d, "peak_dram_bytes_per_s") > 0)
    c.dram_bytes_per_s = Ceiling{json_num(d, "peak_dram_bytes_per_s"), "spec",
                                 "2 x memory clock x bus width / 8 of " + c.device, 0};
  for (const char* table : {"peak_cuda_core_flop_per_s", "peak_tensor_flop_per_s"})
    for (const auto& [prec, v] : json_field(d, table).items())
      if (v.is_number() && v.get<double>() > c.flop_per_s[prec].value)
        c.flop_per_s[prec] = {v.get<double>(), "spec", "peak table x SMs x SM clock of " + c.device,
                              0};
  std::erase_if(c.flop_per_s, [](const auto& kv) { return !(kv.second.value > 0); });
}

// The links of a collectives run (figures.collectives.<transport>.p<N>.series), per "transport/pN"
// of this backend (nccl: cuda; mpi: host): the best busbw any of its sizes reached (a case cannot
// beat it: it is the largest of their own busbw) and the smallest α its α–β fits gave.
void add_links(Ceilings& c, const json& doc) {
  for (const auto& [transport, groups] :
       json_field(json_field(doc, "figures"), "collectives").items()) {
    if ((transport == "nccl") != (c.backend == "cuda") || !groups.is_object()) continue;
    for (const auto& [group, g] : groups.items()) {
      const std::string key = transport + "/" + group;
      Ceiling bw{0, "measured", "", 0}, alpha{0, "measured", "", 0};
      for (const auto& [series, f] : json_field(g, "series").items()) {
        if (const double v = json_num(f, "peak_busbw_bytes_per_s"); v > bw.value)
          bw = {v, "measured",
                fmt::format("best busbw of the run ({} {}, at {:.0f} bytes)", key, series,
                            json_num(f, "peak_at_bytes")),
                0};
        if (const double a = json_num(f, "alpha_s"); a > 0 && (alpha.value == 0 || a < alpha.value))
          alpha = {a, "measured", "smallest alpha of the run's fits (" + key + " " + series + ")",
                   0};
      }
      if (bw.value > 0) c.link_bytes_per_s[key] = bw;
      if (alpha.value > 0) c.link_alpha_s[key] = alpha;
    }
  }
  // A strategies run (host ranks): the α–β fit of each link its steps use, 1/β in busbw's terms.
  if (c.backend != "host") return;
  for (const auto& [name, l] :
       json_field(json_field(json_field(doc, "figures"), "strategies"), "links").items())
    if (const double bw = json_num(l, "link_bytes_per_s"); bw > 0)
      c.link_bytes_per_s["strategies/" + name] = {
          bw, "measured", "the run's alpha-beta fit of its " + name + " link (1/beta)", 0};
}

void add_measured(Ceilings& c, const json& doc) {
  const json& fig =
      json_field(json_field(json_field(doc, "figures"), "bandwidth"), c.backend.c_str());
  c.read_plateaus = plateaus(json_field(fig, "read_bandwidth"), "bytes_per_s", 1);
  c.latency_plateaus = plateaus(json_field(fig, "latency"), "latency_ns", 1e-9);
  // The caches as the read sweep reported them (totals over its threads), else the latency sweep's.
  for (const char* sweep : {"read", "latency"}) {
    if (!c.level_bytes.empty()) break;
    for (const auto& e : json_field(doc, "benchmarks")) {
      if (e.value("backend", "") != c.backend) continue;
      const json& p = json_field(e, "params");
      if (json_str(p, "sweep", "") != sweep || !p.contains("cache_levels")) continue;
      for (const auto& l : p["cache_levels"]) {
        c.level_names.push_back(json_str(l, "name", "cache"));
        c.level_bytes.push_back(json_num(l, "bytes"));
      }
      break;
    }
  }
  if (c.level_bytes.empty() && c.backend == "host") {
    const double llc =
        json_num(json_field(json_field(json_field(doc, "context"), "boundbench"), "host"),
                 "last_level_cache_bytes");
    if (llc > 0) c.level_names.push_back("cache"), c.level_bytes.push_back(llc);
  }
  {
    // The best DRAM rate measured: STREAM's best, or the read sweep's plateau past the last cache.
    Ceiling dram{json_num(json_field(fig, "stream_best"), "bytes_per_s"), "measured",
                 "STREAM best (" + json_str(json_field(fig, "stream_best"), "case", "?") + ")", 0};
    const double llc = c.level_bytes.empty() ? 0 : c.level_bytes.back();
    for (const auto& p : c.read_plateaus)
      if (p.to_bytes > llc && llc > 0 && p.value > dram.value)
        dram = {p.value, "measured",
                fmt::format("read-sweep plateau {:.0f}-{:.0f} bytes", p.from_bytes, p.to_bytes),
                kPlateauCeilingTolerance};
    if (dram.value > 0) {
      c.measured_dram_bytes_per_s = dram;
      if (!c.dram_bytes_per_s) c.dram_bytes_per_s = dram;
    }
  }
  for (const auto& [prec, f] : json_field(fig, "ceilings").items())
    if (!c.flop_per_s.contains(prec) && json_num(f, "flop_per_s") > 0)
      c.flop_per_s[prec] = {json_num(f, "flop_per_s"), "measured",
                            "FMA-chain ceiling of the intensity sweep (" + prec + ")", 0};
  // Only fp64 measured (a quick run): fp32 has twice the SIMD lanes per FMA (host), so twice the
  // fp64 rate bounds it, as the spec estimate assumes.
  if (c.backend == "host" && !c.flop_per_s.contains("fp32") && c.flop_per_s.contains("fp64")) {
    Ceiling k = c.flop_per_s["fp64"];
    k.value *= 2;
    k.basis = "2 x " + k.basis + " (fp32: twice the lanes)";
    c.flop_per_s["fp32"] = k;
  }
  add_links(c, doc);
  for (const auto& e : json_field(doc, "benchmarks"))
    if (e.value("name", "") == "harness/overhead/" + c.backend && measured_entry(e) &&
        json_num(e, "min_s") > 0)
      c.launch_s = Ceiling{json_num(e, "min_s"), "measured",
                           "fastest sample of harness/overhead/" + c.backend, 0};
}

// Fills what `c` lacks from `other` (an earlier run of the same machine).
void fill_from(Ceilings& c, const Ceilings& other, const std::string& label) {
  auto mark = [&](Ceiling k) {
    k.basis += " (from " + label + ")";
    return k;
  };
  if (!c.dram_bytes_per_s && other.dram_bytes_per_s)
    c.dram_bytes_per_s = mark(*other.dram_bytes_per_s);
  if (!c.measured_dram_bytes_per_s && other.measured_dram_bytes_per_s)
    c.measured_dram_bytes_per_s = mark(*other.measured_dram_bytes_per_s);
  if (c.read_plateaus.empty()) c.read_plateaus = other.read_plateaus;
  if (c.latency_plateaus.empty()) c.latency_plateaus = other.latency_plateaus;
  if (c.level_bytes.size() <= 1 && other.level_bytes.size() > 1)
    c.level_bytes = other.level_bytes, c.level_names = other.level_names;
  for (const auto& [prec, k] : other.flop_per_s)
    if (!c.flop_per_s.contains(prec)) c.flop_per_s[prec] = mark(k);
  if (!c.launch_s && other.launch_s) c.launch_s = mark(*other.launch_s);
  for (const auto& [key, k] : other.link_bytes_per_s) c.link_bytes_per_s.try_emplace(key, mark(k));
  for (const auto& [key, k] : other.link_alpha_s) c.link_alpha_s.try_emplace(key, mark(k));
}

const Ceiling kReadPlateau{0, "measured", "read-sweep plateau", kPlateauCeilingTolerance};
const Ceiling kLatencyPlateau{0, "measured", "latency-sweep plateau", kPlateauCeilingTolerance};

std::string pct(double f) { return fmt::format("{:.1f}%", 100 * f); }

}  // namespace

Ceilings ceilings_of(const json& doc, const std::string& backend) {
  Ceilings c;
  c.backend = backend;
  add_spec(c, doc);
  add_measured(c, doc);
  return c;
}

EntryWork entry_work(const json& e) {
  EntryWork w;
  const json& p = json_field(e, "params");
  w.bytes = json_num(e, "bytes");
  w.flop = json_num(e, "flop");
  w.precision = e.value("precision", "fp32");
  const std::string sweep = json_str(p, "sweep", "");
  w.memory_level = e.contains("memory_level") ? e.value("memory_level", "dram")
                   : sweep == "read"          ? "hierarchy"
                   : (sweep == "latency" || (json_num(p, "steps") > 0 && w.bytes == 0)) ? "latency"
                                                                                        : "dram";
  w.working_set_bytes = json_num(p, "working_set_bytes", json_num(p, "array_bytes", w.bytes));
  if (w.memory_level == "latency") w.dependent_loads = json_num(p, "steps");
  // A collective: its bytes cross the link, not the memory hierarchy.
  const auto collective = theory::collective_from_name(json_str(p, "collective", ""));
  if (json_str(e, "suite", "") == "collectives" && collective) {
    const int ranks = static_cast<int>(json_num(p, "ranks"));
    const theory::LinkWork link = theory::link_work(*collective, ranks, json_num(p, "bytes"));
    w.memory_level = "link";
    w.link_bytes = link.wire_bytes_per_rank;
    w.link_messages = link.messages;
    w.link_group = json_str(p, "transport", "?") + "/p" + std::to_string(ranks);
    return w;
  }
  // A parallel-training step: the bytes one rank sends per step over its collectives' link.
  if (json_str(e, "suite", "") == "strategies" && json_num(p, "link_wire_bytes_per_rank") > 0) {
    w.memory_level = "link";
    w.link_bytes = json_num(p, "link_wire_bytes_per_rank");
    w.link_group = "strategies/" + json_str(p, "link", "?");
    return w;
  }
  // One launch per sample: a kernel on a GPU; on the host, an OpenMP parallel region (a case that
  // declares a team of threads, or the harness's own overhead case, which is one).
  const bool overhead_case =
      e.value("suite", "") == "harness" && e.value("case", "").starts_with("overhead/");
  if (e.value("backend", "host") == "cuda" || json_num(p, "threads") >= 2 || overhead_case)
    w.launches = 1;
  return w;
}

CaseBound case_bound(const EntryWork& w, const Ceilings& c) {
  CaseBound b;
  std::vector<theory::ResourceBound> all;
  auto add = [&](const std::string& resource, double time_s, const Ceiling* k) {
    if (!(time_s > 0)) return;
    all.push_back({resource, time_s});
    b.ceiling_of[resource] = k;
    b.source_of[resource] = k->source;
  };
  if (const auto it = c.flop_per_s.find(w.precision); w.flop > 0 && it != c.flop_per_s.end()) {
    b.compute_s = theory::resource_time_s(w.flop, it->second.value);
    add("compute/" + w.precision, b.compute_s, &it->second);
  }
  const auto level = theory::level_holding(c.level_bytes, w.working_set_bytes);
  const auto served = theory::plateau_serving(c.read_plateaus, w.working_set_bytes);
  // A cache-held working set past the last plateau measured: that plateau's smaller working sets
  // are served at least as fast, so its rate still bounds the time from below.
  const double cache_bytes_per_s = served                    ? served->value
                                   : c.read_plateaus.empty() ? 0.0
                                                             : c.read_plateaus.back().value;
  if (w.memory_level != "latency" && w.memory_level != "link" && w.bytes > 0) {
    if (level && cache_bytes_per_s > 0) {
      b.memory_s = theory::resource_time_s(w.bytes, cache_bytes_per_s);
      add(c.level_names[*level], b.memory_s, &kReadPlateau);
    } else if (!level && c.dram_bytes_per_s) {
      // Past the last cache: DRAM, or the read plateau that still served this size where it is
      // faster (the transition out of the last cache), so the bound stays a lower bound.
      const bool plateau_faster = served && served->value > c.dram_bytes_per_s->value;
      b.memory_s = theory::resource_time_s(
          w.bytes, plateau_faster ? served->value : c.dram_bytes_per_s->value);
      add("dram", b.memory_s, plateau_faster ? &kReadPlateau : &*c.dram_bytes_per_s);
    }
  }
  if (w.dependent_loads > 0 && !c.latency_plateaus.empty()) {
    const auto p = theory::plateau_serving(c.latency_plateaus, w.working_set_bytes)
                       .value_or(c.latency_plateaus.back());
    const auto lat_level = theory::level_holding(c.level_bytes, w.working_set_bytes);
    b.latency_s = w.dependent_loads * p.value;
    add("latency/" + (lat_level ? c.level_names[*lat_level] : std::string("dram")), b.latency_s,
        &kLatencyPlateau);
  }
  // A collective: wire bytes per rank over the link's busbw, and its messages' latencies in a row.
  if (const auto it = c.link_bytes_per_s.find(w.link_group);
      w.link_bytes > 0 && it != c.link_bytes_per_s.end()) {
    b.link_s = theory::resource_time_s(w.link_bytes, it->second.value);
    add("link", b.link_s, &it->second);
  }
  if (const auto it = c.link_alpha_s.find(w.link_group);
      w.link_messages > 0 && it != c.link_alpha_s.end()) {
    b.latency_s = w.link_messages * it->second.value;
    add("latency/link", b.latency_s, &it->second);
  }
  if (w.launches > 0 && c.launch_s) {
    b.overhead_s = w.launches * c.launch_s->value;
    add("overhead", b.overhead_s, &*c.launch_s);
  }
  b.ranked = theory::rank_bounds(std::move(all));
  return b;
}

json bound_json(const json& e, const CaseBound& b) {
  if (b.empty()) return nullptr;
  const double median = json_num(e, "median_s"), lo_s = json_num(e, "median_ci_low_s", median),
               hi_s = json_num(e, "median_ci_high_s", median);
  const auto& limiter = b.ranked.front();
  const Ceiling* k = b.ceiling_of.at(limiter.resource);
  // The link is a bandwidth like memory's: a collective near its busbw is "memory-bound" here.
  const double compute_f = b.compute_s / median, memory_f = std::max(b.memory_s, b.link_s) / median;
  std::string sol;
  if (theory::below_speed_of_light(compute_f, memory_f))
    // Overhead-bound where launch overhead is the largest bound; otherwise Nsight's default.
    sol = limiter.resource == "overhead" ? "overhead-bound" : "latency-bound";
  else
    sol = compute_f >= memory_f ? "compute-bound" : "memory-bound";
  json resources = json::object();
  for (const auto& r : b.ranked)
    resources[r.resource] = {{"time_s", r.time_s}, {"source", b.source_of.at(r.resource)}};
  json j = {{"limiter", limiter.resource},
            {"time_s", limiter.time_s},
            {"fraction", theory::fraction_of_bound(limiter.time_s, median)},
            {"interval",
             {theory::fraction_of_bound(limiter.time_s, hi_s > 0 ? hi_s : median),
              theory::fraction_of_bound(limiter.time_s, lo_s > 0 ? lo_s : median)}},
            {"source", k->source},
            {"basis", k->basis},
            {"speed_of_light", sol},
            {"compute_fraction", compute_f},
            {"memory_fraction", memory_f},
            {"resources", resources},
            {"runner_up", nullptr}};
  if (b.ranked.size() > 1) {
    const auto& r = b.ranked[1];
    j["runner_up"] = {{"resource", r.resource},
                      {"time_s", r.time_s},
                      {"fraction", theory::fraction_of_bound(r.time_s, median)},
                      {"source", b.source_of.at(r.resource)}};
  }
  return j;
}

Check bound_check(const std::string& suite, const std::string& name, const json& e,
                  const CaseBound& b, double tolerance) {
  const auto& limiter = b.ranked.front();
  const Ceiling* k = b.ceiling_of.at(limiter.resource);
  const bool spec = k->source == "spec";
  const double tol = std::max(tolerance, k->tolerance);
  const CheckHead head{suite, name + "/roofline",
                       spec
                           ? "t_min >= max over resources of work / spec capacity * (1 - tolerance)"
                           : "median >= max over resources of work / measured capacity * (1 - "
                             "tolerance): a case faster than a measured ceiling finds it "
                             "under-measured",
                       spec ? CheckKind::law : CheckKind::expectation, spec ? "t_min" : "median"};
  const Interval measured = spec
                                ? Interval::point(json_num(e, "min_s", json_num(e, "median_s")))
                                : Interval{json_num(e, "median_s"),
                                           json_num(e, "median_ci_low_s", json_num(e, "median_s")),
                                           json_num(e, "median_ci_high_s", json_num(e, "median_s")),
                                           json_num(e, "median_ci_coverage", NAN)};
  Check c = at_least(head, limiter.time_s * (1 - tol), measured);
  c.predicted = limiter.time_s;
  c.tolerance = tol;
  c.reason = fmt::format("bound {:.4g} s by {} ({}: {}), {} of it reached", limiter.time_s,
                         limiter.resource, k->source, k->basis,
                         pct(limiter.time_s / json_num(e, "median_s"))) +
             (b.ranked.size() > 1
                  ? fmt::format("; runner-up {} {:.4g} s", b.ranked[1].resource, b.ranked[1].time_s)
                  : "") +
             "; " + c.reason +
             (c.verdict == Verdict::below_expectation
                  ? "; faster than the measured ceiling: the ceiling was under-measured"
              : c.verdict == Verdict::fail ? "; faster than physically possible"
                                           : "");
  return c;
}

std::map<std::string, Check> add_bounds(json& doc, double tolerance, const json* ceilings_doc) {
  std::map<std::string, Ceilings> by_backend;
  for (const char* be : {"host", "cuda"}) {
    by_backend[be] = ceilings_of(doc, be);
    if (ceilings_doc)
      fill_from(by_backend[be], ceilings_of(*ceilings_doc, be),
                json_str(json_field(json_field(*ceilings_doc, "context"), "boundbench"), "label",
                         "--ceilings"));
  }
  std::map<std::string, Check> out;
  if (!doc.contains("checks") || !doc["checks"].is_array()) doc["checks"] = json::array();
  json& checks = doc["checks"];
  for (auto& e : doc["benchmarks"]) {
    if (!measured_entry(e) || !e.contains("suite")) continue;
    const EntryWork w = entry_work(e);
    const CaseBound b = case_bound(w, by_backend[e.value("backend", "host")]);
    e["bound"] = bound_json(e, b);
    if (b.empty()) continue;
    const std::string suite = e["suite"], name = e.value("case", "");
    auto existing = std::find_if(checks.begin(), checks.end(), [&](const json& c) {
      return c.value("suite", "") == suite && c.value("name", "") == name + "/roofline";
    });
    const bool replace = existing != checks.end() && existing->value("verdict", "") == "SKIP";
    const bool add = existing == checks.end() && w.memory_level == "latency";
    if (!replace && !add) continue;
    const Check k = bound_check(suite, name, e, b, tolerance);
    e["pct_of_bound"] = 100 * k.predicted / json_num(e, "median_s");
    if (replace)
      *existing = to_json(k);
    else
      checks.push_back(to_json(k));
    out[suite + "/" + k.name] = k;
  }
  return out;
}

}  // namespace bb
