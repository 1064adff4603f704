// Summation algorithms as written in Higham (2002, ch. 4), in the element type T, and the sum they
// are judged against: long double (x87, 64-bit significand), whose own error ≤ γ_{n−1}(2^-64)·Σ|x|
// is added to every bound it is compared with (for fp32 data 2^-40 of u, for fp64 2^-11).
#pragma once

#include <cmath>
#include <cstddef>
#include <span>

namespace bb::reference {

template <class T>
T recursive_sum(std::span<const T> x) {
  T s = 0;
  for (T v : x) s += v;
  return s;
}

// A balanced tree: sum of the two halves, each summed the same way (depth ⌈log2 n⌉).
template <class T>
T pairwise_sum(std::span<const T> x) {
  if (x.empty()) return 0;
  if (x.size() == 1) return x[0];
  const std::size_t h = (x.size() + 1) / 2;
  return pairwise_sum(x.first(h)) + pairwise_sum(x.subspan(h));
}

// Kahan's compensated summation (Higham Alg. 4.2). Needs -ffp-contract=off and no fast-math.
template <class T>
T kahan_sum(std::span<const T> x) {
  T s = 0, c = 0;
  for (T v : x) {
    const T y = v - c;
    const T t = s + y;
    c = (t - s) - y;
    s = t;
  }
  return s;
}

struct ExactSum {
  long double sum = 0, abs_sum = 0;
};

template <class T>
ExactSum exact_sum(std::span<const T> x) {
  ExactSum r;
  for (T v : x) {
    r.sum += static_cast<long double>(v);
    r.abs_sum += std::fabs(static_cast<long double>(v));
  }
  return r;
}

}  // namespace bb::reference
