// Host STREAM kernels. Versions: 1 = OpenMP static schedule + compiler vectorisation, cloned for
// AVX-512, AVX2 and SSE2 and picked at run time (GCC target_clones), plain stores (copy too: no
// memmove, see CMakeLists.txt); dot with
// kDotHostLanes partial sums per thread.
#include <algorithm>
#include <bit>

#include "kernels/stream.h"
#include "kernels/thread_ranges.h"
#include "reference/random.h"

namespace bb::kernels {
namespace {

// Cloned for AVX-512, AVX2 and SSE2 (one set of clones per element type), picked at run time.
template <class T>
[[gnu::target_clones("avx512f", "avx2", "default")]] void stream_range(StreamOp op, T* __restrict a,
                                                                       T* __restrict b,
                                                                       T* __restrict c, T s,
                                                                       std::size_t lo,
                                                                       std::size_t hi) {
  switch (op) {
    case StreamOp::copy:
#pragma omp simd
      for (std::size_t i = lo; i < hi; ++i) c[i] = a[i];
      break;
    case StreamOp::mul:
#pragma omp simd
      for (std::size_t i = lo; i < hi; ++i) b[i] = s * c[i];
      break;
    case StreamOp::add:
#pragma omp simd
      for (std::size_t i = lo; i < hi; ++i) c[i] = a[i] + b[i];
      break;
    case StreamOp::triad:
#pragma omp simd
      for (std::size_t i = lo; i < hi; ++i) a[i] = b[i] + s * c[i];
      break;
    case StreamOp::nstream:
#pragma omp simd
      for (std::size_t i = lo; i < hi; ++i) a[i] += b[i] + s * c[i];
      break;
    case StreamOp::dot: break;
  }
}

// kDotHostLanes independent sums: lane j adds the products of elements j, j + L, j + 2L, …
template <class T>
[[gnu::target_clones("avx512f", "avx2", "default")]] T dot_range(const T* __restrict a,
                                                                 const T* __restrict b,
                                                                 std::size_t lo, std::size_t hi) {
  constexpr std::size_t L = kDotHostLanes;
  T acc[L] = {};
  std::size_t i = lo;
  for (; i + L <= hi; i += L) {
#pragma omp simd
    for (std::size_t j = 0; j < L; ++j) acc[j] += a[i + j] * b[i + j];
  }
  for (std::size_t j = 0; i < hi; ++i, ++j) acc[j] += a[i] * b[i];
  // Pairwise over the lanes: log2(L) more roundings on any term's path.
  for (std::size_t w = L / 2; w > 0; w /= 2)
    for (std::size_t j = 0; j < w; ++j) acc[j] += acc[j + w];
  return acc[0];
}

template <class T>
void fill_random(T* x, std::size_t n, std::uint64_t seed) {
  for_each_thread_range(n, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t i = lo; i < hi; ++i)
      x[i] = static_cast<T>(reference::positive_test_value(seed, i));
  });
}

template <class T>
void fill_value(T* x, std::size_t n, T value) {
  for_each_thread_range(n,
                        [&](std::size_t lo, std::size_t hi) { std::fill(x + lo, x + hi, value); });
}

}  // namespace

void stream_host(StreamOp op, double* a, double* b, double* c, double s, std::size_t n) {
  for_each_thread_range(
      n, [&](std::size_t lo, std::size_t hi) { stream_range(op, a, b, c, s, lo, hi); });
}

void stream_host(StreamOp op, float* a, float* b, float* c, float s, std::size_t n) {
  for_each_thread_range(
      n, [&](std::size_t lo, std::size_t hi) { stream_range(op, a, b, c, s, lo, hi); });
}

double dot_host(const double* a, const double* b, std::size_t n) {
  return sum_over_thread_ranges<double>(
      n, [&](std::size_t lo, std::size_t hi) { return dot_range(a, b, lo, hi); });
}

float dot_host(const float* a, const float* b, std::size_t n) {
  return sum_over_thread_ranges<float>(
      n, [&](std::size_t lo, std::size_t hi) { return dot_range(a, b, lo, hi); });
}

std::size_t dot_host_depth(std::size_t n, int threads) {
  // product + serial adds in a lane + log2(lanes) lane tree + the sum of thread partials.
  const std::size_t per_thread = n / static_cast<std::size_t>(std::max(threads, 1)) + 1;
  const auto lane_tree = static_cast<std::size_t>(std::bit_width(kDotHostLanes) - 1);
  return 1 + per_thread / kDotHostLanes + 1 + lane_tree +
         static_cast<std::size_t>(std::max(threads, 1));
}

void fill_random_host(double* x, std::size_t n, std::uint64_t seed) { fill_random(x, n, seed); }
void fill_random_host(float* x, std::size_t n, std::uint64_t seed) { fill_random(x, n, seed); }
void fill_value_host(double* x, std::size_t n, double value) { fill_value(x, n, value); }
void fill_value_host(float* x, std::size_t n, float value) { fill_value(x, n, value); }

}  // namespace bb::kernels
