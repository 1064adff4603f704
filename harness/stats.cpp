#include "harness/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace bb {

Summary summarize(std::span<const double> samples_s) {
  Summary s;
  s.samples = samples_s.size();
  if (s.samples == 0) return s;
  std::vector<double> sorted(samples_s.begin(), samples_s.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  s.min_s = sorted.front();
  s.max_s = sorted.back();
  s.median_s = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  s.total_s = std::accumulate(sorted.begin(), sorted.end(), 0.0);
  s.mean_s = s.total_s / static_cast<double>(n);
  if (n > 1) {
    double ss = 0;
    for (double x : sorted) ss += (x - s.mean_s) * (x - s.mean_s);
    s.stddev_s = std::sqrt(ss / static_cast<double>(n - 1));
  }
  s.rel_noise = s.mean_s > 0 ? s.stddev_s / s.mean_s : 0.0;
  return s;
}

StoppingRule StoppingRule::quick() {
  StoppingRule r;
  r.min_samples = 5;
  r.min_time_s = 0.05;
  r.max_rel_noise = 0.02;
  r.timeout_s = 1.0;
  return r;
}

StoppingRule StoppingRule::for_sweep_point() const {
  StoppingRule r = *this;
  r.min_samples = std::min<std::size_t>(min_samples, 5);
  r.min_time_s = min_time_s / 50;
  r.timeout_s = std::max(timeout_s / 30, 0.1);
  r.max_rel_noise = std::max(max_rel_noise, 0.05);
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

StopReason Sampler::should_stop(double wall_s) const {
  const std::size_t n = samples_.size();
  if (n >= rule_.min_samples && sum_ >= rule_.min_time_s && n >= 2) {
    const double stddev = std::sqrt(m2_ / static_cast<double>(n - 1));
    if (mean_ > 0 && stddev / mean_ <= rule_.max_rel_noise) return StopReason::converged;
  }
  if (wall_s >= rule_.timeout_s && n >= 2) return StopReason::timeout;
  return StopReason::none;
}

}  // namespace bb
