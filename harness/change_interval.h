// The change of one case between two runs, from both runs' samples: the ratio new/base of typical
// times with a distribution-free confidence interval, one-sided tests against a ±threshold, and the
// Benjamini–Hochberg step-up rule that holds the false discovery rate over many cases.
#pragma once

#include <cstddef>
#include <limits>
#include <span>
#include <vector>

namespace bb {

struct RatioInterval {
  double ratio = 1;  // exp(Hodges–Lehmann shift of log times): new/base
  double low = 1, high = 1;
  double coverage = 0;  // nominal coverage of [low, high] (normal approximation of U)
  // One-sided p-values of "the ratio exceeds 1 + threshold" (slower) and "the ratio is below
  // 1 − threshold" (faster): the Mann–Whitney test of log(new) − log(1 ± threshold) vs log(base).
  double p_slower = 1, p_faster = 1;
};

// Samples per side that the interval uses: more are thinned to this many evenly spaced order
// statistics (sorted: in any order), so that n1·n2 pairwise differences stay ≤ 40,000.
inline constexpr std::size_t kMaxRankSamples = 200;

// Hodges–Lehmann estimate of the shift between log(next) and log(base) — the median of all
// n1·n2 differences log y_j − log x_i — with the Moses interval [D_(k), D_(n1·n2+1−k)],
// k = ⌊n1·n2/2 − z·σ_U⌋ (σ_U² = n1·n2·(n1+n2+1)/12; Hollander & Wolfe, Nonparametric Statistical
// Methods, 4.3), exponentiated. Needs ≥ 2 positive samples each side; the result is the ratio, its
// interval at `confidence` (the widest, [D_(1), D_(N)], when k < 1) and the threshold tests.
RatioInterval ratio_interval(std::span<const double> base_s, std::span<const double> next_s,
                             double threshold, double confidence = 0.95);

// Run-level noise: on a shared machine a whole run is slowed by whatever else ran meanwhile, by a
// different amount per case, which no single run's samples show. Estimated from the cases
// themselves, as Efron's empirical null (Large-Scale Simultaneous Hypothesis Testing, JASA 2004),
// with the null's tails measured too: two honest full runs of a 2-vCPU VM moved 26% of their cases
// by more than ±25% while the middle half moved by < 7% (results/compare_bench), far heavier
// tails than a normal's. The deviations d = |log r − median log r| of the cases' ratios give the
// tail weight R = q90(d)/q50(d); a normal has R = z(0.95)/z(0.75) = 2.44; heavier tails are
// Student's t with the ν whose t(0.95; ν)/t(0.75; ν) = R (quantile matching; the t as a robust
// error model: Lange, Little & Taylor, JASA 1989), scale s = q50(d)/t(0.75; ν) (1.4826·MAD when
// normal). Less what the cases' own intervals explain: s_b² = max(0, s² − median(se²)),
// se = log(high/low) / (2·z). A change that moves every case alike leaves s small; runs that
// scatter widely make s_b large and their tails make ν small. Scale 0 with fewer than
// kMinCasesForRunNoise cases.
inline constexpr std::size_t kMinCasesForRunNoise = 10;
inline constexpr double kMinRunNoiseDof = 0.3;  // ν is not fitted below: tails this heavy or more
struct RunNoise {
  double scale = 0;                                      // s_b, log units
  double dof = std::numeric_limits<double>::infinity();  // ν; infinity: normal tails
};
RunNoise run_level_noise(std::span<const RatioInterval> cases, double confidence = 0.95);

// `r` with the run-level noise added to each side of its interval in quadrature (s_b times the t
// quantile), and its threshold p-values from Student's t with the noise's ν,
// se_total = sqrt(se² + s_b²). Unchanged when s_b = 0.
RatioInterval widened(const RatioInterval& r, const RunNoise& noise, double threshold,
                      double confidence = 0.95);

// The median of the cases' log ratios, exponentiated, with its order-statistics interval
// (stats.h median_interval_ranks): how the run moved as a whole. Cases share the machine's state,
// so this is the machine's drift as much as the code's.
struct MedianChange {
  double ratio = 1, low = 1, high = 1, coverage = 0;
  std::size_t cases = 0;
};
MedianChange median_change(std::span<const RatioInterval> cases, double confidence = 0.95);

// Benjamini–Hochberg adjusted p-values (Benjamini & Hochberg 1995): q_(i) = min over j ≥ i of
// p_(j)·m/j, capped at 1; rejecting every q_i ≤ α holds the false discovery rate at α. NaN p-values
// stay NaN and are not counted in m.
std::vector<double> benjamini_hochberg(std::span<const double> p);

}  // namespace bb
