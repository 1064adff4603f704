// The one comparison rule of boundbench: |out − ref| ≤ atol + rtol·|ref|, NaN always a mismatch,
// max abs/rel error always reported, at most 10 mismatches kept for printing.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace bb {

struct Tolerance {
  double atol = 0;
  double rtol = 0;
};

struct Comparison {
  Tolerance tolerance;
  std::size_t checked = 0;
  std::size_t mismatches = 0;
  double max_abs_error = 0;
  double max_rel_error = 0;       // over elements with ref ≠ 0
  bool reference_trivial = true;  // every reference value equal: a test on it proves little
  std::vector<std::string> first_mismatches;  // "i=12: out=… ref=…", at most 10

  bool ok() const { return mismatches == 0 && !reference_trivial && checked > 0; }
  std::string describe() const;  // one line for logs and check reasons
};

inline constexpr std::size_t kMaxMismatchesShown = 10;

std::string describe_mismatch(std::size_t i, double out, double ref);

template <class Out, class Ref>
Comparison compare(std::span<const Out> out, std::span<const Ref> ref, Tolerance tol) {
  Comparison c;
  c.tolerance = tol;
  const std::size_t n = std::min(out.size(), ref.size());
  c.checked = n;
  if (out.size() != ref.size()) {
    c.mismatches = std::max(out.size(), ref.size()) - n;
    c.first_mismatches.push_back("size: out " + std::to_string(out.size()) + " vs ref " +
                                 std::to_string(ref.size()));
  }
  const double first = n ? static_cast<double>(ref[0]) : 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double o = static_cast<double>(out[i]), r = static_cast<double>(ref[i]);
    if (r != first) c.reference_trivial = false;
    const double err = std::fabs(o - r);
    // NaN never matches; an infinity matches only the same infinity (a tolerance relative to an
    // infinite reference would accept anything).
    const bool finite = std::isfinite(o) && std::isfinite(r);
    const bool bad = std::isnan(o) || std::isnan(r) ||
                     (finite ? !(err <= tol.atol + tol.rtol * std::fabs(r)) : o != r);
    if (!std::isnan(err)) {
      c.max_abs_error = std::max(c.max_abs_error, err);
      if (r != 0) c.max_rel_error = std::max(c.max_rel_error, err / std::fabs(r));
    }
    if (bad) {
      if (c.first_mismatches.size() < kMaxMismatchesShown)
        c.first_mismatches.push_back(describe_mismatch(i, o, r));
      ++c.mismatches;
    }
  }
  return c;
}

}  // namespace bb
