// The exact GEMM of already-rounded inputs, the reference of the GEMM precision matrix
// (kernels/gemm_precision.h), with |A||B| and each entry's normalized error |Ĉ − C|/(|A||B|).
//
// Layout ("TN", both operands contiguous in k, as cuBLASLt's fp8 GEMM wants): A is m×k stored row
// by row (A(i, p) at a[i·k + p]), B is k×n stored column by column (B(p, j) at b[j·k + p]), C is
// m×n column-major (C(i, j) at c[i + j·m]).
//
// Exactness: each product is split exactly into a double-double p + e (p = fl(ab), e = fma(a, b,
// −p)) and accumulated with TwoSum (Ogita, Rump & Oishi, "Accurate sum and dot product", SIAM J.
// Sci. Comput. 26(6), 2005, §5, Dot2). The pair (hi, lo) is kept unrounded, so its error is
// at most γ_k(2^-53)²·|A||B| (their Dot2 bound without its final rounding): 2^-78 of |A||B| at
// k = 16384, added to every bound it is compared with (gemm_exact_error_factor). Needs
// -ffp-contract=off (the project's default) and no fast-math.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <stdexcept>
#include <vector>

#include "reference/formats.h"
#include "reference/random.h"
#include "theory/formats.h"
#include "theory/summation.h"

namespace bb::reference {

// The data sets. mixed: uniform in [−0.5, 1) — random signs with a positive mean, so partial sums
// grow like k and the error like √k·u·|A||B| (Higham & Mary 2019). zero_mean: uniform in [−1, 1),
// whose error relative to |A||B| stays flat in k (Higham & Mary, "Sharper probabilistic backward
// error analysis for basic linear algebra kernels with random data", SIAM J. Sci. Comput. 42(5),
// 2020).
enum class GemmData { mixed, zero_mean };

inline const char* gemm_data_name(GemmData d) {
  return d == GemmData::mixed ? "mixed" : "zero_mean";
}

inline double gemm_test_value(GemmData d, std::uint64_t seed, std::uint64_t i) {
  const double u = uniform01(seed, i);
  return d == GemmData::mixed ? 1.5 * u - 0.5 : 2 * u - 1;
}

// How a matrix is stored for the library. e4m3 carries a power-of-two scale (below).
enum class GemmStorage { fp64, fp32, fp16, bf16, e4m3 };

constexpr std::size_t gemm_storage_bytes(GemmStorage s) {
  return s == GemmStorage::fp64 ? 8 : s == GemmStorage::fp32 ? 4 : s == GemmStorage::e4m3 ? 1 : 2;
}

// A matrix rounded to its storage: the bytes the library reads and the exact values they stand for
// (for e4m3, code value / scale). e4m3's scale is the power of two 2^⌊log2(448/amax)⌋, so x·scale
// fits E4M3's range and dividing by it is exact: the reference sees exactly what the GPU multiplies
// once the library applies the descale 1/scale.
struct RoundedMatrix {
  std::vector<double> values;
  std::vector<unsigned char> bytes;
  double scale = 1;
};

inline double e4m3_power_of_two_scale(double amax) {
  if (!(amax > 0) || !std::isfinite(amax)) return 1;
  return std::ldexp(1.0, static_cast<int>(std::floor(std::log2(448.0 / amax))));
}

inline RoundedMatrix round_matrix(GemmStorage s, std::span<const double> x) {
  RoundedMatrix r;
  const std::size_t n = x.size(), w = gemm_storage_bytes(s);
  r.values.resize(n);
  r.bytes.resize(n * w);
  if (s == GemmStorage::e4m3) {
    double amax = 0;
    for (double v : x) amax = std::max(amax, std::fabs(v));
    r.scale = e4m3_power_of_two_scale(amax);
  }
  const auto& fp16 = theory::format_spec(theory::Format::fp16);
  const auto& bf16 = theory::format_spec(theory::Format::bf16);
  const auto& e4m3 = theory::format_spec(theory::Format::e4m3);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    unsigned char* dst = r.bytes.data() + i * w;
    switch (s) {
      case GemmStorage::fp64: {
        r.values[i] = x[i];
        std::memcpy(dst, &x[i], 8);
        break;
      }
      case GemmStorage::fp32: {
        const auto f = static_cast<float>(x[i]);
        r.values[i] = f;
        std::memcpy(dst, &f, 4);
        break;
      }
      case GemmStorage::fp16:
      case GemmStorage::bf16: {
        const auto& spec = s == GemmStorage::fp16 ? fp16 : bf16;
        const auto code = static_cast<std::uint16_t>(encode(spec, x[i]));
        r.values[i] = decode(spec, code);
        std::memcpy(dst, &code, 2);
        break;
      }
      case GemmStorage::e4m3: {
        const auto code = static_cast<unsigned char>(encode(e4m3, x[i] * r.scale));
        r.values[i] = decode(e4m3, code) / r.scale;
        *dst = code;
        break;
      }
    }
  }
  return r;
}

