#include "harness/checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace bb {
namespace {

std::string g(double v) { return fmt::format("{:.4g}", v); }

// The head's fields, with a verdict and reason no number decides (a SKIP or a fault) or to be set.
Check head_only(const CheckHead& head, Verdict verdict = Verdict::skip, std::string reason = "") {
  return {.suite = head.suite,
          .name = head.name,
          .law = head.law,
          .verdict = verdict,
          .reason = std::move(reason),
          .kind = head.kind};
}

// The judgement in words, after the numbers.
std::string judgement(Verdict v) {
  switch (v) {
    case Verdict::pass: return "holds";
    case Verdict::fail: return "violated";
    case Verdict::below_expectation: return "below expectation";
    case Verdict::inconclusive: return "too noisy to judge";
    case Verdict::skip: return "not judged";
  }
  return "not judged";
}

// "2 +/- 0.2", ">= 2.85e-3", "<= 1", "[1, 3]".
std::string band_text(double predicted, const Band& band) {
  const bool low = std::isfinite(band.low), high = std::isfinite(band.high);
  if (low && !high) return fmt::format(">= {:.4g}", band.low);
  if (high && !low) return fmt::format("<= {:.4g}", band.high);
  if (!low && !high) return "any value";
  if (band.low == band.high) return fmt::format("== {:.4g}", band.low);
  const double below = predicted - band.low, above = band.high - predicted;
  if (std::isfinite(predicted) && below >= 0 && above >= 0 &&
      std::fabs(below - above) <= 1e-9 * std::max(std::fabs(predicted), above))
    return g(predicted) + " +/- " + g(above);
  return fmt::format("[{:.4g}, {:.4g}]", band.low, band.high);
}

Check judged(const CheckHead& head, double predicted, const Band& band, const Interval& measured,
             const std::string& extra = "") {
  Check k = head_only(head);
  k.predicted = predicted;
  k.measured = measured.value;
  k.interval = measured;
  k.band = band;
  k.verdict = judge(head.kind, band, measured);
  k.reason = head.quantity + " " + interval_text(measured) + extra + ", " +
             (head.kind == CheckKind::law ? "law " : "expected ") + band_text(predicted, band) +
             ": " + judgement(k.verdict);
  return k;
}

}  // namespace

Verdict judge(CheckKind kind, const Band& band, const Interval& measured) {
  const Verdict outside = kind == CheckKind::law ? Verdict::fail : Verdict::below_expectation;
  const double lo = measured.lo(), hi = measured.hi();
  if (std::isnan(lo) || std::isnan(hi)) return outside;
  if (band.contains(lo) && band.contains(hi)) return Verdict::pass;
  if (hi < band.low || lo > band.high) return outside;
  return Verdict::inconclusive;
}

Check within(const CheckHead& head, double predicted, const Band& band, const Interval& measured) {
  return judged(head, predicted, band, measured);
}

Check at_most(const CheckHead& head, double limit, const Interval& measured) {
  return judged(head, limit, Band::at_most(limit), measured);
}

Check at_least(const CheckHead& head, double limit, const Interval& measured) {
  return judged(head, limit, Band::at_least(limit), measured);
}

Check exact_count(const CheckHead& head, std::uint64_t expected, std::uint64_t counted) {
  const auto e = static_cast<double>(expected);
  return judged(head, e, Band{e, e}, Interval::point(static_cast<double>(counted)));
}

Check point_check(const CheckHead& head, double predicted, const Band& band, double measured,
                  double tolerance, std::string reason) {
  Check k = judged(head, predicted, band, Interval::point(measured));
  k.tolerance = tolerance;
  k.reason = std::move(reason);
  return k;
}

Check fit(const CheckHead& head, double predicted, const Band& band, const Interval& fitted,
          std::size_t points) {
  return judged(head, predicted, band, fitted, " over " + std::to_string(points) + " points");
}

Check skipped(const CheckHead& head, const std::string& reason) {
  return head_only(head, Verdict::skip, reason);
}

Check fault(const CheckHead& head, const std::string& reason) {
  return head_only(head, Verdict::fail, reason);
}

Check pass_proves_little(Check k, const std::string& why) {
  if (k.verdict != Verdict::pass) return k;
  k.verdict = Verdict::skip;
  k.reason += "; " + why;
  return k;
}

std::string interval_text(const Interval& i) {
  if (std::isnan(i.value)) return "not a number";
  if (i.is_point()) return g(i.value);
  std::string s = g(i.value) + " [" + g(i.low) + ", " + g(i.high) + "]";
  if (!std::isnan(i.coverage)) s += fmt::format(" ({:.1f}% CI)", 100 * i.coverage);
  return s;
}

}  // namespace bb
