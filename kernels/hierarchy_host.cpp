// Host memory-hierarchy kernels. Versions: 1 = read with 8 vectors of 8 doubles as accumulators
// (GCC vector extensions, cloned for AVX-512 / AVX2 / SSE2), strided read with 4 scalar sums per
// thread, chase one dependent load per step.
#include <omp.h>

#include <cstdint>

#include "kernels/hierarchy.h"
#include "kernels/thread_ranges.h"

namespace bb::kernels {
namespace {

using v8d = double __attribute__((vector_size(64)));

[[gnu::target_clones("avx512f", "avx2", "default")]] double read_range(const double* x,
                                                                       std::size_t lo,
                                                                       std::size_t hi, int passes) {
  double total = 0;
  for (int p = 0; p < passes; ++p) {
    asm volatile("" ::: "memory");  // every pass loads again: no hoisting a pass out of the loop
    v8d acc[8] = {};
    std::size_t i = lo;
    // Peel to a 64-byte boundary so that every vector load is aligned.
    double head = 0;
    for (; i < hi && reinterpret_cast<std::uintptr_t>(x + i) % 64 != 0; ++i) head += x[i];
    for (; i + 64 <= hi; i += 64) {
      const auto* v = reinterpret_cast<const v8d*>(x + i);
      for (int k = 0; k < 8; ++k) acc[k] += v[k];
    }
    for (int k = 0; i + 8 <= hi; i += 8, ++k) acc[k] += *reinterpret_cast<const v8d*>(x + i);
    for (; i < hi; ++i) head += x[i];
    for (int k = 1; k < 8; ++k) acc[0] += acc[k];
    double s = head;
    for (int l = 0; l < 8; ++l) s += acc[0][l];
    total += s;
  }
  return total;
}

}  // namespace

double read_host(const double* x, std::size_t n, int passes) {
  return sum_over_thread_ranges<double>(
      n, [&](std::size_t lo, std::size_t hi) { return read_range(x, lo, hi, passes); });
}

double strided_read_host(const double* x, std::size_t accesses, std::size_t stride) {
  double total = 0;
#pragma omp parallel reduction(+ : total)
  {
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    const auto threads = static_cast<std::size_t>(omp_get_num_threads());
    const std::size_t lo = accesses * t / threads, hi = accesses * (t + 1) / threads;
    double s[4] = {0, 0, 0, 0};
    std::size_t i = lo;
    for (; i + 4 <= hi; i += 4)
      for (std::size_t k = 0; k < 4; ++k) s[k] += x[(i + k) * stride];
    for (; i < hi; ++i) s[0] += x[i * stride];
    total += (s[0] + s[1]) + (s[2] + s[3]);
  }
  return total;
}

std::uint32_t chase_host(const std::uint32_t* next, std::uint64_t steps, std::uint32_t start) {
  std::uint32_t p = start;
  for (std::uint64_t s = 0; s < steps; ++s) p = next[p];
  return p;
}

}  // namespace bb::kernels