// The exact C = A·B as unevaluated pairs hi + lo, and |A||B| (rounded to double: relative error
// γ_k(2^-53), which only scales the normalized errors).
struct GemmExact {
  int m = 0, n = 0, k = 0;
  std::vector<double> hi, lo, abs;
};

inline GemmExact gemm_exact(std::span<const double> a, std::span<const double> b, int m, int n,
                            int k) {
  if (m < 1 || n < 1 || k < 1) throw std::invalid_argument("gemm_exact: m, n, k must be >= 1");
  const auto um = static_cast<std::size_t>(m), un = static_cast<std::size_t>(n),
             uk = static_cast<std::size_t>(k);
  if (a.size() != um * uk || b.size() != uk * un)
    throw std::invalid_argument("gemm_exact: A must be m*k and B k*n values");
  const std::vector<double> zeros(um * un);
  GemmExact e{m, n, k, zeros, zeros, zeros};
#pragma omp parallel for schedule(static)
  for (std::int64_t idx = 0; idx < static_cast<std::int64_t>(um * un); ++idx) {
    const std::size_t i = static_cast<std::size_t>(idx) % um,
                      j = static_cast<std::size_t>(idx) / um;
    const double* ar = a.data() + i * uk;
    const double* bc = b.data() + j * uk;
    double hi = 0, lo = 0, abs = 0;
    for (std::size_t p = 0; p < uk; ++p) {
      const double prod = ar[p] * bc[p];
      const double prod_error = std::fma(ar[p], bc[p], -prod);  // TwoProduct
      const double s = hi + prod;                               // TwoSum
      const double z = s - hi;
      const double sum_error = (hi - (s - z)) + (prod - z);
      hi = s;
      lo += prod_error + sum_error;
      abs += std::fabs(prod);
    }
    e.hi[static_cast<std::size_t>(idx)] = hi;
    e.lo[static_cast<std::size_t>(idx)] = lo;
    e.abs[static_cast<std::size_t>(idx)] = abs;
  }
  return e;
}

// The reference's own error as a fraction of |A||B|: γ_k(2^-53)² (Ogita, Rump & Oishi 2005).
inline double gemm_exact_error_factor(double k) {
  const double g = theory::gamma_n(k, 0x1p-53);
  return g * g;
}

// Entry e's signed error (ĉ − hi) − lo: ĉ − hi is exact when ĉ is within a factor 2 of hi
// (Sterbenz), so this keeps an fp64 result's error to its last bits.
inline double gemm_entry_error(double c, const GemmExact& e, std::size_t idx) {
  return (c - e.hi[idx]) - e.lo[idx];
}

// |ĉ − c|/(|A||B|) per entry (NaN where ĉ is NaN or infinite: a poisoned or overflowed entry).
inline std::vector<double> gemm_normalized_errors(std::span<const double> c, const GemmExact& e) {
  if (c.size() != e.hi.size()) throw std::invalid_argument("gemm_normalized_errors: size");
  std::vector<double> r(c.size());
  for (std::size_t i = 0; i < c.size(); ++i) {
    const double err = std::fabs(gemm_entry_error(c[i], e, i));
    r[i] = !std::isfinite(c[i]) ? std::numeric_limits<double>::quiet_NaN()
           : e.abs[i] > 0       ? err / e.abs[i]
           : err == 0           ? 0.0
                                : std::numeric_limits<double>::infinity();
  }
  return r;
}

// Median and maximum of the normalized errors; NaN entries count as infinitely wrong.
struct GemmErrorSummary {
  double median = 0;
  double max = 0;
  std::size_t not_finite = 0;
};

inline GemmErrorSummary summarize_gemm_errors(std::vector<double> normalized) {
  GemmErrorSummary s;
  if (normalized.empty()) return s;
  for (double& v : normalized)
    if (std::isnan(v)) {
      v = std::numeric_limits<double>::infinity();
      ++s.not_finite;
    }
  const auto mid = normalized.begin() + static_cast<std::ptrdiff_t>(normalized.size() / 2);
  std::nth_element(normalized.begin(), mid, normalized.end());
  s.median = *mid;
  s.max = *std::max_element(normalized.begin(), normalized.end());
  return s;
}

}  // namespace bb::reference
