// Host FMA-chain kernels. Versions: 1 = AVX-512F / AVX2+FMA intrinsics with 8 independent vector
// chains (2 FMA ports × 4 cycles latency), scalar std::fma otherwise and for the tails.
#include <immintrin.h>

#include <cmath>

#include "kernels/intensity.h"
#include "kernels/thread_ranges.h"

namespace bb::kernels {
namespace {

enum class Isa { avx512, avx2, scalar };

Isa host_isa() {
  if (__builtin_cpu_supports("avx512f")) return Isa::avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::avx2;
  return Isa::scalar;
}

template <class T>
void chain_scalar(T* x, std::size_t lo, std::size_t hi, int k, T a, T b) {
  for (std::size_t i = lo; i < hi; ++i) {
    T v = x[i];
    for (int j = 0; j < k; ++j) v = std::fma(v, a, b);
    x[i] = v;
  }
}

[[gnu::target("avx512f")]] std::size_t chain_avx512(double* x, std::size_t lo, std::size_t hi,
                                                    int k, double a, double b) {
  const __m512d va = _mm512_set1_pd(a), vb = _mm512_set1_pd(b);
  std::size_t i = lo;
  for (; i + 64 <= hi; i += 64) {
    __m512d v[8];
    for (int u = 0; u < 8; ++u) v[u] = _mm512_loadu_pd(x + i + 8 * u);
    for (int j = 0; j < k; ++j)
      for (int u = 0; u < 8; ++u) v[u] = _mm512_fmadd_pd(v[u], va, vb);
    for (int u = 0; u < 8; ++u) _mm512_storeu_pd(x + i + 8 * u, v[u]);
  }
  return i;
}

[[gnu::target("avx512f")]] std::size_t chain_avx512(float* x, std::size_t lo, std::size_t hi, int k,
                                                    float a, float b) {
  const __m512 va = _mm512_set1_ps(a), vb = _mm512_set1_ps(b);
  std::size_t i = lo;
  for (; i + 128 <= hi; i += 128) {
    __m512 v[8];
    for (int u = 0; u < 8; ++u) v[u] = _mm512_loadu_ps(x + i + 16 * u);
    for (int j = 0; j < k; ++j)
      for (int u = 0; u < 8; ++u) v[u] = _mm512_fmadd_ps(v[u], va, vb);
    for (int u = 0; u < 8; ++u) _mm512_storeu_ps(x + i + 16 * u, v[u]);
  }
  return i;
}

[[gnu::target("avx2,fma")]] std::size_t chain_avx2(double* x, std::size_t lo, std::size_t hi, int k,
                                                   double a, double b) {
  const __m256d va = _mm256_set1_pd(a), vb = _mm256_set1_pd(b);
  std::size_t i = lo;
  for (; i + 32 <= hi; i += 32) {
    __m256d v[8];
    for (int u = 0; u < 8; ++u) v[u] = _mm256_loadu_pd(x + i + 4 * u);
    for (int j = 0; j < k; ++j)
      for (int u = 0; u < 8; ++u) v[u] = _mm256_fmadd_pd(v[u], va, vb);
    for (int u = 0; u < 8; ++u) _mm256_storeu_pd(x + i + 4 * u, v[u]);
  }
  return i;
}

[[gnu::target("avx2,fma")]] std::size_t chain_avx2(float* x, std::size_t lo, std::size_t hi, int k,
                                                   float a, float b) {
  const __m256 va = _mm256_set1_ps(a), vb = _mm256_set1_ps(b);
  std::size_t i = lo;
  for (; i + 64 <= hi; i += 64) {
    __m256 v[8];
    for (int u = 0; u < 8; ++u) v[u] = _mm256_loadu_ps(x + i + 8 * u);
    for (int j = 0; j < k; ++j)
      for (int u = 0; u < 8; ++u) v[u] = _mm256_fmadd_ps(v[u], va, vb);
    for (int u = 0; u < 8; ++u) _mm256_storeu_ps(x + i + 8 * u, v[u]);
  }
  return i;
}

template <class T>
void chain(T* x, std::size_t n, int k, T a, T b) {
  const Isa isa = host_isa();
  for_each_thread_range(n, [&](std::size_t lo, std::size_t hi) {
    std::size_t done = lo;
    if (isa == Isa::avx512) done = chain_avx512(x, lo, hi, k, a, b);
    if (isa == Isa::avx2) done = chain_avx2(x, lo, hi, k, a, b);
    chain_scalar(x, done, hi, k, a, b);
  });
}

}  // namespace

void fma_chain_host(double* x, std::size_t n, int k, double a, double b) { chain(x, n, k, a, b); }
void fma_chain_host(float* x, std::size_t n, int k, float a, float b) { chain(x, n, k, a, b); }

const char* fma_chain_host_isa() {
  switch (host_isa()) {
    case Isa::avx512: return "avx512f";
    case Isa::avx2: return "avx2+fma";
    case Isa::scalar: return "scalar";
  }
  return "scalar";
}

}  // namespace bb::kernels
