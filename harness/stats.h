// Sample statistics and the stopping rule that decides how many samples a case takes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "harness/interval.h"

namespace bb {

struct Summary {
  std::size_t samples = 0;
  double min_s = 0, median_s = 0, mean_s = 0, max_s = 0;
  double stddev_s = 0;   // sample standard deviation (n − 1)
  double rel_noise = 0;  // stddev / mean
  double total_s = 0;    // sum of the samples
  // Robust figures: one slow outlier (a preemption) moves the stddev, not these.
  double mad_s = 0;    // median absolute deviation from the median (unscaled)
  double rel_mad = 0;  // 1.4826 · mad / median: ≈ stddev / mean when the noise is normal
  // Distribution-free interval for the median from order statistics (median_interval_ranks) and
  // its actual coverage (≥ 0.95 from 6 samples on; below, [min, max] and what it reaches).
  double median_ci_low_s = 0, median_ci_high_s = 0, median_ci_coverage = 0;
  // The confidence that interval was asked for: 0.95, or the sampler's look's sequential level
  // (sequential_confidence). Checks over a group's rounds judge at the rounds' own level
  // (Measurement::round_confidence), which is this one unless the member went on alone.
  double median_ci_confidence = 0.95;

  Interval median_interval() const {
    return {median_s, median_ci_low_s, median_ci_high_s, median_ci_coverage};
  }
};

// `confidence`: of the median's interval (median_interval_ranks); the sampler passes the
// sequential level of its last look (sequential_confidence).
Summary summarize(std::span<const double> samples_s, double confidence = 0.95);

// Whether the median's interval reaches the confidence it was asked for and lies within
// ±precision of the median: (high − low) / 2 ≤ precision · median.
bool within_precision(const Summary& s, double precision);

// The 1-based ranks (low, high = n + 1 − low) of the order statistics X_(low) ≤ median ≤ X_(high)
// with coverage 1 − 2·P(B ≤ low − 1), B ~ Binomial(n, 1/2): the largest `low` whose coverage is at
// least `confidence` (Conover, Practical Nonparametric Statistics, 3.2). Exact for any continuous
// distribution. When even [X_(1), X_(n)] falls short (n < 6 at 95%), that widest interval and its
// coverage 1 − 2^(1−n). n = 0: ranks 0, coverage 0.
struct MedianRanks {
  std::size_t low = 0, high = 0;
  double coverage = 0;
};
MedianRanks median_interval_ranks(std::size_t n, double confidence = 0.95);

// Whether n samples can give the median an interval at `confidence`: [X_(1), X_(n)] covers with
// 1 − 2^(1−n) (5 samples: 93.75%, 9: 99.61%).
bool median_reachable(std::size_t n, double confidence);

// P(B ≤ k) for B ~ Binomial(n, 1/2).
double binomial_half_cdf(std::size_t n, std::size_t k);

// The median of v (the mean of the middle two for an even count); v must not be empty.
double median_of(std::vector<double> v);
// The median of independent draws (one per round, one per case) with its distribution-free
// order-statistic interval at `confidence` (median_interval_ranks). Throws std::invalid_argument
// when empty.
Interval median_interval_of(std::vector<double> values, double confidence = 0.95);

// The samples a results file keeps, in the order taken: all of them up to `cap`, else `cap` evenly
// spaced in time (indices round(i·(n − 1)/(cap − 1)), first and last kept): a systematic subsample
// keeps a warm-up or a trend visible (drift.h) and counts every stretch of the case alike.
inline constexpr std::size_t kKeptSamples = 1000;
std::vector<double> kept_samples(std::span<const double> samples_s, std::size_t cap = kKeptSamples);
// The rounds a results file keeps of a pairing group's member, in round order: kept_samples (the
// indices round(i·(n − 1)/(cap − 1)) are the same for every member of the group, so that the kept
// rounds stay aligned).
std::vector<double> kept_rounds(std::span<const double> round_samples_s,
                                std::size_t cap = kKeptSamples);

// Sequential looks at the median's interval (the stopping rule below). The rule looks at the
// interval only at sample counts min_samples · 2^(k−1), k = 1, 2, … (look_index), and look k
// judges it at confidence 1 − α_k, with α spent where cases decide: evenly over the first
// kSpendingFlatLooks looks (10 … 1,280 samples from min_samples 10, 5 … 640 for a sweep point;
// kSpendingFlatShare of α, α_k = 0.9α/8), the rest over every later look j = k − 8 as
// 0.1α/(j(j+1)). The α_k sum to α over every look there may ever be, so by the union bound the
// interval the case stops with covers the true median with probability ≥ 1 − α whatever rule chose
// when to stop (α spending fixed in advance over a geometric schedule of looks; README.md "When a
// case stops"). A stop between two scheduled counts (the time limit, nvbench's noise rule) is one
// more look, and takes the next index.
//
// The index of the look made at `n` samples: k where n = min_samples · 2^(k−1); otherwise (between
// scheduled counts) the index of the next scheduled look. 0 below min_samples.
std::size_t look_index(std::size_t n, std::size_t min_samples);
// Whether `n` samples is a scheduled look (min_samples · 2^(k−1)).
bool is_scheduled_look(std::size_t n, std::size_t min_samples);
inline constexpr std::size_t kSpendingFlatLooks = 8;
inline constexpr double kSpendingFlatShare = 0.9;
// A later look's level is never lower (the validator relies on it: a group's rounds' level is at
// most its members'): the last flat look's α share, 0.9α/8, at least the first later look's,
// 0.1α/2.
static_assert(kSpendingFlatShare / kSpendingFlatLooks >= (1 - kSpendingFlatShare) / 2);
// 1 − α_k: the confidence of look k ≥ 1 (above; 1 − 0.9α/8 = 99.44% for looks 1–8 at α = 0.05,
// then 1 − 0.1α/2 = 99.75%, 1 − 0.1α/6 …).
double sequential_confidence(std::size_t look, double alpha);

// nvbench's rule: sample until the relative noise is at most `max_rel_noise`, once at least
// `min_samples` samples and `min_time_s` of measured time are in; stop when `timeout_s` of wall
// time has passed and `min_samples` are in, so that every case has its minimum (the median's
// interval needs 6 samples for 95%). Only the hard cap, `hard_timeout_s()` = 10 × timeout_s (of the
// run's rule: a sweep point's shorter timeout keeps it), stops a case with fewer (at least 2, so
// that the noise is defined): samples that take seconds each.
// Then the rule made for what a verdict needs: stop as well when, at a scheduled look, the median's
// interval at that look's sequential confidence is within ±`precision` of the median
// (half-width / median ≤ precision; `run --precision`). A case that feeds a check keeps sampling
// while the check is undecided (sample_group's `undecided`), up to the same limits.
struct StoppingRule {
  std::size_t warmup_samples = 1;
  std::size_t min_samples = 10;
  double min_time_s = 0.5;
  double max_rel_noise = 0.005;
  double precision = 0.01;  // the median's interval half-width / median to stop at
  double alpha = 0.05;  // spent over the looks: the intervals stopped with cover ≥ 1 − alpha
  // 5 s: criterion.rs's default measurement time; a case on a noisy VM that has not reached its
  // precision by then reports the interval it has (README.md "When a case stops").
  double timeout_s = 5.0;
  double hard_timeout_factor = 10;  // hard cap / timeout_s
  // How long a case or pairing group that feeds an undecided check may sample (sample_group):
  // check_timeout_s() = 3 × timeout_s (the run's: a sweep point's shorter timeout keeps it).
  double check_timeout_factor = 3;
  // What a member of a pairing group samples after the group's rounds (sample_group).
  //  - continue_rounds: where the group timed out and the member is short of its precision, it
  //    goes on alone, its samples after its rounds, one median over both. Only where a sample does
  //    not depend on what ran just before it: the runner's choice for working sets beyond the
  //    last-level cache (memory_level "dram") and GPU samples taken after an L2 flush.
  //  - own_samples: always, its median from its own samples taken back to back after the rounds
  //    (warm-up discarded), as a case sampled alone; the rounds feed the group's checks only. For
  //    a cache-sized host member: back to back it is warmer than in its rounds (the host tiled
  //    attention sweep's n = 256 ran 12–13% faster alone), so a median over both would move with
  //    how many of each a run took, and one taken alone only where the rounds fell short would
  //    move with which path a run took.
  //  - rounds_only: nothing after the rounds (GPU samples without the flush, `run --hot`).
  enum class AfterRounds { continue_rounds, own_samples, rounds_only };
  AfterRounds after_rounds = AfterRounds::continue_rounds;

