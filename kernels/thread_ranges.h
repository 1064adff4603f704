// The static split the host kernels share: OpenMP thread t of T owns [n·t/T, n·(t+1)/T) of the
// work, so a thread's share (and an ordered sum over the shares) depends only on the thread count.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstddef>

namespace bb::kernels {

// body(lo, hi) on every OpenMP thread for its share of [0, n).
template <class Body>
void for_each_thread_range(std::size_t n, Body&& body) {
#pragma omp parallel
  {
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    const auto threads = static_cast<std::size_t>(omp_get_num_threads());
    body(n * t / threads, n * (t + 1) / threads);
  }
}

// The sum of range(lo, hi) over the shares of at most 256 threads, added in thread order: the same
// result on every run with the same thread count.
template <class T, class Range>
T sum_over_thread_ranges(std::size_t n, Range&& range) {
  T partial[256] = {};
  int used = 1;
#pragma omp parallel num_threads(std::min(omp_get_max_threads(), 256))
  {
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    const auto threads = static_cast<std::size_t>(omp_get_num_threads());
    partial[t] = range(n * t / threads, n * (t + 1) / threads);
#pragma omp single
    used = omp_get_num_threads();
  }
  T total = 0;
  for (int t = 0; t < used; ++t) total += partial[t];
  return total;
}

}  // namespace bb::kernels
