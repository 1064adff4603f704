#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>

#include <fmt/format.h>

#include "harness/checks.h"
#include "harness/fit.h"
#include "suites/occupancy/occupancy_suite.h"
#include "theory/occupancy.h"

namespace bb::suites {
namespace {

// A law of the occupancy suite on a point measurement (a count, a fitted figure, a ratio): PASS
// inside `band`, FAIL outside (harness/checks.h point_check).
Check occupancy_check(const std::string& name, const std::string& law, double predicted,
                      const Band& band, double measured, double tolerance,
                      const std::string& reason) {
  return point_check({"occupancy", name, law}, predicted, band, measured, tolerance, reason);
}

// A suite check that could not be made because a case it needs was not measured (filtered out, or
// it failed its own checks): SKIP, saying which.
Check missing(const std::string& name, const std::string& law, const std::string& what) {
  return skipped({"occupancy", name, law}, "needs " + what + ", which was not measured");
}

// Whether a suite check has all the cases it needs (`all`); when only some of them were measured
// (`any`), its SKIP saying what is missing goes to `out`.
bool complete(bool any, bool all, const std::string& name, const std::string& law,
              const std::string& what, std::vector<Check>& out) {
  if (any && !all) out.push_back(missing(name, law, what));
  return all;
}

const CaseResult* find_case(const std::vector<CaseResult>& results, const std::string& name) {
  for (const auto& r : results)
    if (r.name == name) return &r;
  return nullptr;
}

void waves_checks(const std::vector<CaseResult>& results, std::vector<Check>& out) {
  const std::string law = "round(t(N) / t(one wave)) == ceil(N / (SMs x blocks/SM))";
  const CaseResult* full = find_case(results, "waves/full");
  const bool any = std::any_of(results.begin(), results.end(),
                               [](const CaseResult& r) { return r.name.starts_with("waves/"); });
  if (!complete(any, full != nullptr, "waves", law, "waves/full", out)) return;
  for (const auto& r : results) {
    if (!r.name.starts_with("waves/")) continue;
    const auto blocks = r.params.at("blocks").get<long long>();
    const auto per_wave = r.params.at("blocks_per_wave").get<long long>();
    const long long predicted = theory::waves(blocks, per_wave, 1);
    const double ratio = r.summary.median_s / full->summary.median_s;
    const double measured = std::round(ratio);
    out.push_back(observed_check(
        r.name + "/waves", law, static_cast<double>(predicted), measured,
        fmt::format("{} blocks, {} per wave: t/t(one wave) = {:.3f}", blocks, per_wave, ratio)));
  }
}

void linear_checks(const std::vector<CaseResult>& results, std::vector<Check>& out) {
  std::vector<double> paths, t_paths, ways, t_ways;
  double t_stride1 = 0, t_padded = 0;
  for (const auto& r : results) {
    if (r.name.starts_with("divergence/")) {
      paths.push_back(r.params.at("paths").get<double>());
      t_paths.push_back(r.summary.median_s);
    }
    if (r.name.starts_with("bank_conflicts/")) {
      const int stride = r.params.at("stride_words").get<int>();
      if (stride == 1) t_stride1 = r.summary.median_s;
      if (stride == 33) {
        t_padded = r.summary.median_s;
        continue;  // the padded fix is checked against stride 1, not fitted
      }
      ways.push_back(r.params.at("conflict_ways").get<double>());
      t_ways.push_back(r.summary.median_s);
    }
  }
  if (!paths.empty() && paths.size() < 3)
    out.push_back(
        missing("divergence/linear", "t(k paths) = a + b k", "three or more path counts"));
  if (!ways.empty() && ways.size() < 3)
    out.push_back(
        missing("bank_conflicts/linear", "t(k-way conflict) = a + b k", "three or more strides"));
  if ((t_stride1 > 0) != (t_padded > 0))
    out.push_back(missing("bank_conflicts/padded", "padding to stride 33 removes the conflict",
                          "both stride 1 and stride 33"));
  // Time linear in k with R^2 >= 0.95, rising, over three or more k. Judged: R² of a fit that
  // rises (slope > 0), −R² of one that does not: a time that grows linearly in k has it near 1; a
  // flat or falling one fails R² ≥ 0.95 whatever its R².
  const auto linear = [&](const char* name, const char* law, const std::vector<double>& k,
                          const std::vector<double>& t, const char* unit) {
    if (k.size() < 3) return;
    const LinearFit f = linear_fit(k, t);
    out.push_back(occupancy_check(
        name, law, 0.95, Band::at_least(0.95), f.slope > 0 ? f.r2 : -f.r2, 0,
        fmt::format("slope {:.4g} s per {}, intercept {:.4g} s, R^2 {:.4f} over {} points", f.slope,
                    unit, f.intercept, f.r2, f.points)));
  };
  linear("divergence/linear", "t(k paths) = a + b k with R^2 >= 0.95, b > 0", paths, t_paths,
         "path");
  linear("bank_conflicts/linear", "t(k-way conflict) = a + b k with R^2 >= 0.95, b > 0", ways,
         t_ways, "way");
  if (t_stride1 > 0 && t_padded > 0) {
    const double ratio = t_padded / t_stride1;
    out.push_back(occupancy_check("bank_conflicts/padded",
                                  "padding to stride 33 removes the conflict: t <= 1.25 t(1)", 1.0,
                                  Band::at_most(1.25), ratio, 0.25,
                                  fmt::format("t(stride 33) / t(stride 1) = {:.3f}", ratio)));
  }
}

void latency_hiding_checks(const std::vector<CaseResult>& results, std::vector<Check>& out) {
  const CaseResult* chase = find_case(results, "latency/dram");
  std::vector<std::pair<double, double>> bw_by_warps;  // (warps per SM, bytes/s)
  double sms = 0, per_warp = 0;
  for (const auto& r : results) {
    if (!r.name.starts_with("latency_hiding/")) continue;
    bw_by_warps.push_back(
        {r.params.at("warps_per_sm").get<double>(), r.work.bytes() / r.summary.median_s});
    sms = r.params.at("sm_count").get<double>();
    per_warp = r.params.at("bytes_in_flight_per_warp").get<double>();
  }
  if (!complete(chase || !bw_by_warps.empty(), chase && bw_by_warps.size() >= 2,
                "latency_hiding/littles_law", "plateau within 2x of Little's law",
                "latency/dram and two or more latency_hiding cases", out))
    return;
  const double latency_s = chase->summary.median_s / chase->params.at("steps").get<double>();
  std::sort(bw_by_warps.begin(), bw_by_warps.end());
  double best = 0;
  for (const auto& [w, bw] : bw_by_warps) best = std::max(best, bw);
  double plateau = bw_by_warps.back().first;
  for (const auto& [w, bw] : bw_by_warps)
    if (bw >= 0.9 * best) {
      plateau = w;
      break;
    }
  // Little's law: warps per SM that keep BW × latency bytes in flight.
  const double little = theory::bytes_in_flight(best, latency_s) / (sms * per_warp);
  const std::string reason = fmt::format(
      "latency {:.0f} ns, best {:.0f} GB/s; 90% of it from {:.0f} warps/SM; Little's law: {:.1f}",
      latency_s * 1e9, best / 1e9, plateau, little);
  out.push_back(
      occupancy_check("latency_hiding/littles_law",
                      "warps/SM at the bandwidth plateau within 2x of BW x latency / (SMs x bytes "
                      "per warp)",
                      little, Band{little / 2, 2 * little}, plateau, 2, reason));
}

// The host's Little's law: lines in flight = BW × latency / 64 B. A streaming read keeps at least
// one line per thread in flight, so BW ≥ threads × 64 B / latency; the parallelism that maps is
// cores × SIMD lanes.
void host_checks(const std::vector<CaseResult>& results, std::vector<Check>& out) {
  const CaseResult* chase = find_case(results, "host/latency");
  const CaseResult* read = find_case(results, "host/read");
  if (!complete(chase || read, chase && read, "host/littles_law",
                "lines in flight = BW x latency / 64 B", "both host/latency and host/read", out))
    return;
  const double steps = chase->params.at("steps").get<double>();
  const double line = read->params.at("line_bytes").get<double>();
  const double threads = read->params.at("threads").get<double>();
  // From the medians, with the interval their order-statistic intervals give (both ends move it
  // the same way: a longer latency, a shorter read time).
  const auto lines = [&](double chase_s, double read_s) {
    return theory::bytes_in_flight(read->work.bytes() / read_s, chase_s / steps) / line;
  };
  const Summary &c = chase->summary, &r = read->summary;
  const double latency_s = c.median_s / steps, bw = read->work.bytes() / r.median_s;
  const double in_flight = lines(c.median_s, r.median_s);
  const bool have_ci = c.median_ci_low_s > 0 && r.median_ci_low_s > 0;
  const Interval in_flight_ci =
      have_ci ? Interval{in_flight, lines(c.median_ci_low_s, r.median_ci_high_s),
                         lines(c.median_ci_high_s, r.median_ci_low_s),
                         c.median_ci_coverage * r.median_ci_coverage}
              : Interval::point(in_flight);
  const std::string reason = fmt::format(
      "latency {:.1f} ns, read {:.2f} GB/s: {:.1f} lines in flight, {:.1f} per thread ({:g} "
      "threads); parallelism {} cores x {} fp64 lanes = {}",
      latency_s * 1e9, bw / 1e9, in_flight, in_flight / threads, threads,
      read->params.at("cores").get<int>(), read->params.at("fp64_lanes").get<int>(),
      read->params.at("parallel_fp64_lanes").get<int>());
  Check k = at_least({"occupancy", "host/littles_law",
                      "lines in flight = BW x latency / 64 B >= threads (one line per thread at "
                      "least)",
                      CheckKind::law, "lines in flight"},
                     threads, in_flight_ci);
  k.tolerance = 0;
  k.reason += "; " + reason;
  out.push_back(k);
}

void spill_checks(const std::vector<CaseResult>& results, std::vector<Check>& out) {
  const CaseResult* capped = find_case(results, "spills/capped");
  const CaseResult* uncapped = find_case(results, "spills/uncapped");
  if (!complete(capped || uncapped, capped && uncapped, "spills/forced",
                "capping registers spills to local memory",
                "both spills/capped and spills/uncapped", out))
    return;
  const double local_capped = capped->params.at("local_bytes_per_thread").get<double>();
  const double local_uncapped = uncapped->params.at("local_bytes_per_thread").get<double>();
  const double slowdown = capped->summary.median_s / uncapped->summary.median_s;
  const std::string reason = fmt::format(
      "capped: {} registers, {:.0f} local bytes/thread; uncapped: {} registers, {:.0f}; "
      "slowdown {:.2f}x",
      capped->params.at("registers_per_thread").get<int>(), local_capped,
      uncapped->params.at("registers_per_thread").get<int>(), local_uncapped, slowdown);
  // The capped kernel's local bytes show the spill; the uncapped one's must be none.
  out.push_back(occupancy_check("spills/forced",
                                "capping registers spills to local memory: local bytes/thread > 0 "
                                "(slowdown reported)",
                                std::numeric_limits<double>::quiet_NaN(), Band::at_least(1),
                                local_capped, std::numeric_limits<double>::quiet_NaN(), reason));
  out.push_back(observed_check("spills/uncapped",
                               "the uncapped kernel does not spill: local bytes/thread == 0", 0,
                               local_uncapped, reason));
}

}  // namespace

Check observed_check(const std::string& name, const std::string& law, double predicted,
                     double measured, const std::string& detail) {
  return occupancy_check(name, law, predicted, Band{predicted, predicted}, measured, 0, detail);
}

int max_co_resident(const std::vector<kernels::BlockRecord>& records) {
  std::map<std::uint32_t, std::vector<std::pair<std::uint64_t, int>>> events;  // by SM
  for (const auto& r : records) {
    events[r.smid].push_back({r.start_ns, +1});
    events[r.smid].push_back({r.end_ns, -1});
  }
  int best = 0;
  for (auto& [sm, ev] : events) {
    std::sort(ev.begin(), ev.end());  // at equal times an end (-1) sorts before a start (+1)
    int now = 0;
    for (const auto& [t, d] : ev) best = std::max(best, now += d);
  }
  return best;
}

std::vector<Check> occupancy_suite_checks(const std::vector<CaseResult>& results) {
  std::vector<Check> out;
  waves_checks(results, out);
  linear_checks(results, out);
  latency_hiding_checks(results, out);
  spill_checks(results, out);
  host_checks(results, out);
  return out;
}

}  // namespace bb::suites
