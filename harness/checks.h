// One check vocabulary: each builder derives the verdict from the numbers and their interval, so no
// caller sets a verdict apart from its numbers. The rule, for a measured interval against the band
// a law or an expectation allows:
//   inside the band                       PASS
//   entirely outside                      FAIL (law) or BELOW-EXPECTATION (expectation)
//   straddling an end                     INCONCLUSIVE: too noisy to judge
// A point measurement (an exact quantity: a count, a rounding error, t_min) is a degenerate
// interval, so it is PASS or outside, never INCONCLUSIVE; a NaN is outside.
#pragma once

#include <cstdint>
#include <string>

#include "harness/case.h"
#include "harness/interval.h"

namespace bb {

// What every check says about itself.
struct CheckHead {
  std::string suite;
  std::string name;
  std::string law;  // the formula, as text
  CheckKind kind = CheckKind::law;
  std::string quantity = "measured";  // the measured quantity's name, for the reason
};

// The rule above.
Verdict judge(CheckKind kind, const Band& band, const Interval& measured);

// `measured` (with its interval) within `band` around `predicted`.
Check within(const CheckHead& head, double predicted, const Band& band, const Interval& measured);
// One-sided: measured ≤ limit, measured ≥ limit.
Check at_most(const CheckHead& head, double limit, const Interval& measured);
Check at_least(const CheckHead& head, double limit, const Interval& measured);
// An exact count: `counted` == `expected` (e.g. mismatches == 0).
Check exact_count(const CheckHead& head, std::uint64_t expected, std::uint64_t counted);
// A point measurement (an exact quantity: a count, a rounding error, a fitted figure judged as it
// is) within `band`, told in the caller's own words: the verdict still follows from the numbers
// (PASS or outside, never INCONCLUSIVE); `tolerance` is recorded as given.
Check point_check(const CheckHead& head, double predicted, const Band& band, double measured,
                  double tolerance, std::string reason);
// A fitted quantity (an exponent, a slope: harness/fit.h) with its interval, over `points`.
Check fit(const CheckHead& head, double predicted, const Band& band, const Interval& fitted,
          std::size_t points);

// Not testable here (no GPU, a bound unknown, a premise that does not hold): SKIP with the reason.
Check skipped(const CheckHead& head, const std::string& reason);
// A fault no number decides (an exception, a test whose own setup is broken): FAIL.
Check fault(const CheckHead& head, const std::string& reason);
// A PASS that proves little (judged against part of a bound only) becomes SKIP, saying why; any
// other verdict stands.
Check pass_proves_little(Check k, const std::string& why);

// "1.75 [1.52, 2.1] (95.0% CI)", or "1.75" for a point.
std::string interval_text(const Interval& i);

}  // namespace bb
