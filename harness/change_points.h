// Change points in one case's history: the runs where its run-level median moved and stayed moved.
// A penalised step fit by binary segmentation (Scott & Knott 1974; the L2 cost of Killick,
// Fearnhead & Eckley 2012 with a BIC-type penalty) on the log medians, made robust to the shared
// machine's heavy tails, then a Student t test of each step on the runs around it; the tests'
// p-values are later held to a false-discovery rate across cases (change_interval.h
// benjamini_hochberg).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace bb {

struct StepOptions {
  // Runs on each side of a step at the least: a one- or two-run spell that reverts is never a
  // step, and a step is called once the third run after it is in (two commits of delay).
  std::size_t min_segment_runs = 3;
  // A split is kept when it lowers the squared error by more than penalty·σ²·ln(n).
  double penalty = 3.0;
  // The test compares at most this many runs on each side of a step (a slow drift far from the
  // step does not enter its ratio).
  std::size_t window_runs = 30;
  double confidence = 0.95;  // of the ratio's interval
};

struct Step {
  std::size_t position = 0;  // index of the first run after the step
  double ratio = 1;          // exp(mean log after − mean log before), on the robust values
  double low = 1, high = 1;  // its interval at `confidence`
  double p_value = 1;        // t test of no step in the runs around it, × the splits tried
  std::size_t runs_before = 0, runs_after = 0;
};

// The robust noise of a series from its successive differences Δx, which a few steps barely move
// (a step changes one difference): the larger of 1.4826·MAD(Δx)/√2 and the root mean square of the
// 90% smallest |Δx| / √(2·0.623) (normal-consistent; not 0 when most medians tie). Floored at 1e-4.
double difference_noise(std::span<const double> x);

// `x`: log run-level medians in measurement order; `can_split[i]` (same length, or empty for all):
// whether a step may fall before run i (false between runs of the same commit). Each value is first
// clipped to the median of the 5 runs around it ±2σ, so a far outlier weighs as a 2σ one. Steps are
// returned in position order, each with its p-value (not yet held to any rate).
std::vector<Step> find_steps(std::span<const double> x, std::span<const std::uint8_t> can_split,
                             const StepOptions& opts = {});

}  // namespace bb
