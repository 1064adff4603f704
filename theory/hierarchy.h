// The memory hierarchy from measurements alone: plateaus and steps in a latency or time-per-byte
// curve over working-set size, cache capacities read off the steps, and the access-granularity
// (sector) model of strided access. Derivations: theory/README.md, "Memory hierarchy".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "theory/work.h"

namespace bb::theory {

// A run of consecutive sizes over which the cost stays level: one level of the hierarchy.
struct Plateau {
  std::size_t first = 0, last = 0;  // indices into the curve, inclusive
  double level = 0;                 // median cost over the run (ns, or s per byte)
};

// A rise between two plateaus. A cache that holds working sets up to C bytes serves every access
// while S <= C; under LRU-like replacement a cyclic sweep over S > C bytes misses on (nearly) every
// access, so the cost leaves the lower plateau at S = C and the midpoint between the two levels
// (geometric) is crossed just above C. The crossing, interpolated in log(size), is the capacity.
struct CacheStep {
  std::size_t lower = 0, upper = 0;  // indices of the plateaus in CacheCurve::plateaus
  double capacity_bytes = 0;
  double ratio = 0;  // upper level / lower level
};

struct CacheCurve {
  std::vector<Plateau> plateaus;
  std::vector<CacheStep> steps;
};

struct StepRule {
  double flat_per_octave = 1.25;  // a plateau rises by at most this factor per doubling of size
  double min_step_ratio = 1.5;    // a clear step at least multiplies the cost by this
  std::size_t min_plateau_points = 2;
};

// `sizes_bytes` strictly increasing; `cost` > 0 rises as data falls out of a level (latency, or
// time per byte = 1 / bandwidth). Throws std::invalid_argument on unsorted sizes or costs <= 0.
CacheCurve detect_cache_steps(const std::vector<double>& sizes_bytes,
                              const std::vector<double>& cost, const StepRule& rule = {});

// The verdict of one reported capacity against the detected steps: the nearest step (in log size)
// within `search_factor` of the reported capacity is compared with tolerance `factor`.
struct CapacityMatch {
  std::optional<double> detected_bytes;  // none: no clear step near the reported capacity
  double ratio = 0;                      // detected / reported
  bool within = false;                   // max(ratio, 1/ratio) <= factor
};
CapacityMatch match_capacity(const CacheCurve& curve, double reported_bytes, double factor = 1.5,
                             double search_factor = 4.0);

// Where a staircase leaves its last cache for memory. `memory_level`: the last plateau's level
// (the sweep ends well past the last cache); `cache_level`: the last plateau before it at least
// rule.min_step_ratio below it (a level in between, too close to memory to be a clear step of its
// own, e.g. the far partition of a split GPU L2, is passed over). The exit is where the cost
// crosses their geometric midpoint for good: every point from `above_bytes` on is at or over it,
// `below_bytes` (the point before) under it. Under LRU-like replacement the capacity lies in
// [below_bytes, above_bytes): the sweep's density is the interval. None without two such plateaus.
struct LastLevelExit {
  double cache_level = 0, memory_level = 0, threshold = 0;
  double below_bytes = 0, above_bytes = 0;
  double crossing_bytes = 0;  // the midpoint's crossing, interpolated in log-log
};
std::optional<LastLevelExit> last_level_exit(const std::vector<double>& sizes_bytes,
                                             const std::vector<double>& cost,
                                             const CacheCurve& curve, const StepRule& rule = {});

// Sector model of strided reads (CUDA C++ Best Practices Guide, "Coalesced Access to Global
// Memory"): `accesses` reads of `element_bytes` each, `stride_elements` apart, touch
// min(accesses, ceil(span / sector)) … exactly: every sector that holds at least one element read.
// Bytes moved = sectors touched x sector_bytes. On GPUs the sector is 32 bytes; on CPUs the unit is
// the 64-byte cache line.
double strided_bytes_moved(std::uint64_t accesses, std::uint64_t stride_elements,
                           std::uint64_t element_bytes, std::uint64_t sector_bytes);

// Strided reads under the sector model: the bytes above, one add per element read
// (accesses elements, accesses flop).
WorkCount strided_read_work(std::uint64_t accesses, std::uint64_t stride_elements,
                            std::uint64_t element_bytes, std::uint64_t sector_bytes);

// A read sweep: every element of a working set read `passes` times and added once (bytes read =
// working set × passes; flop = elements = working set / element size × passes).
inline WorkCount read_work(double working_set_bytes, double element_bytes, double passes) {
  const double elements = working_set_bytes / element_bytes * passes;
  return {working_set_bytes * passes, 0, elements, elements};
}

// A host<->device copy over the link: each byte crosses it once, counted as read, nothing written
// back (bytes_read = bytes; elements = bytes / element size).
inline WorkCount link_copy_work(double bytes, double element_bytes) {
  return {bytes, 0, 0, bytes / element_bytes};
}

// Human-readable size: "48 KiB", "2 MiB", "1.5 GiB".
std::string format_bytes(double bytes);

}  // namespace bb::theory