  // Whether the noise target stops a case only with samples enough for the median's interval to
  // reach its confidence (median_reachable). Not for deterministic samples (a timing simulator),
  // where equal samples are the value itself.
  bool noise_needs_interval = true;

  double check_timeout_s() const { return check_timeout_factor * timeout_s; }

  double hard_timeout_s() const { return hard_timeout_factor * timeout_s; }

  static StoppingRule quick();
  // For a timing simulator (deterministic, minutes of host time per sample): no warm-up, 3
  // samples, stopping there whatever their spread (the spread is reported).
  static StoppingRule simulated();
  // For one point of a sweep (dozens of sizes, each judged by its median): at most 5 samples,
  // 1/50 of the time, 1/10 of the timeout (≥ 0.1 s); the run's noise target and precision, the
  // same hard cap.
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
  // With the minimum samples and time in: the noise target met with enough samples for the
  // median's interval to reach the confidence it is reported at (median_reachable: 9 at 99.44%;
  // the 5 of a sweep point cannot, 93.75%), or at a scheduled look the median's interval within
  // ±precision (at that look's sequential confidence).
  bool converged() const;
  // Whether the median's interval at the current look is within ±precision (false between looks).
  bool precise() const;
  // The confidence the median's interval is reported at when sampling stops now: that of the
  // current look (look_index of the sample count).
  double confidence() const;
  const StoppingRule& rule() const { return rule_; }
  Summary summary() const { return summarize(samples_, confidence()); }
  std::span<const double> samples() const { return samples_; }

