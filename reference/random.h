// Deterministic, index-addressable test data: x_i = f(seed, i), so any thread (or the GPU) can make
// any element, and every run sees the same inputs. Values are non-uniform with outliers.
#pragma once

#include <cstdint>

namespace bb::reference {

// SplitMix64 finaliser (Steele, Lea & Flood, "Fast splittable pseudorandom number generators",
// OOPSLA 2014): a bijective mix of 64 bits.
constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform in [0, 1) with 53 random bits.
constexpr double uniform01(std::uint64_t seed, std::uint64_t i) {
  return static_cast<double>(splitmix64(seed * 0x2545F4914F6CDD1Dull + i) >> 11) * 0x1.0p-53;
}

// Positive test values: mostly in [0.5, 2), one in 64 an outlier scaled by 2^±12. Positive so that
// sums like b + s*c never cancel (relative error bounds then hold element-wise).
constexpr double positive_test_value(std::uint64_t seed, std::uint64_t i) {
  const std::uint64_t r = splitmix64(seed ^ (i * 0xD1B54A32D192ED03ull));
  const double base = 0.5 + 1.5 * static_cast<double>(r >> 11) * 0x1.0p-53;
  switch (r & 63) {
    case 0: return base * 0x1.0p12;
    case 1: return base * 0x1.0p-12;
    default: return base;
  }
}

}  // namespace bb::reference
