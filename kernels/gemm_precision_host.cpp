// Host fp32 GEMM of the precision matrix (kernels/gemm_precision.h). Version 1: B packed k-major,
// then for each row i of C (OpenMP static over rows) the loop k → j, so that row i's n entries are
// n independent recursive sums, each in k order, vectorised across j. No FMA contraction
// (-ffp-contract=off): every product and every sum is rounded to fp32.
#include <stdexcept>
#include <vector>

#include "kernels/gemm_precision.h"

namespace bb::kernels {
namespace {

// One row of C: acc[j] = Σ_p a_row[p]·bt[p·n + j], p in order. Cloned for AVX-512 and AVX2 (wider
// vectors, same arithmetic: the result is bit-identical on every path).
__attribute__((target_clones("avx512f", "avx2", "default"))) void row_times_packed(
    const float* a_row, const float* bt, float* acc, int n, int k) {
  for (int j = 0; j < n; ++j) acc[j] = 0;
  for (int p = 0; p < k; ++p) {
    const float ap = a_row[p];
    const float* bp = bt + static_cast<std::size_t>(p) * static_cast<std::size_t>(n);
    for (int j = 0; j < n; ++j) acc[j] = acc[j] + ap * bp[j];
  }
}

}  // namespace

void gemm_fp32_host(const float* a, const float* b, float* c, int m, int n, int k) {
  if (m < 1 || n < 1 || k < 1) throw std::invalid_argument("gemm_fp32_host: m, n, k must be >= 1");
  if (!a || !b || !c) throw std::invalid_argument("gemm_fp32_host: null matrix");
  const auto um = static_cast<std::size_t>(m), un = static_cast<std::size_t>(n),
             uk = static_cast<std::size_t>(k);
  std::vector<float> bt(uk * un);  // B(p, j) at bt[p·n + j]
#pragma omp parallel for schedule(static)
  for (std::size_t p = 0; p < uk; ++p)
    for (std::size_t j = 0; j < un; ++j) bt[p * un + j] = b[j * uk + p];
#pragma omp parallel
  {
    std::vector<float> acc(un);
#pragma omp for schedule(static)
    for (std::size_t i = 0; i < um; ++i) {
      row_times_packed(a + i * uk, bt.data(), acc.data(), n, k);
      for (std::size_t j = 0; j < un; ++j) c[i + j * um] = acc[j];
    }
  }
}

}  // namespace bb::kernels
