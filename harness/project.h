// `boundbench project A.json --to B.json|DEVICE`: each case's time on another machine, predicted
// from its limiter and the fraction of its bound it reached on A (harness/bound.h). A host case
// keeps its fraction of the bound: t_B = bound_B / fraction_A, with B's ceilings (measured in B's
// run). A CUDA case is scaled by Habitat's wave scaling with the two devices' bandwidth and SMs ×
// clock (theory/bound.h). Where B measured the case, the prediction is held against it.
#pragma once

#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace bb {

struct ProjectedCase {
  std::string name;
  double predicted_s = 0, low_s = 0, high_s = 0;
  std::string limiter;  // on A
  std::string method;   // "bound fraction" or "habitat"
  double fraction_a = 0;
  std::optional<double> measured_s;  // B's median, where B measured the case
  // The case is the measured DRAM ceiling (STREAM's best) of both runs: it projects onto its own
  // time on B (error 0 by construction), so it is reported and kept out of the error.
  bool ceiling_of_both = false;
};

struct Projection {
  std::string from, to;
  std::vector<ProjectedCase> cases;
  std::vector<std::pair<std::string, std::string>> not_projected;  // case, why
  // Median of |predicted / measured − 1| over the cases B measured that reached at least
  // kProjectionMinFraction of their bound on A, less those that are both runs' measured DRAM
  // ceiling; NaN when there are none.
  double median_abs_error = std::numeric_limits<double>::quiet_NaN();
  std::size_t error_cases = 0;
};

// A case far from its bound is held by something the bound does not model; its projection is
// reported but kept out of the error.
inline constexpr double kProjectionMinFraction = 0.5;

// Throws std::invalid_argument with one line when `a` holds no measured samples. A schema-1 run
// (medians, no kept samples, no median interval) projects with point intervals. `b` is a results
// document (load_results) of the target machine.
Projection project_to_run(const nlohmann::json& a, const nlohmann::json& b);
// To a GPU of theory::named_gpus(); throws std::invalid_argument for an unknown name or a run
// without CUDA cases.
Projection project_to_device(const nlohmann::json& a, const std::string& device);

nlohmann::json to_json(const Projection& p);
std::string projection_text(const Projection& p);

}  // namespace bb
