// Intervals for checks that compare cases: the ratio of two cases' times, the exponent of time
// over sizes. From a pairing group's rounds (Case::pairing_group) where the cases were sampled
// together, else from each case's own median interval.
//
// Why pairs: on a shared machine the slow spells are common to whatever runs in them. A round
// takes one sample of every member within a short time, so a spell multiplies a round's samples
// alike (t_i,r = θ_i · u_r · e_i,r, u_r the round's common factor) and cancels in their ratio
// t_a,r / t_b,r = (θ_a/θ_b) · e_a,r / e_b,r. Rounds are taken one after another, so the per-round
// ratios are independent draws of one distribution (when the spells are no longer than a round,
// and approximately otherwise), and the order-statistic interval of their median
// (stats.h median_interval_ranks) holds with its stated coverage whatever their distribution.
// It covers the median ratio, which is θ_a/θ_b when the two cases' own noise has the same
// distribution (e_a/e_b is then symmetric about 1 in log). The unpaired combination pairs one
// median's low end with the other's high end: it keeps every spell's effect, and its coverage is
// only the product of the two.
#pragma once

#include <span>
#include <vector>

#include "harness/case.h"
#include "harness/interval.h"
#include "harness/stats.h"

namespace bb {

// The median over rounds of t_a / t_b (samples aligned by round, a_s[r] and b_s[r] from round
// r) with its distribution-free order-statistic interval at `confidence` (coverage as stats.h:
// ≥ confidence from 6 rounds on at 95%, [min, max] and 1 − 2^(1−n) below). Throws
// std::invalid_argument for sizes that differ, no rounds, or a time that is not > 0.
Interval paired_ratio_interval(std::span<const double> a_s, std::span<const double> b_s,
                               double confidence = 0.95);

// Unpaired: median_a / median_b with the ends low_a/high_b and high_a/low_b of the medians' own
// intervals, coverage the product of theirs (both hold, so the ratio lies within). A point where a
// median has no interval.
Interval unpaired_ratio_interval(const Summary& a, const Summary& b);

// The exponent e of t ∝ x^e over sizes x (≥ 2 distinct) from rounds: per round, the Theil–Sen
// slope of log t against log x over that round's samples (a round's common factor is a constant
// shift of every log t and cancels in each pairwise slope; the median pairwise slope is unmoved by
// one size hit alone); then the median of the per-round slopes with its order-statistic interval,
// as paired_ratio_interval. rounds_s[j] holds size j's samples, one per round, every size as many.
// Throws std::invalid_argument for mismatched sizes, fewer than 2 distinct x, no rounds, or a
// time that is not > 0.
Interval paired_exponent_interval(std::span<const double> x,
                                  std::span<const std::vector<double>> rounds_s,
                                  double confidence = 0.95);

// The interval a check of a paired quantity is judged on (harness/checks.h's rule): the paired
// interval where it lies inside `band` (PASS), else the hull of the paired and the unpaired
// intervals, so that a FAIL (or BELOW-EXPECTATION) needs both outside on the same side. Pairs
// cancel a slow spell that varies from round to round, not a bias common to every round: on an
// oversubscribed machine a constant wait added to every sample flattens an exponent in every
// round alike, and the narrow paired interval alone would turn that into a false FAIL where the
// unpaired one, as wide as the noise, says too noisy to judge. Value: the paired one; coverage:
// the paired one's inside the band, else the larger (the hull holds whatever either holds).
Interval guarded_interval(const Interval& paired, const Interval& unpaired, const Band& band);

// Whether two measured cases were sampled in the same rounds: the same pairing group's
// measurement, as many rounds kept, judged at the same level (CaseResult::round_confidence, set).
bool sampled_together(const CaseResult& a, const CaseResult& b);

// t_a / t_b: paired_ratio_interval over the kept rounds when sampled together, else
// unpaired_ratio_interval of the summaries. `paired`, when given, says which.
Interval time_ratio_interval(const CaseResult& a, const CaseResult& b, bool* paired = nullptr);

}  // namespace bb
