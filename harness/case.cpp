#include "harness/case.h"

namespace bb {

std::string backend_name(Backend b) { return b == Backend::cuda ? "cuda" : "host"; }

std::optional<Backend> backend_from_name(const std::string& name) {
  if (name == "host") return Backend::host;
  if (name == "cuda") return Backend::cuda;
  return std::nullopt;
}

std::string verdict_name(Verdict v) {
  switch (v) {
    case Verdict::pass: return "PASS";
    case Verdict::fail: return "FAIL";
    case Verdict::skip: return "SKIP";
    case Verdict::inconclusive: return "INCONCLUSIVE";
    case Verdict::below_expectation: return "BELOW-EXPECTATION";
  }
  return "SKIP";
}

std::string check_kind_name(CheckKind k) { return k == CheckKind::law ? "law" : "expectation"; }

}  // namespace bb
