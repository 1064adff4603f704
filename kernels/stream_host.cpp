// Host STREAM kernels. Versions: 1 = OpenMP static schedule + compiler vectorisation, cloned for
// AVX-512, AVX2 and SSE2 and picked at run time (GCC target_clones), plain stores.
#include <omp.h>

#include "kernels/stream.h"
#include "reference/random.h"

namespace bb::kernels {
namespace {

template <class T>
[[gnu::always_inline]] inline void triad_range(T* __restrict a, const T* __restrict b,
                                               const T* __restrict c, T s, std::size_t begin,
                                               std::size_t end) {
#pragma omp simd
  for (std::size_t i = begin; i < end; ++i) a[i] = b[i] + s * c[i];
}

// The static split shared by the fills and the kernels: thread t owns [n·t/T, n·(t+1)/T).
template <class Body>
void for_each_thread_range(std::size_t n, Body&& body) {
#pragma omp parallel
  {
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    const auto threads = static_cast<std::size_t>(omp_get_num_threads());
    body(n * t / threads, n * (t + 1) / threads);
  }
}

[[gnu::target_clones("avx512f", "avx2", "default")]] void triad_f64(double* __restrict a,
                                                                    const double* __restrict b,
                                                                    const double* __restrict c,
                                                                    double s, std::size_t begin,
                                                                    std::size_t end) {
  triad_range(a, b, c, s, begin, end);
}

[[gnu::target_clones("avx512f", "avx2", "default")]] void triad_f32(float* __restrict a,
                                                                    const float* __restrict b,
                                                                    const float* __restrict c,
                                                                    float s, std::size_t begin,
                                                                    std::size_t end) {
  triad_range(a, b, c, s, begin, end);
}

[[gnu::target_clones("avx512f", "avx2", "default")]] double sum_f64(const double* __restrict x,
                                                                    std::size_t begin,
                                                                    std::size_t end) {
  double s = 0;
#pragma omp simd reduction(+ : s)
  for (std::size_t i = begin; i < end; ++i) s += x[i];
  return s;
}

}  // namespace

double read_sum_host(const double* x, std::size_t n) {
  double total = 0;
#pragma omp parallel reduction(+ : total)
  {
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    const auto threads = static_cast<std::size_t>(omp_get_num_threads());
    total += sum_f64(x, n * t / threads, n * (t + 1) / threads);
  }
  return total;
}

std::uint32_t chase_host(const std::uint32_t* next, std::uint64_t steps) {
  std::uint32_t p = 0;
  for (std::uint64_t s = 0; s < steps; ++s) p = next[p];
  return p;
}

void triad_host(double* a, const double* b, const double* c, double s, std::size_t n) {
  for_each_thread_range(n, [&](std::size_t lo, std::size_t hi) { triad_f64(a, b, c, s, lo, hi); });
}

void triad_host(float* a, const float* b, const float* c, float s, std::size_t n) {
  for_each_thread_range(n, [&](std::size_t lo, std::size_t hi) { triad_f32(a, b, c, s, lo, hi); });
}

void fill_random_host(double* x, std::size_t n, std::uint64_t seed) {
  for_each_thread_range(n, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t i = lo; i < hi; ++i) x[i] = reference::positive_test_value(seed, i);
  });
}

void fill_random_host(float* x, std::size_t n, std::uint64_t seed) {
  for_each_thread_range(n, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t i = lo; i < hi; ++i)
      x[i] = static_cast<float>(reference::positive_test_value(seed, i));
  });
}

void fill_value_host(double* x, std::size_t n, double value) {
  for_each_thread_range(n, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t i = lo; i < hi; ++i) x[i] = value;
  });
}

void fill_value_host(float* x, std::size_t n, float value) {
  for_each_thread_range(n, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t i = lo; i < hi; ++i) x[i] = value;
  });
}

}  // namespace bb::kernels
