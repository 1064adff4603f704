#include "suites/collectives/collectives_checks.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <tuple>

namespace bb::collectives {
namespace {

using json = nlohmann::json;
using theory::Collective;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A series: one collective, data type, operator and placement at one rank count.
std::string series_name(const Point& p) {
  return std::string(theory::collective_name(p.op)) + "/" +
         std::string(reference::dtype_name(p.dtype)) + "/" +
         (theory::collective_reduces(p.op) ? std::string(reference::redop_name(p.redop)) + "/"
                                           : "") +
         (p.in_place ? "in-place" : "out-of-place");
}

std::string group_name(const Point& p) { return p.transport + "/p" + std::to_string(p.ranks); }

struct Series {
  const Point* first = nullptr;
  std::vector<double> bytes, times;
  std::optional<theory::AlphaBetaFit> fit;
  std::string fit_error;
};

// Sweep points by group then series, in a stable order.
using Groups = std::map<std::string, std::map<std::string, Series>>;

Groups fitted_series(const std::vector<Point>& points) {
  Groups groups;
  for (const auto& p : points) {
    if (!p.sweep || p.ranks < 2 || !(p.time_s > 0)) continue;
    Series& s = groups[group_name(p)][series_name(p)];
    if (!s.first) s.first = &p;
    s.bytes.push_back(p.bytes), s.times.push_back(p.time_s);
  }
  for (auto& [g, series] : groups)
    for (auto& [name, s] : series) {
      const auto terms = theory::alpha_beta_terms(
          s.first->op, theory::bandwidth_optimal_algorithm(s.first->op), s.first->ranks);
      try {
        s.fit = theory::fit_alpha_beta(terms, s.bytes, s.times);
      } catch (const std::invalid_argument& e) {
        s.fit_error = e.what();
      }
    }
  return groups;
}

Check make_check(std::string name, std::string law) {
  Check k;
  k.suite = "collectives";
  k.name = std::move(name);
  k.law = std::move(law);
  return k;
}

double oversubscription(const Point& p) {
  return p.cores > 0 ? std::max(1.0, static_cast<double>(p.ranks_on_node) / p.cores) : 1.0;
}

// The fitted link (1/β) of `op` in a group: its fp32 sum out-of-place series (the default sweep)
// when there is one, else the first fitted one.
const Series* find_op(const std::map<std::string, Series>& series, Collective op) {
  const Series* found = nullptr;
  for (const auto& [name, s] : series) {
    if (s.first->op != op || !s.fit || !(s.fit->beta_s_per_byte > 0)) continue;
    const bool preferred = s.first->dtype == reference::DType::fp32 && !s.first->in_place &&
                           s.first->redop == reference::RedOp::sum;
    if (preferred) return &s;
    if (!found) found = &s;
  }
  return found;
}

}  // namespace

double algbw_bytes_per_s(const Point& p) { return p.time_s > 0 ? p.bytes / p.time_s : 0; }
double busbw_bytes_per_s(const Point& p) {
  return algbw_bytes_per_s(p) * theory::bus_bandwidth_factor(p.op, p.ranks);
}

std::vector<Check> collectives_checks(const std::vector<Point>& points, const CheckLimits& limits) {
  std::vector<Check> checks;
  const Groups groups = fitted_series(points);

  // Rank counts with nothing to model (one rank: no communication).
  std::map<std::string, bool> single_only;
  for (const auto& p : points) {
    auto [it, fresh] = single_only.try_emplace(p.transport, true);
    it->second = it->second && p.ranks < 2;
  }
  for (const auto& [transport, only] : single_only)
    if (only) {
      Check k = make_check(transport + "/scaling", "alpha-beta models need p >= 2 ranks");
      k.reason =
          "only 1 rank here: the collectives ran and were verified, but at p = 1 they move "
          "no data between ranks, so nothing is fitted";
      checks.push_back(k);
    }

  for (const auto& [group, series] : groups) {
    for (const auto& [name, s] : series) {
      Check k = make_check(group + "/" + name + "/alpha-beta-fit",
                           "t = latency_terms alpha + byte_terms n beta (" +
                               std::string(theory::algorithm_name(
                                   theory::bandwidth_optimal_algorithm(s.first->op))) +
                               "); R^2 over sizes >= n_half");
      k.predicted = limits.min_r2;
      k.tolerance = 0;
      if (!s.fit) {
        k.reason = "no fit: " + s.fit_error;
      } else if (std::isnan(s.fit->r2_bandwidth_bound)) {
        k.reason = std::to_string(s.fit->bandwidth_bound_points) +
                   " sizes above n_half = " + std::to_string(s.fit->half_bytes) +
                   " B: 3 needed (raise --max-bytes)";
      } else {
        k.measured = s.fit->r2_bandwidth_bound;
        k.verdict = k.measured >= limits.min_r2 ? Verdict::pass : Verdict::fail;
        k.reason = "alpha " + std::to_string(s.fit->alpha_s * 1e6) + " us, link " +
                   std::to_string(s.fit->link_bytes_per_s() / 1e9) + " GB/s over " +
                   std::to_string(s.fit->bandwidth_bound_points) + " bandwidth-bound sizes";
      }
      checks.push_back(k);
    }

    // busbw's point: all_reduce, all_gather and reduce_scatter run on one link at one speed.
    Check agree = make_check(group + "/busbw-agreement",
                             "asymptotic busbw (1/beta) of all_reduce, all_gather and "
                             "reduce_scatter agree: max/min - 1 <= tolerance");
    agree.predicted = 0;
    agree.tolerance = limits.busbw_spread;
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    std::string missing;
    for (auto op : {Collective::all_reduce, Collective::all_gather, Collective::reduce_scatter}) {
      const Series* s = find_op(series, op);
      if (!s) {
        missing += (missing.empty() ? "" : ", ") + std::string(theory::collective_name(op));
        continue;
      }
      lo = std::min(lo, s->fit->link_bytes_per_s()), hi = std::max(hi, s->fit->link_bytes_per_s());
    }
    if (!missing.empty()) {
      agree.reason = "not fitted here: " + missing;
    } else {
      agree.measured = hi / lo - 1;
      agree.verdict = agree.measured <= limits.busbw_spread ? Verdict::pass : Verdict::fail;
      agree.reason = std::to_string(lo / 1e9) + " to " + std::to_string(hi / 1e9) + " GB/s";
    }
    checks.push_back(agree);

    // No collective beats the point-to-point link: the asymptotic busbw (1/β) of each is at most
    // send_recv's 1/β (the byte terms are the bandwidth lower bounds, Patarasuk & Yuan 2009).
    Check bound = make_check(group + "/link-bound",
                             "asymptotic busbw 1/beta of every collective <= the link 1/beta "
                             "fitted to send_recv (the bandwidth lower bound)");
    bound.predicted = 1;
    bound.tolerance = limits.link_tolerance;
    if (const Series* link = find_op(series, Collective::send_recv)) {
      double worst = 0;
      std::string where;
      for (const auto& [other, s] : series) {
        if (!s.fit || !(s.fit->beta_s_per_byte > 0)) continue;
        const double ratio = s.fit->link_bytes_per_s() / link->fit->link_bytes_per_s();
        if (ratio > worst) worst = ratio, where = other;
      }
      bound.measured = worst;
      bound.verdict = worst <= 1 + limits.link_tolerance ? Verdict::pass : Verdict::fail;
      bound.reason = "highest: " + where + " at " + std::to_string(worst) + " x the link (" +
                     std::to_string(link->fit->link_bytes_per_s() / 1e9) + " GB/s)";
    } else {
      bound.reason = "send_recv not fitted here";
    }
    checks.push_back(bound);
  }

  // Scaling in ranks: one link, one β at every p, once oversubscribed cores are accounted for.
  std::map<std::string, std::vector<std::pair<int, double>>> betas;  // transport/series → (p, β)
  for (const auto& [group, series] : groups)
    for (const auto& [name, s] : series)
      if (s.fit && s.fit->beta_s_per_byte > 0)
        betas[s.first->transport + "/" + name].emplace_back(
            s.first->ranks, s.fit->beta_s_per_byte / oversubscription(*s.first));
  for (const auto& [name, list] : betas) {
    Check k =
        make_check(name + "/rank-scaling",
                   "t(p) follows the model's p-dependence: beta fitted at each p (divided by "
                   "ranks/cores where ranks outnumber cores) agrees: max/min - 1 <= tolerance");
    k.predicted = 0;
    k.tolerance = limits.rank_scaling_spread;
    std::string ps;
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    for (const auto& [p, beta] : list) {
      ps += (ps.empty() ? "p=" : ", ") + std::to_string(p);
      lo = std::min(lo, beta), hi = std::max(hi, beta);
    }
    if (list.size() < 2) {
      k.reason = "needs fits at two rank counts >= 2 (here " + ps + ")";
    } else {
      k.measured = hi / lo - 1;
      k.verdict = k.measured <= limits.rank_scaling_spread ? Verdict::pass : Verdict::fail;
      k.reason = ps + ": link " + std::to_string(1 / hi / 1e9) + " to " +
                 std::to_string(1 / lo / 1e9) + " GB/s";
    }
    checks.push_back(k);
  }
  return checks;
}

json collectives_figures(const std::vector<Point>& points) {
  json f = json::object();
  const Groups groups = fitted_series(points);
  for (const auto& p : points) {
    json& g = f[p.transport]["p" + std::to_string(p.ranks)];
    g["ranks"] = p.ranks;
    g["ranks_on_node"] = p.ranks_on_node;
    g["cores"] = p.cores;
    if (!p.sweep) continue;
    json& s = g["series"][series_name(p)];
    const double busbw = busbw_bytes_per_s(p);
    if (!s.contains("peak_busbw_bytes_per_s") ||
        busbw > s["peak_busbw_bytes_per_s"].get<double>()) {
      s["peak_busbw_bytes_per_s"] = busbw;
      s["peak_at_bytes"] = p.bytes;
    }
    s["points"] = s.value("points", 0) + 1;
  }
  for (const auto& [group, series] : groups)
    for (const auto& [name, s] : series) {
      json& out = f[s.first->transport]["p" + std::to_string(s.first->ranks)]["series"][name];
      const theory::Algorithm alg = theory::bandwidth_optimal_algorithm(s.first->op);
      const theory::AlphaBetaTerms terms =
          theory::alpha_beta_terms(s.first->op, alg, s.first->ranks);
      out["algorithm"] = theory::algorithm_name(alg);
      // The model's terms, for plotting t = latency_terms α + byte_terms n β (ci/report.py).
      out["latency_terms"] = terms.latency_terms;
      out["byte_terms"] = terms.byte_terms;
      out["bus_factor"] = theory::bus_bandwidth_factor(s.first->op, s.first->ranks);
      if (!s.fit) continue;
      out["alpha_s"] = s.fit->alpha_s;
      out["beta_s_per_byte"] = s.fit->beta_s_per_byte;
      out["link_bytes_per_s"] = s.fit->link_bytes_per_s();
      out["half_bytes"] =
          std::isfinite(s.fit->half_bytes) ? json(s.fit->half_bytes) : json(nullptr);
      out["r2_bandwidth_bound"] =
          std::isnan(s.fit->r2_bandwidth_bound) ? json(nullptr) : json(s.fit->r2_bandwidth_bound);
    }
  return f;
}

MeasuredLink measured_link(const json& results, const std::string& path) {
  const json figures = results.contains("figures") && results["figures"].is_object()
                           ? results["figures"].value("collectives", json::object())
                           : json::object();
  for (const char* transport : {"nccl", "mpi"}) {
    if (!figures.contains(transport) || !figures[transport].is_object()) continue;
    const json* best = nullptr;
    int best_ranks = 0;
    std::string best_series;
    for (const auto& [group, g] : figures[transport].items()) {
      if (!g.is_object() || !g.contains("series") || g.value("ranks", 0) <= best_ranks) continue;
      // The default sweep's series first (fp32 sum out of place), else any fitted all_reduce.
      const json* pick = nullptr;
      std::string pick_name;
      for (const auto& [name, s] : g["series"].items()) {
        if (name.rfind("all_reduce/", 0) != 0 || !s.contains("alpha_s") ||
            !(s.value("link_bytes_per_s", 0.0) > 0))
          continue;
        if (!pick || name == "all_reduce/fp32/sum/out-of-place") pick = &s, pick_name = name;
      }
      if (pick) best = pick, best_ranks = g.value("ranks", 0), best_series = pick_name;
    }
    if (best)
      return {
          (*best)["alpha_s"].get<double>(), (*best)["link_bytes_per_s"].get<double>(),
          std::string(transport) + ", " + std::to_string(best_ranks) + " ranks, " + best_series};
  }
  throw std::invalid_argument(path +
                              ": no fitted all_reduce in figures.collectives (run "
                              "`boundbench collectives` with 2 or more ranks)");
}

}  // namespace bb::collectives
