#include "theory/collectives.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace bb::theory {
namespace {

constexpr std::pair<Collective, std::string_view> kNames[] = {
    {Collective::all_reduce, "all_reduce"},
    {Collective::all_gather, "all_gather"},
    {Collective::reduce_scatter, "reduce_scatter"},
    {Collective::broadcast, "broadcast"},
    {Collective::reduce, "reduce"},
    {Collective::all_to_all, "all_to_all"},
    {Collective::send_recv, "send_recv"}};

constexpr std::pair<Algorithm, std::string_view> kAlgorithms[] = {
    {Algorithm::ring, "ring"},
    {Algorithm::binomial_tree, "binomial_tree"},
    {Algorithm::rabenseifner, "rabenseifner"},
    {Algorithm::scatter_allgather, "scatter_allgather"},
    {Algorithm::pipeline, "pipeline"},
    {Algorithm::pairwise, "pairwise"},
    {Algorithm::direct, "direct"}};

double ceil_log2(int p) { return std::ceil(std::log2(static_cast<double>(p))); }

}  // namespace

std::string_view collective_name(Collective c) {
  for (const auto& [k, n] : kNames)
    if (k == c) return n;
  return "?";
}

std::optional<Collective> collective_from_name(std::string_view name) {
  for (const auto& [k, n] : kNames)
    if (n == name) return k;
  return std::nullopt;
}

bool collective_reduces(Collective c) {
  return c == Collective::all_reduce || c == Collective::reduce_scatter || c == Collective::reduce;
}

std::string_view algorithm_name(Algorithm a) {
  for (const auto& [k, n] : kAlgorithms)
    if (k == a) return n;
  return "?";
}

std::optional<Algorithm> algorithm_from_name(std::string_view name) {
  for (const auto& [k, n] : kAlgorithms)
    if (n == name) return k;
  return std::nullopt;
}

double bus_bandwidth_factor(Collective c, int ranks) {
  const double p = ranks;
  switch (c) {
    case Collective::all_reduce: return 2 * (p - 1) / p;
    case Collective::all_gather:
    case Collective::reduce_scatter:
    case Collective::all_to_all: return (p - 1) / p;
    case Collective::broadcast:
    case Collective::reduce:
    case Collective::send_recv: return 1;
  }
  return 1;
}

double shared_capacity_link_factor(Collective c, int ranks) {
  if (ranks < 2) throw std::invalid_argument("ranks must be >= 2");
  const bool rooted = c == Collective::broadcast || c == Collective::reduce;
  return rooted ? static_cast<double>(ranks) / (ranks - 1) : 1;
}

AlphaBetaTerms alpha_beta_terms(Collective c, Algorithm a, int ranks) {
  if (ranks < 1) throw std::invalid_argument("ranks must be >= 1");
  const double p = ranks, lg = ceil_log2(ranks), frac = (p - 1) / p;
  const auto refuse = [&] {
    return std::invalid_argument("the " + std::string(algorithm_name(a)) +
                                 " algorithm does not implement " +
                                 std::string(collective_name(c)));
  };
  switch (c) {
    case Collective::all_reduce:
      if (a == Algorithm::ring) return {2 * (p - 1), 2 * frac};
      if (a == Algorithm::binomial_tree) return {2 * lg, 2 * lg};
      if (a == Algorithm::rabenseifner) return {2 * lg, 2 * frac};
      throw refuse();
    case Collective::all_gather:
    case Collective::reduce_scatter:
      if (a == Algorithm::ring) return {p - 1, frac};
      throw refuse();
    case Collective::broadcast:
    case Collective::reduce:
      if (a == Algorithm::binomial_tree) return {lg, lg};
      if (a == Algorithm::scatter_allgather) return {p > 1 ? lg + p - 1 : 0, 2 * frac};
      if (a == Algorithm::pipeline) return {p - 1, p > 1 ? 1.0 : 0.0};
      throw refuse();
    case Collective::all_to_all:
      if (a == Algorithm::pairwise) return {p - 1, frac};
      throw refuse();
    case Collective::send_recv:
      if (a == Algorithm::direct) return {p > 1 ? 1.0 : 0.0, p > 1 ? 1.0 : 0.0};
      throw refuse();
  }
  throw refuse();
}