 private:
  StoppingRule rule_;
  std::vector<double> samples_;
  double sum_ = 0, mean_ = 0, m2_ = 0;  // Welford's running mean and squared deviations
};

// Spare seconds (issue 27): at its time limit, a case (or pairing group) whose median's interval is
// on track to reach the precision keeps sampling, for as long as the extrapolation says and at most
// to its check limit (StoppingRule::check_timeout_s, as long as an undecided check may take), out
// of a pool of spare seconds that the run's cases share, first come first served (`run --spare`).
// precise_by_s: the wall time (seconds since sampling began) at which the sampler is on track to be
// within ±precision at a scheduled look: the half-width h of its n samples now (taken in `wall_s`)
// at the confidence of the look they would be judged at (confidence()), scaled to a later look j
// of n_j samples by sqrt(n / n_j) · z_j / z (z: the normal quantile of a look's sequential
// confidence), time by n_j / n; the first such look with that ≤ precision. With [min, max] the
// only interval (n < 6 at 95%), h is z · 1.2533 · 1.4826 · MAD / median / sqrt(n) (the median's
// normal-theory standard error). Infinity below min_samples or when no look up to 2^20 more would
// do; `wall_s` when the sampler is precise now.
double precise_by_s(const Sampler& s, double wall_s);

class SpareTime {
 public:
  explicit SpareTime(double seconds) : left_s_(std::max(seconds, 0.0)) {}
  double left_s() const { return left_s_; }
  void spend(double seconds) { left_s_ = std::max(0.0, left_s_ - std::max(seconds, 0.0)); }

 private:
  double left_s_;
};

// Whether a group past its time limit keeps sampling on spare time: every member on track
// (precise_by_s) by the check limit (the larger of the members' check_timeout_s and the sum of
// their timeouts), and the seconds from `since_s` (when the group first went past its limit) to
// then covered by `spare`.
bool on_track(std::span<const Sampler> members, double wall_s, double since_s,
              const SpareTime& spare);

// The stopping rule over a pairing group sampled in rounds (every member has as many samples):
// converged when every member's own rule has converged; timed out when the group's wall time
// reaches the sum of the members' timeouts (what they would have had one after another, so a group
// takes no longer than its members alone) with every member at its minimum, or the sum of their
// hard caps with at least 2 rounds. One member: exactly Sampler::should_stop.
StopReason group_should_stop(std::span<const Sampler> members, double wall_s);

}  // namespace bb
