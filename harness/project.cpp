#include "harness/project.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "harness/bound.h"
#include "harness/json_fields.h"
#include "harness/stats.h"
#include "theory/bound.h"

namespace bb {
namespace {

using json = nlohmann::json;

std::string label_of(const json& doc) {
  const json& bb = doc["context"]["boundbench"];
  return bb.value("label", bb.value("date", std::string("run")));
}

// One measured entry per case name (the first repetition).
std::map<std::string, const json*> by_name(const json& doc) {
  std::map<std::string, const json*> out;
  for (const auto& e : doc["benchmarks"])
    if (measured_entry(e)) out.try_emplace(e.value("name", ""), &e);
  return out;
}

// A run to project from holds measured samples: at least one case with a median from samples (a
// schema-1 file without kept samples still has its medians; their intervals are then points).
void require_samples(const json& a) {
  for (const auto& e : a["benchmarks"])
    if (measured_entry(e) && e.value("samples", 1) > 0) return;
  throw std::invalid_argument("run '" + label_of(a) +
                              "' has no measured samples: nothing to project");
}

double median_error(Projection& p) {
  std::vector<double> errors;
  for (const auto& c : p.cases)
    if (c.measured_s && c.fraction_a >= kProjectionMinFraction && !c.ceiling_of_both)
      errors.push_back(std::fabs(c.predicted_s / *c.measured_s - 1));
  p.error_cases = errors.size();
  return errors.empty() ? std::numeric_limits<double>::quiet_NaN() : median_of(errors);
}

// Habitat's scaling of a CUDA case from device A (its ceilings) to a device B with DRAM bandwidth
// `bw_b` and `clock_sms_b` SMs x clock. `bw_a`: A's bandwidth in the same terms as `bw_b` (both
// spec, or both measured), named by `bandwidth_basis`. `on_b`: the case as B ran it (its work may
// differ: sizes that follow the device), or null.
std::optional<ProjectedCase> habitat(const json& e, const Ceilings& a, double bw_a, double bw_b,
                                     double clock_sms_b, const std::string& bandwidth_basis,
                                     const json* on_b, std::string* why) {
  if (!(bw_a > 0) || a.sm_clock_sms_hz <= 0) {
    *why = "device A's bandwidth or SMs x clock unknown";
    return std::nullopt;
  }
  const EntryWork w = entry_work(e);
  // A kernel that declares neither bytes nor flop (a spin, a residency probe) takes the time it
  // was written to take: neither bandwidth nor SMs scale it, so Habitat has nothing to say.
  if (!(w.bytes > 0) && !(w.flop > 0)) {
    *why = "declares no bytes and no flop: nothing for Habitat to scale";
    return std::nullopt;
  }
  const auto peak = a.flop_per_s.find(w.precision);
  const double ridge = peak != a.flop_per_s.end() ? peak->second.value / bw_a : 0.0;
  const double gamma =
      w.bytes > 0 ? theory::habitat_gamma(w.flop / w.bytes, ridge) : 0.0;  // flop only: compute
  const EntryWork wb = on_b ? entry_work(*on_b) : w;
  const double work_ratio = theory::habitat_work_ratio(w.bytes, wb.bytes, w.flop, wb.flop, gamma);
  auto scale = [&](double t) {
    return theory::habitat_scaled_time_s(t, bw_a, bw_b, a.sm_clock_sms_hz, clock_sms_b, gamma) *
           work_ratio;
  };
  const double m = e["median_s"];
  const CaseBound b = case_bound(w, a);
  ProjectedCase c{
      .name = e.value("name", ""),
      .predicted_s = scale(m),
      .low_s = scale(e.value("median_ci_low_s", m)),
      .high_s = scale(e.value("median_ci_high_s", m)),
      .limiter = b.empty() ? "" : b.ranked.front().resource,
      .method = fmt::format("habitat (gamma {:.2f}, {} bandwidth)", gamma, bandwidth_basis),
      .fraction_a = b.empty() ? 0.0 : b.time_s() / m};
  return c;
}

// Habitat between two runs' GPUs. Both runs measured their DRAM (STREAM): with what each memory
// system delivers, since the fraction of its spec a memory reaches differs between memories (HBM,
// GDDR) and Habitat's bandwidth ratio assumes it equal; else with the spec bandwidths, as Habitat.
std::optional<ProjectedCase> habitat_between(const json& e, const json* on_b,
                                             const Ceilings& source, const Ceilings& target,
                                             std::string* why) {
  const bool measured_bw = source.measured_dram_bytes_per_s && target.measured_dram_bytes_per_s;
  auto bandwidth = [&](const Ceilings& c) {
    return measured_bw          ? c.measured_dram_bytes_per_s->value
           : c.dram_bytes_per_s ? c.dram_bytes_per_s->value
                                : 0.0;
  };
  if (!(bandwidth(target) > 0) || target.sm_clock_sms_hz <= 0) {
    *why = "run B has no GPU with a known bandwidth and SMs x clock";
    return std::nullopt;
  }
  return habitat(e, source, bandwidth(source), bandwidth(target), target.sm_clock_sms_hz,
                 measured_bw ? "measured" : "spec", on_b, why);
}

// Whether entry `e` is the measured DRAM ceiling (STREAM's best, named by its case as the bandwidth
// suite's figure names it) of both A and B: B's ceiling is then its own time on B, and A's fraction
// of its bound 1, so its projection is its measurement.
bool ceiling_of_both(const json& e, const Ceilings& a, const Ceilings& b) {
  const std::string basis = "STREAM best (" + e.value("case", std::string("?")) + ")";
  return a.measured_dram_bytes_per_s && a.measured_dram_bytes_per_s->basis == basis &&
         b.measured_dram_bytes_per_s && b.measured_dram_bytes_per_s->basis == basis;
}

}  // namespace

Projection project_to_run(const json& a, const json& b) {
  require_samples(a);
  Projection p{label_of(a), label_of(b)};
  const std::map<std::string, Ceilings> ca = {{"host", ceilings_of(a, "host")},
                                              {"cuda", ceilings_of(a, "cuda")}};
  const std::map<std::string, Ceilings> cb = {{"host", ceilings_of(b, "host")},
                                              {"cuda", ceilings_of(b, "cuda")}};
  const auto b_cases = by_name(b);
  for (const auto& [name, e] : by_name(a)) {
    const std::string be = e->value("backend", "host");
    const auto on_b = b_cases.find(name);
    std::optional<ProjectedCase> c;
    std::string why;
    const CaseBound ba = case_bound(entry_work(*e), ca.at(be));
    // The case as B declares it where B ran it (its sizes follow B's caches), else as A did.
    const CaseBound bb =
        case_bound(entry_work(on_b != b_cases.end() ? *on_b->second : *e), cb.at(be));
    // A kernel bound by its launch on A takes a launch on B (B's measured one, at A's fraction):
    // Habitat's bandwidth and SM scaling does not apply to time the GPU spends starting it.
    // (At least kProjectionMinFraction of it: a kernel far from its launch is held by something
    // else, a spin say.)
    const bool launch_bound =
        be == "cuda" && !ba.empty() && ba.ranked.front().resource == "overhead" &&
        ba.time_s() >= kProjectionMinFraction * (*e)["median_s"].get<double>() &&
        cb.at(be).launch_s;
    if (be == "cuda" && !launch_bound) {
      c = habitat_between(*e, on_b != b_cases.end() ? on_b->second : nullptr, ca.at("cuda"),
                          cb.at("cuda"), &why);
    } else {
      if (ba.empty())
        why = "no bound on A";
      else if (bb.empty())
        why = "no ceiling on B for its resources";
      if (why.empty()) {
        const double m = (*e)["median_s"];
        const double fa = ba.time_s() / m;
        c = ProjectedCase{.name = name,
                          .predicted_s = theory::projected_time_s(bb.time_s(), fa),
                          .low_s = theory::projected_time_s(
                              bb.time_s(), ba.time_s() / e->value("median_ci_low_s", m)),
                          .high_s = theory::projected_time_s(
                              bb.time_s(), ba.time_s() / e->value("median_ci_high_s", m)),
                          .limiter = ba.ranked.front().resource,
                          .method = "bound fraction, " + bb.ranked.front().resource + " on B",
                          .fraction_a = fa};
      }
    }
    if (!c) {
      p.not_projected.emplace_back(name, why);
      continue;
    }
    if (on_b != b_cases.end()) c->measured_s = (*on_b->second)["median_s"].get<double>();
    c->ceiling_of_both = ceiling_of_both(*e, ca.at(be), cb.at(be));
    p.cases.push_back(*c);
  }
  p.median_abs_error = median_error(p);
  return p;
}

Projection project_to_device(const json& a, const std::string& device) {
  const theory::NamedGpu* g = theory::find_named_gpu(device);
  if (!g) {
    std::string known;
    for (const auto& n : theory::named_gpus())
      known += (known.empty() ? "" : ", ") + std::string(n.name);
    throw std::invalid_argument("unknown device '" + device + "' (known: " + known +
                                "; or a results file of the target)");
  }
  require_samples(a);
  Projection p{label_of(a), std::string(g->name) + " (datasheet)"};
  const Ceilings ca = ceilings_of(a, "cuda");
  for (const auto& [name, e] : by_name(a)) {
    if (e->value("backend", "host") != "cuda") continue;
    std::string why;
    // A datasheet device: spec against spec.
    const double bw_a = ca.dram_bytes_per_s ? ca.dram_bytes_per_s->value : 0.0;
    if (auto c = habitat(*e, ca, bw_a, g->dram_bytes_per_s, g->sm_count * g->sm_clock_hz, "spec",
                         nullptr, &why))
      p.cases.push_back(*c);
    else
      p.not_projected.emplace_back(name, why);
  }
  if (p.cases.empty() && p.not_projected.empty())
    throw std::invalid_argument("run '" + p.from + "' has no CUDA case to project onto " +
                                std::string(g->name));
  return p;
}

json to_json(const Projection& p) {
  json cases = json::array();
  for (const auto& c : p.cases) {
    json j = {{"name", c.name},
              {"predicted_s", c.predicted_s},
              {"interval", {std::min(c.low_s, c.high_s), std::max(c.low_s, c.high_s)}},
              {"limiter", c.limiter},
              {"fraction_of_bound_on_a", c.fraction_a},
              {"method", c.method}};
    if (c.measured_s) j["measured_s"] = *c.measured_s;
    if (c.ceiling_of_both) j["ceiling_of_both"] = true;
    cases.push_back(j);
  }
  json skipped = json::array();
  for (const auto& [n, why] : p.not_projected) skipped.push_back({{"name", n}, {"reason", why}});
  return {{"from", p.from},
          {"to", p.to},
          {"cases", cases},
          {"not_projected", skipped},
          {"median_abs_error", std::isnan(p.median_abs_error) ? json() : json(p.median_abs_error)},
          {"error_cases", p.error_cases},
          {"error_min_fraction", kProjectionMinFraction}};
}

std::string projection_text(const Projection& p) {
  std::string s =
      fmt::format("projection {} -> {}\n{:<44} {:>12} {:>25} {:>12} {:>7}  {}\n", p.from, p.to,
                  "case", "predicted", "interval", "measured", "%bound", "limiter on A");
  for (const auto& c : p.cases)
    s += fmt::format(
        "{:<44} {:>12.4g} [{:>10.4g}, {:>10.4g}] {:>12} {:>6.1f}%  {}\n", c.name, c.predicted_s,
        std::min(c.low_s, c.high_s), std::max(c.low_s, c.high_s),
        c.measured_s ? fmt::format("{:.4g}", *c.measured_s) : "-", 100 * c.fraction_a,
        c.ceiling_of_both ? c.limiter + " (both runs' ceiling: not in the error)" : c.limiter);
  if (!p.not_projected.empty())
    s += fmt::format("{} cases not projected (e.g. {}: {})\n", p.not_projected.size(),
                     p.not_projected.front().first, p.not_projected.front().second);
  s += std::isnan(p.median_abs_error)
           ? "median |predicted/measured - 1|: no measured case at >= 50% of its bound\n"
           : fmt::format(
                 "median |predicted/measured - 1| = {:.1f}% over {} cases at >= {:.0f}% "
                 "of their bound\n",
                 100 * p.median_abs_error, p.error_cases, 100 * kProjectionMinFraction);
  return s;
}

}  // namespace bb
