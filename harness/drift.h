// Drift within one case: a trend or a warm-up in its samples, read in the order they were taken.
// Distribution-free (ranks only), so one preempted sample cannot make a trend.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace bb {

// Mann–Kendall: S = Σ_{i<j} sgn(x_j − x_i), Var S = [n(n−1)(2n+5) − Σ_t t(t−1)(2t+5)]/18 over
// groups of t tied values, z = (S − sgn S)/√Var S (continuity corrected), two-sided p
// (Kendall, Rank Correlation Methods, 1975; Gilbert, Statistical Methods for Environmental
// Pollution Monitoring, 1987, 16.4).
struct MannKendall {
  double s = 0, var_s = 0, z = 0, p = 1;
};
MannKendall mann_kendall(std::span<const double> x);

// Sen's slope over the sample index: the median of the N = n(n−1)/2 pairwise slopes
// (x_j − x_i)/(j − i), with the interval [Q_(k), Q_(N+1−k)], k = max(1, ⌊(N − z·√Var S)/2⌋)
// (Sen, JASA 63, 1968; Gilbert 1987, 16.5.1), and the intercept median(x) − slope·(n − 1)/2 (as
// scipy.stats.theilslopes). Selection, not sorting: O(N) for the 499,500 slopes of 1000 samples.
struct SenSlope {
  double slope = 0, low = 0, high = 0, intercept = 0;
};
SenSlope sen_slope(std::span<const double> x, double var_s, double confidence = 0.95);

// A warm-up: are the first r samples slower than the rest? One-sided Mann–Whitney of the first r
// against the other n − r, normal approximation without tie correction (conservative: U with one
// small side has lighter tails than the normal, and ties only shrink Var U), for r = 2, 4, 8, …
// ≤ n/4, Bonferroni over those lengths. Reports the length with the smallest p.
struct Warmup {
  std::size_t samples = 0;  // r
  double ratio = 1;         // median of the first r / median of the rest
  double p = 1;             // Bonferroni adjusted
};
Warmup warmup_test(std::span<const double> x);

// The drift of one case's samples: Mann–Kendall for a trend; its size from Sen's slope, as the
// relative change from the first sample to the last along Sen's line, slope · (n − 1) / intercept
// (the same intercept for the interval's ends); and the warm-up test. p = min(1, 2·min(p_trend,
// p_warmup)) (Bonferroni over the two): what a run's false discovery rate control (kDriftFdr) is
// applied to.
struct Drift {
  std::size_t samples = 0;
  MannKendall trend;
  double relative_change = 0, low = 0, high = 0;
  double coverage = 0;  // of [low, high]: nominal (normal approximation of S)
  Warmup warmup;
  double p = 1;
};
inline constexpr std::size_t kMinDriftSamples = 10;  // fewer: no test (the normal approximations)
inline constexpr double kDriftFdr = 0.01;  // Benjamini–Hochberg level across a run's cases
// Empty below kMinDriftSamples samples or with a non-positive start.
std::optional<Drift> sample_drift(std::span<const double> samples_s, double confidence = 0.95);
// The entry's "drift" object (results/schema.json).
nlohmann::json drift_json(const Drift& d);

// The cases of a results file's `benchmarks` whose samples drift: Benjamini–Hochberg over their
// drift p at kDriftFdr, one line each, "suite/case: trend +10.0% over the case [+8.0%, +12.0%]
// (Mann-Kendall p 1.0e-12), warm-up: first 4 samples x2.00 (p 3.0e-04); q 2.0e-11". A finding,
// not a failure. Empty when none drift.
std::vector<std::string> drifting_cases(const nlohmann::json& benchmarks);

}  // namespace bb
