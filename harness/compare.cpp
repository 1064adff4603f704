#include "harness/compare.h"

#include <cstdio>

namespace bb {

std::string describe_mismatch(std::size_t i, double out, double ref) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "i=%zu: out=%.17g ref=%.17g", i, out, ref);
  return buf;
}

std::string Comparison::describe() const {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%zu/%zu mismatches, max abs error %.3g, max rel error %.3g%s",
                mismatches, checked, max_abs_error, max_rel_error,
                reference_trivial ? ", reference output is trivial (all equal)" : "");
  std::string s = buf;
  for (const auto& m : first_mismatches) s += "; " + m;
  return s;
}

}  // namespace bb
