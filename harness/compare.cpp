#include "harness/compare.h"

#include <fmt/format.h>

namespace bb {

std::string describe_mismatch(std::size_t i, double out, double ref) {
  return fmt::format("i={}: out={:.17g} ref={:.17g}", i, out, ref);
}

std::string Comparison::describe() const {
  std::string s = fmt::format("{}/{} mismatches, max abs error {:.3g}, max rel error {:.3g}{}",
                              mismatches, checked, max_abs_error, max_rel_error,
                              reference_trivial ? ", reference output is trivial (all equal)" : "");
  for (const auto& m : first_mismatches) s += "; " + m;
  return s;
}

}  // namespace bb
