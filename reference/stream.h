// CPU references for the STREAM kernels (theory/stream.h): each element computed in long double
// and rounded once; the dot product summed in long double with its error bound.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "theory/stream.h"

namespace bb::reference {

using theory::StreamOp;

// a[i] = b[i] + s*c[i], exact to within one rounding of the result.
template <class T>
void triad(std::span<T> a, std::span<const T> b, std::span<const T> c, T s) {
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<T>(static_cast<long double>(b[i]) +
                          static_cast<long double>(s) * static_cast<long double>(c[i]));
}

// The array an op writes: copy c, mul b, add c, triad a, nstream a (dot writes none).
enum class StreamArray { a, b, c };  // in this order: an index into {a, b, c}
constexpr StreamArray written_array(StreamOp op) {
  return op == StreamOp::mul                           ? StreamArray::b
         : op == StreamOp::copy || op == StreamOp::add ? StreamArray::c
                                                       : StreamArray::a;
}

// What one run of `op` leaves in its written array, given the arrays before the run.
template <class T>
std::vector<T> stream_expected(StreamOp op, std::span<const T> a, std::span<const T> b,
                               std::span<const T> c, T s) {
  using L = long double;
  std::vector<T> out(a.size());
  // Element by element, so the threads (OpenMP, where the caller is built with it) change nothing.
#pragma omp parallel for schedule(static)
  for (std::int64_t j = 0; j < static_cast<std::int64_t>(a.size()); ++j) {
    const auto i = static_cast<std::size_t>(j);
    const L ai = a[i], bi = b[i], ci = c[i], sl = s;
    L r = 0;
    switch (op) {
      case StreamOp::copy: r = ai; break;
      case StreamOp::mul: r = sl * ci; break;
      case StreamOp::add: r = ai + bi; break;
      case StreamOp::triad: r = bi + sl * ci; break;
      case StreamOp::nstream: r = ai + bi + sl * ci; break;
      case StreamOp::dot: r = 0; break;
    }
    out[i] = static_cast<T>(r);
  }
  return out;
}

// Tolerance for a STREAM result against this reference, for positive inputs: the kernel rounds at
// most three times (nstream: product and two sums; fewer with FMAs), each ≤ u relative; the
// reference once, ≤ u. So |out − ref| ≤ 4u|ref| (plus O(u²)); 5u leaves room for that term.
// u = 2^-53 (fp64), 2^-24 (fp32).
template <class T>
constexpr double stream_rtol() {
  return 5.0 * (sizeof(T) == 8 ? 0x1.0p-53 : 0x1.0p-24);
}

struct DotReference {
  long double value = 0;
  long double abs_sum = 0;  // Σ|a_i b_i|
};

template <class T>
DotReference dot(std::span<const T> a, std::span<const T> b) {
  DotReference r;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const long double p = static_cast<long double>(a[i]) * static_cast<long double>(b[i]);
    r.value += p;
    r.abs_sum += std::fabs(p);
  }
  return r;
}

// Higham (2002), §3.1: a dot product evaluated in any order errs by at most γ_d Σ|a_i b_i|,
// γ_d = du/(1−du), where d is the most roundings any one term goes through (its product plus the
// additions on its path to the result: depth of the summation tree + 1). Kernels that split the sum
// over threads, lanes and partials state their d; d = n for one running sum.
template <class T>
double dot_abs_tolerance(std::size_t depth, long double abs_sum) {
  const double u = sizeof(T) == 8 ? 0x1.0p-53 : 0x1.0p-24;
  const double nu = static_cast<double>(depth) * u;
  return nu < 1 ? static_cast<double>(nu / (1 - nu) * abs_sum) : INFINITY;
}

}  // namespace bb::reference
