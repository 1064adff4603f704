#include "suites/collectives/collectives_checks.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "harness/checks.h"
#include "harness/fit.h"

namespace bb::collectives {
namespace {

using json = nlohmann::json;
using theory::Collective;
constexpr double kInf = std::numeric_limits<double>::infinity();

// A series: one collective, data type, operator and placement at one rank count.
std::string series_name(const Point& p) {
  return collectives::series_name(p.op, p.dtype, p.redop, p.in_place);
}

std::string group_name(const Point& p) { return p.transport + "/p" + std::to_string(p.ranks); }

// An interval's ends; a point's are its value.
double low_end(const Interval& i) { return i.is_point() ? i.value : i.low; }
double high_end(const Interval& i) { return i.is_point() ? i.value : i.high; }

// The link 1/β with its interval (the ends swap; β's low end ≤ 0 leaves it unbounded above).
Interval link_of(const Interval& beta) {
  const auto inv = [](double b) { return b > 0 ? 1 / b : kInf; };
  return {inv(beta.value), inv(beta.high), inv(beta.low), beta.coverage};
}

struct Series {
  const Point* first = nullptr;
  std::vector<double> bytes, times;
  std::optional<theory::AlphaBetaFit> fit;
  std::string fit_error;
  // β with its interval: Theil–Sen's slope of t against n over the bandwidth-bound sizes (n ≥ n½
  // of the α–β fit, at least two), over the byte terms; else the α–β fit's β as a point.
  Interval beta;
};

// β's interval for a fitted series (see Series::beta).
Interval beta_interval(const Series& s, double byte_terms) {
  std::vector<double> n, t;
  for (std::size_t i = 0; i < s.bytes.size(); ++i)
    if (s.bytes[i] >= s.fit->half_bytes) n.push_back(s.bytes[i]), t.push_back(s.times[i]);
  const bool distinct = std::adjacent_find(n.begin(), n.end(), std::not_equal_to<>()) != n.end();
  if (n.size() < 2 || !distinct) return Interval::point(s.fit->beta_s_per_byte);
  const RobustFit f = theil_sen_fit(n, t);
  return {f.slope / byte_terms, f.slope_low / byte_terms, f.slope_high / byte_terms, f.coverage};
}

// max_i x_i / min_j x_j − 1 over positive quantities, with the interval their intervals allow:
// from max over pairs of low_i / high_j (at least 1) to max high / min low. Coverage: the
// product of theirs (independent intervals all covering).
Interval spread(const std::vector<Interval>& xs) {
  double lo_best = 1, hi_num = 0, hi_den = kInf, v_max = 0, v_min = kInf, coverage = 1;
  bool point = true;
  for (const auto& a : xs) {
    const double a_lo = low_end(a), a_hi = high_end(a);
    point = point && a.is_point();
    if (!std::isnan(a.coverage)) coverage *= a.coverage;
    v_max = std::max(v_max, a.value), v_min = std::min(v_min, a.value);
    hi_num = std::max(hi_num, a_hi), hi_den = std::min(hi_den, a_lo);
    for (const auto& b : xs) lo_best = std::max(lo_best, a_lo / high_end(b));
  }
  const double value = v_max / v_min - 1;
  if (point) return Interval::point(value);
  return {value, std::min(value, lo_best - 1),
          std::max(value, hi_den > 0 ? hi_num / hi_den - 1 : kInf), coverage};
}

// The value and both ends divided by `d`.
Interval divided(const Interval& i, double d) {
  return {i.value / d, i.low / d, i.high / d, i.coverage};
}

// "12.3 GB/s [11.9, 12.8]" for a link.
std::string gbps(const Interval& link) { return interval_text(divided(link, 1e9)) + " GB/s"; }

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
        s.beta = beta_interval(s, terms.byte_terms);
      } catch (const std::invalid_argument& e) {
        s.fit_error = e.what();
      }
    }
  return groups;
}

