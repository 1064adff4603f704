// The hierarchical bound of a case, its limiter, and its projection to another machine.
// Derivations: theory/README.md, "Bounds, limiters and projection". Units are in the names.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bb::theory {

// One resource's time: the work it must do over the rate it can do it at (bytes / (bytes/s),
// flop / (flop/s), dependent loads × s per load, launches × s per launch). 0 when there is no work.
inline double resource_time_s(double work, double capacity_per_s) {
  return work > 0 ? work / capacity_per_s : 0.0;
}

// A level of the memory hierarchy measured as a plateau of a sweep over working-set size: working
// sets in [from_bytes, to_bytes] were served at `value` (bytes/s for bandwidth, s for latency).
struct LevelPlateau {
  double from_bytes = 0, to_bytes = 0, value = 0;
};

// The plateau that serves a working set of `working_set_bytes`: the one containing it; between two
// plateaus (a transition) the one below, the smaller working set's, which is the faster level, so
// the bound it gives stays a lower bound on time; below the first plateau, the first. nullopt when
// there is no plateau or the working set lies beyond the last one (served by memory). Plateaus are
// sorted by from_bytes.
std::optional<LevelPlateau> plateau_serving(const std::vector<LevelPlateau>& plateaus,
                                            double working_set_bytes);

// The smallest cache level that holds the working set, by capacity (bytes; sorted ascending):
// its index, or nullopt when it is larger than the last (it lives in memory).
std::optional<std::size_t> level_holding(const std::vector<double>& capacities_bytes,
                                         double working_set_bytes);

// A resource's bound time, as the limiter analysis sees it.
struct ResourceBound {
  std::string resource;  // "compute/fp64", "dram", "L2", "latency/L1", "overhead"
  double time_s = 0;
};

// The hierarchical bound: t ≥ max over resources of work / capacity (the roofline's max extended
// to every level and resource; Yang et al., "Hierarchical Roofline Analysis", 2020). Sorted by
// time, largest first: the first is the limiter, the second the runner-up. Zero times dropped.
std::vector<ResourceBound> rank_bounds(std::vector<ResourceBound> bounds);

// Fraction of the bound reached: bound / measured time (1 = at the bound).
inline double fraction_of_bound(double bound_s, double measured_s) { return bound_s / measured_s; }

// Nsight Compute's speed-of-light rule: a kernel reaching under 60% of both the compute and the
// memory speed of light is latency-bound (or, for tiny work, overhead-bound): "Nsight Compute
// Kernel Profiling Guide", section "GPU Speed Of Light Throughput".
inline constexpr double kSpeedOfLightFraction = 0.6;
inline bool below_speed_of_light(double compute_fraction, double memory_fraction) {
  return compute_fraction < kSpeedOfLightFraction && memory_fraction < kSpeedOfLightFraction;
}

// Projection at a kept fraction of the bound: a case that reached fraction f of its bound on
// machine A takes bound_B / f on machine B (same limiter: t_B = t_A × capacity_A / capacity_B).
inline double projected_time_s(double bound_on_b_s, double fraction_on_a) {
  return bound_on_b_s / fraction_on_a;
}

// Habitat's wave scaling (Yu et al., USENIX ATC'21, section 4.1) without its wave-count term:
// t_B = t_A × (BW_A / BW_B)^γ × (f_A·SMs_A / (f_B·SMs_B))^(1 − γ), γ ∈ [0, 1] the kernel's memory-
// boundedness.
double habitat_scaled_time_s(double time_a_s, double bandwidth_a, double bandwidth_b,
                             double clock_sms_a, double clock_sms_b, double gamma);
// The same scaling for work that differs between the two runs (a grid sized to the device: blocks
// = k × SMs): the memory part's time grows with the bytes, the compute part's with the flop:
// (bytes_B / bytes_A)^γ × (flop_B / flop_A)^(1 − γ); a ratio with a zero side is 1. (Our
// extension: Habitat projects one kernel at one size.)
double habitat_work_ratio(double bytes_a, double bytes_b, double flop_a, double flop_b,
                          double gamma);
// γ from the kernel's arithmetic intensity I against the ridge point R of machine A: 1 at I = 0
// (pure memory), falling linearly to 0 at the ridge and beyond: γ = clamp(1 − I/R, 0, 1). (Our
// form; Habitat derives γ from the intensity against the ridge as well.)
double habitat_gamma(double intensity_flop_per_byte, double ridge_flop_per_byte);

// A GPU by name, for `project --to DEVICE`: SM count, maximum SM clock and DRAM bandwidth from the
// datasheet (theory/peaks.h holds the per-SM FLOP rates of its architecture).
struct NamedGpu {
  std::string_view name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  double sm_clock_hz = 0;
  double dram_bytes_per_s = 0;
  std::string_view source;
};
const std::vector<NamedGpu>& named_gpus();
// Case-insensitive exact name ("H100-SXM"); nullptr when unknown.
const NamedGpu* find_named_gpu(std::string_view name);

}  // namespace bb::theory
