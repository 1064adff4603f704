// What the attention suite's host and CUDA cases share: the case name, the shape the formulas take
// and the params written to the results.
#include <string>

#include "suites/attention/attention_suite.h"

namespace bb::suites {

using reference::AttentionDims;

std::string attention_case_name(const std::string& kernel, const std::string& dtype,
                                Backend backend, const AttentionDims& s, bool sweep) {
  std::string name = kernel + "/" + dtype + "/" + backend_name(backend) + "/";
  if (!sweep)
    name += std::string(s.causal ? "causal-" : "") + "gqa" + std::to_string(s.heads) + "x" +
            std::to_string(s.kv_heads) + "/";
  return name + "d" + std::to_string(s.d) + "/n" + std::to_string(s.n);
}

theory::AttentionShape attention_shape(const AttentionDims& s, double bytes_per_element) {
  return {static_cast<double>(s.batch),
          static_cast<double>(s.heads),
          static_cast<double>(s.kv_heads),
          static_cast<double>(s.n),
          static_cast<double>(s.d),
          s.causal,
          bytes_per_element};
}

nlohmann::json attention_params(const std::string& kernel, const std::string& dtype,
                                const AttentionDims& s, bool sweep) {
  return {{"kernel", kernel}, {"dtype", dtype},     {"n", s.n},
          {"d", s.d},         {"heads", s.heads},   {"kv_heads", s.kv_heads},
          {"batch", s.batch}, {"causal", s.causal}, {"sweep", sweep}};
}

}  // namespace bb::suites