CheckHead head(std::string name, std::string law, CheckKind kind, std::string quantity) {
  return {"collectives", std::move(name), std::move(law), kind, std::move(quantity)};
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

std::string series_name(theory::Collective op, reference::DType dtype, reference::RedOp redop,
                        bool in_place, int root) {
  std::string n = std::string(theory::collective_name(op)) + "/" +
                  std::string(reference::dtype_name(dtype)) + "/";
  if (theory::collective_reduces(op)) n += std::string(reference::redop_name(redop)) + "/";
  if (root != 0) n += "root" + std::to_string(root) + "/";
  return n + (in_place ? "in-place" : "out-of-place");
}

double algbw_bytes_per_s(const Point& p) { return p.time_s > 0 ? p.bytes / p.time_s : 0; }
double busbw_bytes_per_s(const Point& p) {
  return algbw_bytes_per_s(p) * theory::bus_bandwidth_factor(p.op, p.ranks);
}

std::vector<Check> collectives_checks(const std::vector<Point>& points, const CheckLimits& limits) {
  std::vector<Check> checks;
  const Groups groups = fitted_series(points);

  // Rank counts with nothing to model (one rank: no communication).
  std::map<std::string, bool> single_only;  // transport → every point at p = 1
  for (const auto& p : points)
    single_only.try_emplace(p.transport, true).first->second &= p.ranks < 2;
  for (const auto& [transport, only] : single_only)
    if (only)
      checks.push_back(skipped(
          head(transport + "/scaling", "alpha-beta models need p >= 2 ranks", CheckKind::law, ""),
          "only 1 rank here: the collectives ran and were verified, but at p = 1 they move "
          "no data between ranks, so nothing is fitted"));

  for (const auto& [group, series] : groups) {
    for (const auto& [name, s] : series) {
      // How straight the times lie: an expectation, since libraries switch algorithm and
      // protocol (eager, rendezvous, segment sizes) with the size.
      const CheckHead h = head(group + "/" + name + "/alpha-beta-fit",
                               "t = latency_terms alpha + byte_terms n beta (" +
                                   std::string(theory::algorithm_name(
                                       theory::bandwidth_optimal_algorithm(s.first->op))) +
                                   "); R^2 over sizes >= n_half >= 0.95",
                               CheckKind::expectation, "R^2");
      Check k;
      if (!s.fit) {
        k = skipped(h, "no fit: " + s.fit_error);
      } else if (std::isnan(s.fit->r2_bandwidth_bound)) {
        k = skipped(h, std::to_string(s.fit->bandwidth_bound_points) +
                           " sizes above n_half = " + fmt::format("{:.0f}", s.fit->half_bytes) +
                           " B: 3 needed (raise --max-bytes)");
      } else {
        k = at_least(h, limits.min_r2, Interval::point(s.fit->r2_bandwidth_bound));
        k.reason += fmt::format("; alpha {:.3g} us, link ", s.fit->alpha_s * 1e6) +
                    gbps(link_of(s.beta)) + " over " +
                    std::to_string(s.fit->bandwidth_bound_points) + " bandwidth-bound sizes";
      }
      k.predicted = limits.min_r2, k.tolerance = 0;
      checks.push_back(k);
    }

    // busbw's point: all_reduce, all_gather and reduce_scatter run on one link at one speed, if
    // the library's algorithms are the bandwidth-optimal ones (an expectation: OpenMPI's
    // reduce_scatter is not).
    const CheckHead agree = head(group + "/busbw-agreement",
                                 "asymptotic busbw (1/beta) of all_reduce, all_gather and "
                                 "reduce_scatter agree: max/min - 1 <= tolerance",
                                 CheckKind::expectation, "spread max/min - 1");
    std::vector<Interval> links;
    std::string missing, told;
    for (auto op : {Collective::all_reduce, Collective::all_gather, Collective::reduce_scatter}) {
      const Series* s = find_op(series, op);
      if (!s) {
        missing += (missing.empty() ? "" : ", ") + std::string(theory::collective_name(op));
        continue;
      }
      links.push_back(link_of(s->beta));
      told += (told.empty() ? "" : "; ") + std::string(theory::collective_name(op)) + " " +
              gbps(links.back());
    }
    Check a = missing.empty() ? at_most(agree, limits.busbw_spread, spread(links))
                              : skipped(agree, "not fitted here: " + missing);
    if (missing.empty()) a.reason += "; " + told;
    a.predicted = 0, a.tolerance = limits.busbw_spread;
    checks.push_back(a);

    // No collective beats the point-to-point link: the asymptotic busbw (1/β) of each is at most
    // send_recv's 1/β (the byte terms are the bandwidth lower bounds, Patarasuk & Yuan 2009). MPI
    // ranks all on one node copy through one shared capacity, where broadcast and reduce may reach
    // p/(p−1) × send_recv's 1/β (theory::shared_capacity_link_factor): their ratio is taken over
    // that. A law; judged on the ratio's interval, the series whose interval reaches highest.
    const CheckHead bound = head(group + "/link-bound",
                                 "asymptotic busbw 1/beta of every collective <= the link 1/beta "
                                 "fitted to send_recv (the bandwidth lower bound; x p/(p-1) for "
                                 "broadcast and reduce with MPI ranks on one node), within " +
                                     fmt::format("{:.0f}%", 100 * limits.link_tolerance),
                                 CheckKind::law, "busbw / link");
    Check b;
    if (const Series* link = find_op(series, Collective::send_recv)) {
      const Interval l = link_of(link->beta);
      const Point& lp = *link->first;
      const bool shared = lp.transport == "mpi" && lp.cores > 0 && lp.ranks_on_node >= lp.ranks;
      Interval worst = Interval::point(0);
      std::string where;
      for (const auto& [other, s] : series) {
        if (!s.fit || !(s.fit->beta_s_per_byte > 0) || &s == link) continue;
        const Interval c = link_of(s.beta);
        const double factor =
            shared ? theory::shared_capacity_link_factor(s.first->op, s.first->ranks) : 1;
        const Interval ratio =
            divided(l.is_point() && c.is_point()
                        ? Interval::point(c.value / l.value)
                        : Interval{c.value / l.value, low_end(c) / high_end(l),
                                   high_end(c) / low_end(l), c.coverage * l.coverage},
                    factor);
        // The series that says most: the highest low end (a point's is its value).
        if (where.empty() || low_end(ratio) > low_end(worst)) worst = ratio, where = other;
      }
      if (where.empty()) {
        b = skipped(bound, "no collective besides send_recv fitted here");
      } else {
        b = at_most(bound, 1 + limits.link_tolerance, worst);
        b.reason += "; highest: " + where + ", link (send_recv) " + gbps(l);
        if (shared) b.reason += "; ranks on one node: broadcast and reduce over p/(p-1) x the link";
      }
    } else {
      b = skipped(bound, "send_recv not fitted here");
    }
    b.predicted = 1, b.tolerance = limits.link_tolerance;
    checks.push_back(b);
  }

  // Scaling in ranks: one link, one β at every p, once oversubscribed cores are accounted for;
  // an expectation (how a machine shares its cores and memory among more ranks is its tuning).
  // transport/series → (p, 1/β with β divided by the oversubscription)
  std::map<std::string, std::vector<std::pair<int, Interval>>> links_at;
  for (const auto& [group, series] : groups)
    for (const auto& [name, s] : series)
      if (s.fit && s.fit->beta_s_per_byte > 0) {
        const double o = oversubscription(*s.first);
        links_at[s.first->transport + "/" + name].emplace_back(s.first->ranks,
                                                               link_of(divided(s.beta, o)));
      }
  for (const auto& [name, list] : links_at) {
    const CheckHead h =
        head(name + "/rank-scaling",
             "t(p) follows the model's p-dependence: beta fitted at each p (divided by "
             "ranks/cores where ranks outnumber cores) agrees: max/min - 1 <= tolerance",
             CheckKind::expectation, "spread max/min - 1");
    std::string ps;
    std::vector<Interval> links;
    for (const auto& [p, link] : list) {
      ps += (ps.empty() ? "p=" : ", ") + std::to_string(p);
      links.push_back(link);
    }
    Check k = list.size() < 2 ? skipped(h, "needs fits at two rank counts >= 2 (here " + ps + ")")
                              : at_most(h, limits.rank_scaling_spread, spread(links));
    if (list.size() >= 2) {
      k.reason += "; " + ps + ": link";
      for (std::size_t i = 0; i < links.size(); ++i) k.reason += (i ? ", " : " ") + gbps(links[i]);
    }
    k.predicted = 0, k.tolerance = limits.rank_scaling_spread;
    checks.push_back(k);
  }
  return checks;
}

json collectives_figures(const std::vector<Point>& points) {
  json f = json::object();
  const Groups groups = fitted_series(points);
  for (const auto& p : points) {
    json& g = f[p.transport][std::string("p").append(std::to_string(p.ranks))];
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
      json& out = f[s.first->transport][std::string("p").append(std::to_string(s.first->ranks))]
                   ["series"][name];
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
      for (const auto& [name, s] : g["series"].items()) {
        if (name.rfind("all_reduce/", 0) != 0 || !s.contains("alpha_s") ||
            !(s.value("link_bytes_per_s", 0.0) > 0))
          continue;
        // The group's first fitted all_reduce (the first replacing a smaller group's), but the
        // default sweep's series (fp32 sum out of place) where there is one.
        if (g.value("ranks", 0) > best_ranks || name == "all_reduce/fp32/sum/out-of-place")
          best = &s, best_ranks = g.value("ranks", 0), best_series = name;
      }
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
