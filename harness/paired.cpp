#include "harness/paired.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "harness/fit.h"

namespace bb {

Interval paired_ratio_interval(std::span<const double> a_s, std::span<const double> b_s,
                               double confidence) {
  if (a_s.size() != b_s.size() || a_s.empty())
    throw std::invalid_argument("paired ratio: the cases need as many rounds, at least one");
  std::vector<double> ratios(a_s.size());
  for (std::size_t r = 0; r < a_s.size(); ++r) {
    if (!(a_s[r] > 0 && b_s[r] > 0)) throw std::invalid_argument("paired ratio: a time <= 0");
    ratios[r] = a_s[r] / b_s[r];
  }
  return median_interval_of(std::move(ratios), confidence);
}

Interval unpaired_ratio_interval(const Summary& a, const Summary& b) {
  const double value = a.median_s / b.median_s;
  if (!(a.median_ci_low_s > 0 && b.median_ci_low_s > 0)) return Interval::point(value);
  return {value, a.median_ci_low_s / b.median_ci_high_s, a.median_ci_high_s / b.median_ci_low_s,
          a.median_ci_coverage * b.median_ci_coverage};
}

Interval paired_exponent_interval(std::span<const double> x,
                                  std::span<const std::vector<double>> rounds_s,
                                  double confidence) {
  if (x.size() != rounds_s.size() || x.empty())
    throw std::invalid_argument("paired exponent: one series of rounds per size");
  const std::size_t rounds = rounds_s.front().size();
  for (const auto& series : rounds_s)
    if (series.size() != rounds || rounds == 0)
      throw std::invalid_argument("paired exponent: every size needs as many rounds, at least 1");
  std::vector<double> slopes(rounds), t(x.size());
  for (std::size_t r = 0; r < rounds; ++r) {
    for (std::size_t j = 0; j < x.size(); ++j) t[j] = rounds_s[j][r];
    slopes[r] = theil_sen_power_law_fit(x, t, confidence).slope;
  }
  return median_interval_of(std::move(slopes), confidence);
}

Interval guarded_interval(const Interval& paired, const Interval& unpaired, const Band& band) {
  const double lo = paired.lo(), hi = paired.hi();
  if (band.contains(lo) && band.contains(hi)) return paired;
  const double coverage = std::isnan(unpaired.coverage) ? paired.coverage
                          : std::isnan(paired.coverage)
                              ? unpaired.coverage
                              : std::max(paired.coverage, unpaired.coverage);
  return {paired.value, std::min(lo, unpaired.lo()), std::max(hi, unpaired.hi()), coverage};
}

bool sampled_together(const CaseResult& a, const CaseResult& b) {
  return !a.paired_group.empty() && a.paired_group == b.paired_group &&
         a.paired_run == b.paired_run && !a.round_samples_s.empty() &&
         a.round_samples_s.size() == b.round_samples_s.size() && a.round_confidence > 0 &&
         a.round_confidence == b.round_confidence;
}

Interval time_ratio_interval(const CaseResult& a, const CaseResult& b, bool* paired) {
  const bool together = sampled_together(a, b);
  if (paired) *paired = together;
  return together ? paired_ratio_interval(a.round_samples_s, b.round_samples_s, a.round_confidence)
                  : unpaired_ratio_interval(a.summary, b.summary);
}

}  // namespace bb
