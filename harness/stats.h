// Sample statistics and the stopping rule that decides how many samples a case takes.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace bb {

struct Summary {
  std::size_t samples = 0;
  double min_s = 0, median_s = 0, mean_s = 0, max_s = 0;
  double stddev_s = 0;   // sample standard deviation (n − 1)
  double rel_noise = 0;  // stddev / mean
  double total_s = 0;    // sum of the samples
};

Summary summarize(std::span<const double> samples_s);

// nvbench's rule: sample until the relative noise is at most `max_rel_noise`, once at least
// `min_samples` samples and `min_time_s` of measured time are in; stop regardless when `timeout_s`
// of wall time has passed (with at least 2 samples, so that the noise is defined).
struct StoppingRule {
  std::size_t warmup_samples = 1;
  std::size_t min_samples = 10;
  double min_time_s = 0.5;
  double max_rel_noise = 0.005;
  double timeout_s = 15.0;

  static StoppingRule quick();
  // For one point of a sweep (dozens of sizes, each judged by its median): at most 5 samples,
  // 1/50 of the time, 1/30 of the timeout (≥ 0.1 s), noise target at least 5%.
  StoppingRule for_sweep_point() const;
};

enum class StopReason { none, converged, timeout };
std::string stop_reason_name(StopReason r);

// Incremental: add samples one at a time and ask whether to stop.
class Sampler {
 public:
  explicit Sampler(StoppingRule rule) : rule_(rule) {}
  void add(double sample_s);
  // `wall_s`: wall time since sampling began (after warm-up).
  StopReason should_stop(double wall_s) const;
  Summary summary() const { return summarize(samples_); }
  std::span<const double> samples() const { return samples_; }

 private:
  StoppingRule rule_;
  std::vector<double> samples_;
  double sum_ = 0, mean_ = 0, m2_ = 0;  // Welford's running mean and squared deviations
};

}  // namespace bb
