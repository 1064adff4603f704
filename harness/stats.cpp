#include "harness/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "harness/fit.h"

namespace bb {
namespace {

// 1 / Φ⁻¹(3/4): scales the MAD to the standard deviation of normal noise.
constexpr double kMadToSigma = 1.4826;

}  // namespace

double binomial_half_cdf(std::size_t n, std::size_t k) {
  if (k >= n) return 1.0;
  if (2 * k >= n) return 1 - binomial_half_cdf(n, n - k - 1);  // symmetry: sum the lower tail
  // P(B = k) from log-gammas, then down the lower tail with P(j − 1) = P(j)·j / (n − j + 1), which
  // only falls, until the terms no longer count: ~5·sqrt(n) terms at most.
  const double dn = static_cast<double>(n), dk = static_cast<double>(k);
  double term = std::exp(std::lgamma(dn + 1) - std::lgamma(dk + 1) - std::lgamma(dn - dk + 1) -
                         dn * std::log(2.0));
  double sum = 0;
  for (std::size_t j = k;; --j) {
    sum += term;
    if (j == 0 || term <= sum * 1e-18) break;  // an underflowed term ends it too
    term *= static_cast<double>(j) / (dn - static_cast<double>(j) + 1);
  }
  return std::min(sum, 1.0);
}

bool median_reachable(std::size_t n, double confidence) {
  // As median_interval_ranks decides it: P(B ≤ 0) = 2^−n within the tail (1 − confidence)/2.
  return n >= 1 &&
         std::ldexp(1.0, -static_cast<int>(std::min<std::size_t>(n, 2048))) <= (1 - confidence) / 2;
}

MedianRanks median_interval_ranks(std::size_t n, double confidence) {
  MedianRanks r;
  if (n == 0) return r;
  const double tail = (1 - confidence) / 2;
  // The largest low in [1, (n + 1)/2] with P(B ≤ low − 1) ≤ tail (the CDF grows with low).
  std::size_t lo = 1, hi = (n + 1) / 2;
  // Not even [min, max] reaches the confidence: report it (lo = 1) with what it covers.
  if (binomial_half_cdf(n, 0) > tail) hi = 1;
  while (lo < hi) {
    const std::size_t mid = (lo + hi + 1) / 2;
    if (binomial_half_cdf(n, mid - 1) <= tail)
      lo = mid;
    else
      hi = mid - 1;
  }
  r.low = lo;
  r.high = n + 1 - lo;
  r.coverage = 1 - 2 * binomial_half_cdf(n, lo - 1);
  return r;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

Interval median_interval_of(std::vector<double> values, double confidence) {
  if (values.empty()) throw std::invalid_argument("median interval: no values");
  std::sort(values.begin(), values.end());
  const MedianRanks ranks = median_interval_ranks(values.size(), confidence);
  return {median_of(values), values[ranks.low - 1], values[ranks.high - 1], ranks.coverage};
}

bool within_precision(const Summary& s, double precision) {
  return s.median_s > 0 && s.median_ci_coverage >= s.median_ci_confidence &&
         s.median_ci_high_s - s.median_ci_low_s <= 2 * precision * s.median_s;
}

std::vector<double> kept_samples(std::span<const double> samples_s, std::size_t cap) {
  cap = std::max<std::size_t>(cap, 2);
  const std::size_t n = samples_s.size();
  if (n <= cap) return {samples_s.begin(), samples_s.end()};
  std::vector<double> kept(cap);
  for (std::size_t i = 0; i < cap; ++i)
    kept[i] = samples_s[(i * (n - 1) + (cap - 1) / 2) / (cap - 1)];
  return kept;
}

std::vector<double> kept_rounds(std::span<const double> round_samples_s, std::size_t cap) {
  return kept_samples(round_samples_s, cap);
}

std::size_t look_index(std::size_t n, std::size_t min_samples) {
  min_samples = std::max<std::size_t>(min_samples, 1);
  if (n < min_samples) return 0;
  std::size_t k = 1;
  for (std::size_t at = min_samples; at < n; at *= 2) ++k;
  return k;
}

bool is_scheduled_look(std::size_t n, std::size_t min_samples) {
  min_samples = std::max<std::size_t>(min_samples, 1);
  if (n < min_samples || n % min_samples) return false;
  const std::size_t q = n / min_samples;
  return (q & (q - 1)) == 0;
}

double sequential_confidence(std::size_t look, double alpha) {
  look = std::max<std::size_t>(look, 1);
  if (look <= kSpendingFlatLooks)
    return 1 - alpha * kSpendingFlatShare / static_cast<double>(kSpendingFlatLooks);
  const double j = static_cast<double>(look - kSpendingFlatLooks);
  return 1 - alpha * (1 - kSpendingFlatShare) / (j * (j + 1));
}

Summary summarize(std::span<const double> samples_s, double confidence) {
  Summary s;
  s.median_ci_confidence = confidence;
  s.samples = samples_s.size();
  if (s.samples == 0) return s;
  std::vector<double> sorted(samples_s.begin(), samples_s.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  s.min_s = sorted.front();
  s.max_s = sorted.back();
  s.median_s = median_of(sorted);
  s.total_s = std::accumulate(sorted.begin(), sorted.end(), 0.0);
  s.mean_s = s.total_s / static_cast<double>(n);
  if (n > 1) {
    double ss = 0;
    for (double x : sorted) ss += (x - s.mean_s) * (x - s.mean_s);
    s.stddev_s = std::sqrt(ss / static_cast<double>(n - 1));
  }
  s.rel_noise = s.mean_s > 0 ? s.stddev_s / s.mean_s : 0.0;
  std::vector<double> deviations(n);
  for (std::size_t i = 0; i < n; ++i) deviations[i] = std::fabs(sorted[i] - s.median_s);
  s.mad_s = median_of(std::move(deviations));
  s.rel_mad = s.median_s > 0 ? kMadToSigma * s.mad_s / s.median_s : 0.0;
  const MedianRanks ranks = median_interval_ranks(n, confidence);
  s.median_ci_low_s = sorted[ranks.low - 1];
  s.median_ci_high_s = sorted[ranks.high - 1];
  s.median_ci_coverage = ranks.coverage;
  s.median_ci_confidence = confidence;
  return s;
}

StoppingRule StoppingRule::quick() {
  return {.min_samples = 5, .min_time_s = 0.05, .max_rel_noise = 0.02, .timeout_s = 1.0};
}

StoppingRule StoppingRule::simulated() {
  return {.warmup_samples = 0,  // no clock to raise; the validation launch came first
          .min_samples = 3,
          .min_time_s = 0,
          .max_rel_noise = 0.01,
          .timeout_s = 1e-3,                  // any simulated sample takes longer: stop at 3
          .hard_timeout_factor = 600 / 1e-3,  // never more than 10 minutes
          .check_timeout_factor = 0,          // and no more for an undecided check
          .noise_needs_interval = false};     // equal samples are the simulated time
}

StoppingRule StoppingRule::for_sweep_point() const {
  StoppingRule r = *this;
  r.min_samples = std::min<std::size_t>(min_samples, 5);
  r.min_time_s = min_time_s / 50;
  r.timeout_s = std::max(timeout_s / 10, 0.1);
  r.hard_timeout_factor = hard_timeout_s() / r.timeout_s;
  r.check_timeout_factor = check_timeout_s() / r.timeout_s;
  // The run's precision and noise target: a sweep point's samples are short, so its median reaches
  // ±1% in a fraction of the shorter timeout, or stops there.
  return r;
}

std::string stop_reason_name(StopReason r) {
  switch (r) {
    case StopReason::none: return "none";
    case StopReason::converged: return "converged";
    case StopReason::timeout: return "timeout";
  }
  return "none";
}

void Sampler::add(double sample_s) {
  samples_.push_back(sample_s);
  sum_ += sample_s;
  const double delta = sample_s - mean_;
  mean_ += delta / static_cast<double>(samples_.size());
  m2_ += delta * (sample_s - mean_);
}

bool Sampler::converged() const {
  const std::size_t n = samples_.size();
  if (n < rule_.min_samples || sum_ < rule_.min_time_s || n < 2) return false;
  const double stddev = std::sqrt(m2_ / static_cast<double>(n - 1));
  return (mean_ > 0 && stddev / mean_ <= rule_.max_rel_noise &&
          (!rule_.noise_needs_interval || median_reachable(n, confidence()))) ||
         precise();
}

bool Sampler::precise() const {
  const std::size_t n = samples_.size();
  if (n < 2 || !is_scheduled_look(n, rule_.min_samples)) return false;
  return within_precision(summary(), rule_.precision);
}

double Sampler::confidence() const {
  return sequential_confidence(look_index(samples_.size(), rule_.min_samples), rule_.alpha);
}

StopReason Sampler::should_stop(double wall_s) const {
  return group_should_stop(std::span(this, 1), wall_s);  // a group of one
}

double precise_by_s(const Sampler& s, double wall_s) {
  constexpr double kNever = std::numeric_limits<double>::infinity();
  const StoppingRule& rule = s.rule();
  const std::size_t n = s.samples().size();
  if (n < 2 || n < rule.min_samples || rule.precision <= 0) return kNever;
  if (s.precise()) return wall_s;
  // The interval now, at the confidence of the look it would be judged at (this one or the next).
  const double conf = s.confidence();
  const Summary sum = summarize(s.samples(), conf);
  if (!(sum.median_s > 0)) return kNever;
  const double z = normal_quantile(0.5 + conf / 2);
  const double dn = static_cast<double>(n);
  // 1.2533 = sqrt(π/2): the median's standard error over the mean's for normal noise.
  const double half = sum.median_ci_coverage >= conf
                          ? (sum.median_ci_high_s - sum.median_ci_low_s) / 2 / sum.median_s
                          : z * 1.2533 * sum.rel_mad / std::sqrt(dn);
  if (!(half > 0)) return kNever;
  const std::size_t first = look_index(n, rule.min_samples);
  double n_j = static_cast<double>(std::max<std::size_t>(rule.min_samples, 1));
  for (std::size_t j = 1; j < first; ++j) n_j *= 2;
  for (std::size_t j = first; j <= first + 20; ++j, n_j *= 2) {
    const double z_j = normal_quantile(0.5 + sequential_confidence(j, rule.alpha) / 2);
    if (n_j > dn && half * std::sqrt(dn / n_j) * z_j / z <= rule.precision)
      return wall_s * n_j / dn;
  }
  return kNever;
}

bool on_track(std::span<const Sampler> members, double wall_s, double since_s,
              const SpareTime& spare) {
  double by_s = wall_s, check_s = 0, limit_s = 0;
  for (const Sampler& m : members) {
    by_s = std::max(by_s, precise_by_s(m, wall_s));
    check_s = std::max(check_s, m.rule().check_timeout_s());
    limit_s += m.rule().timeout_s;
  }
  return by_s <= std::max(check_s, limit_s) && by_s - since_s <= spare.left_s();
}

StopReason group_should_stop(std::span<const Sampler> members, double wall_s) {
  if (members.empty()) return StopReason::converged;
  bool all_converged = true, all_at_minimum = true;
  double timeout_s = 0, hard_timeout_s = 0;
  std::size_t rounds = members.front().samples().size();
  for (const Sampler& m : members) {
    all_converged = all_converged && m.converged();
    all_at_minimum = all_at_minimum && m.samples().size() >= m.rule().min_samples;
    timeout_s += m.rule().timeout_s;
    hard_timeout_s += m.rule().hard_timeout_s();
    rounds = std::min(rounds, m.samples().size());
  }
  if (all_converged) return StopReason::converged;
  const bool timed_out = wall_s >= timeout_s && all_at_minimum;
  if (rounds >= 2 && (timed_out || wall_s >= hard_timeout_s)) return StopReason::timeout;
  return StopReason::none;
}

}  // namespace bb