Algorithm bandwidth_optimal_algorithm(Collective c) {
  switch (c) {
    case Collective::broadcast:
    case Collective::reduce: return Algorithm::pipeline;
    case Collective::all_to_all: return Algorithm::pairwise;
    case Collective::send_recv: return Algorithm::direct;
    default: return Algorithm::ring;
  }
}

// byte_terms × n and latency_terms of the bandwidth-optimal algorithm (alpha_beta_terms).
LinkWork link_work(Collective c, int ranks, double bytes) {
  if (ranks < 2) return {};
  const AlphaBetaTerms t = alpha_beta_terms(c, bandwidth_optimal_algorithm(c), ranks);
  return {t.byte_terms * bytes, t.latency_terms};
}

double alpha_beta_time_s(AlphaBetaTerms terms, double bytes, double alpha_s,
                         double beta_s_per_byte) {
  return terms.latency_terms * alpha_s + terms.byte_terms * bytes * beta_s_per_byte;
}

AlphaBetaFit fit_alpha_beta(AlphaBetaTerms terms, std::span<const double> bytes,
                            std::span<const double> times_s) {
  if (bytes.size() != times_s.size() || bytes.size() < 2)
    throw std::invalid_argument("an alpha-beta fit needs at least 2 (bytes, time) points");
  if (terms.latency_terms <= 0 || terms.byte_terms <= 0)
    throw std::invalid_argument("the model has no communication at this rank count");
  // Weighted normal equations for t ≈ a + b·n, weights 1/t².
  double sw = 0, sn = 0, st = 0, snn = 0, snt = 0;
  bool sizes_differ = false;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (!(times_s[i] > 0) || !std::isfinite(times_s[i]))
      throw std::invalid_argument("an alpha-beta fit needs positive, finite times");
    const double w = 1 / (times_s[i] * times_s[i]), n = bytes[i], t = times_s[i];
    sw += w, sn += w * n, st += w * t, snn += w * n * n, snt += w * n * t;
    sizes_differ = sizes_differ || n != bytes[0];
  }
  if (!sizes_differ) throw std::invalid_argument("an alpha-beta fit needs different sizes");
  const double det = sw * snn - sn * sn;
  double a = (snn * st - sn * snt) / det, b = (sw * snt - sn * st) / det;
  if (a < 0) a = 0, b = snt / snn;  // through the origin
  if (b < 0) b = 0, a = st / sw;    // latency alone
  AlphaBetaFit f;
  f.points = bytes.size();
  f.alpha_s = a / terms.latency_terms;
  f.beta_s_per_byte = b / terms.byte_terms;
  f.half_bytes = b > 0 ? a / b : std::numeric_limits<double>::infinity();
  f.r2_bandwidth_bound = std::numeric_limits<double>::quiet_NaN();
  // Step 2: the bandwidth-bound sizes, unweighted.
  double m = 0, mn = 0, mt = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i)
    if (bytes[i] >= f.half_bytes) m += 1, mn += bytes[i], mt += times_s[i];
  f.bandwidth_bound_points = static_cast<std::size_t>(m);
  if (m < 3) return f;
  mn /= m, mt /= m;
  double sxx = 0, sxy = 0, syy = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i] < f.half_bytes) continue;
    const double dx = bytes[i] - mn, dy = times_s[i] - mt;
    sxx += dx * dx, sxy += dx * dy, syy += dy * dy;
  }
  if (sxx <= 0 || sxy <= 0) return f;  // one size, or times that fall with n: no link to fit
  const double slope = sxy / sxx, intercept = mt - slope * mn;
  double ss_res = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i)
    if (bytes[i] >= f.half_bytes) {
      const double r = times_s[i] - (intercept + slope * bytes[i]);
      ss_res += r * r;
    }
  f.beta_s_per_byte = slope / terms.byte_terms;
  f.r2_bandwidth_bound = syy > 0 ? 1 - ss_res / syy : 1.0;
  return f;
}

}  // namespace bb::theory
