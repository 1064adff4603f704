// The roofline model (Williams, Waterman & Patterson, "Roofline", CACM 52(4), 2009).
// Derivations: theory/README.md. Units are in the names; all values are SI (s, byte, flop).
#pragma once

#include <algorithm>

namespace bb::theory {

// Arithmetic intensity I = flop / bytes moved to and from the memory level in question.
inline double arithmetic_intensity_flop_per_byte(double flop, double bytes) { return flop / bytes; }

// Ridge point I* = peak / BW: intensities below it are memory-bound, above it compute-bound.
inline double ridge_point_flop_per_byte(double peak_flop_per_s, double bandwidth_bytes_per_s) {
  return peak_flop_per_s / bandwidth_bytes_per_s;
}

// Attainable performance P(I) = min(peak, I × BW).
inline double attainable_flop_per_s(double intensity_flop_per_byte, double peak_flop_per_s,
                                    double bandwidth_bytes_per_s) {
  return std::min(peak_flop_per_s, intensity_flop_per_byte * bandwidth_bytes_per_s);
}

struct RooflineTime {
  double compute_s = 0;  // flop / peak
  double memory_s = 0;   // bytes / BW
  double bound_s = 0;    // max of the two: no execution can be faster
  bool memory_bound = false;
};

// Lower bound on execution time: t ≥ max(flop / peak, bytes / BW).
inline RooflineTime roofline_time(double flop, double bytes, double peak_flop_per_s,
                                  double bandwidth_bytes_per_s) {
  RooflineTime t;
  t.compute_s = flop > 0 ? flop / peak_flop_per_s : 0.0;
  t.memory_s = bytes > 0 ? bytes / bandwidth_bytes_per_s : 0.0;
  t.bound_s = std::max(t.compute_s, t.memory_s);
  t.memory_bound = t.memory_s >= t.compute_s;
  return t;
}

}  // namespace bb::theory
