// CPU references for the arithmetic-intensity kernels (kernels/intensity.h): the FMA chain in every
// precision, bit-exact with the GPU, the host encoding of fp16 and bf16, and one entry of a GEMM
// with its deterministic error bound. No CUDA: fp16 and bf16 are encoded bit by bit here (fp16
// decoded by reference/formats.h).
#pragma once

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>

#include "reference/formats.h"

namespace bb::reference {

// A binary floating-point format narrower than double: significand width (implicit bit included)
// and normal range. IEEE 754-2008 binary16; bfloat16 is binary32's upper half (Intel, "BFLOAT16 –
// Hardware Numerics Definition", 2018).
struct HalfFormat {
  const char* name;
  int significand_bits;
  double min_normal;
  double max_finite;
};
inline constexpr HalfFormat kFp16{"fp16", 11, 0x1p-14, 65504.0};
inline constexpr HalfFormat kBf16{"bf16", 8, 0x1p-126, 0x1.fep127};

// x rounded to `bits` significant bits, ties to even (IEEE 754 roundTiesToEven), exponent
// unbounded: with x = m·2^e (frexp, m in [0.5, 1)), m·2^bits is rounded to an integer r and
// x ≈ r·2^(e − bits). Every scaling is by a power of two, so only nearbyint rounds. Zero and
// normal doubles only; the caller checks the target's exponent range.
inline double round_to_significand(double x, int bits) {
  if (bits < 1 || bits > std::numeric_limits<double>::digits)
    throw std::invalid_argument("round_to_significand: bits must be in [1, 53]");
  if (x == 0) return x;
  if (!std::isnormal(x)) throw std::domain_error("round_to_significand: x must be a normal double");
  if (std::fegetround() != FE_TONEAREST)
    throw std::logic_error("round_to_significand: the rounding mode must be to-nearest");
  int e = 0;
  const double m = std::frexp(x, &e);
  return std::ldexp(std::nearbyint(std::ldexp(m, bits)), e - bits);
}

inline void check_in_normal_range(double x, const HalfFormat& f) {
  const double mag = std::fabs(x);
  if (x != 0 && !(mag >= f.min_normal && mag <= f.max_finite))
    throw std::domain_error(std::string(f.name) + ": " + std::to_string(x) +
                            " is outside the normal range");
}

// x rounded to the nearest fp16 (ties to even), as its bits. Subnormals round on their fixed
// grid of 2^-24; beyond 65504 (after rounding) fp16 overflows: an error here.
inline std::uint16_t fp16_bits(double x) {
  if (!std::isfinite(x)) throw std::domain_error("fp16_bits: x must be finite");
  const std::uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const double mag = std::fabs(x);
  if (mag < kFp16.min_normal) {
    // q in [0, 1024]; q = 1024 is the smallest normal (exponent field 1, fraction 0).
    const double q = std::nearbyint(std::ldexp(mag, 24));
    return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(q));
  }
  const double r = round_to_significand(mag, kFp16.significand_bits);
  check_in_normal_range(r, kFp16);
  int e = 0;
  const double m = std::frexp(r, &e);  // r = 1.f × 2^(e − 1); exponent bias 15
  const auto exponent_field = static_cast<std::uint16_t>(e - 1 + 15);
  const auto fraction = static_cast<std::uint16_t>(std::ldexp(m, 11) - 1024);  // 10 bits
  return static_cast<std::uint16_t>(sign | exponent_field << 10 | fraction);
}

// The value of fp16 bits: every pattern, subnormals, infinities and NaN included (formats.h).
inline double fp16_value(std::uint16_t bits) {
  return decode(theory::format_spec(theory::Format::fp16), bits);
}

// x rounded to the nearest bf16 (ties to even), as its bits: zero and the normal range only. The
// rounded value has 8 significant bits in binary32's exponent range, so the float is exact and its
// low 16 bits are zero.
inline std::uint16_t bf16_bits(double x) {
  if (!std::isfinite(x)) throw std::domain_error("bf16_bits: x must be finite");
  const double r = x == 0 ? x : round_to_significand(x, kBf16.significand_bits);
  check_in_normal_range(r, kBf16);
  return static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(static_cast<float>(r)) >> 16);
}

inline double bf16_value(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

// x·a + b computed in double, checked to be exact: the product's error fma(x, a, −p) and the
// sum's error (Knuth's TwoSum) are both zero (Ogita, Rump & Oishi, "Accurate sum and dot product",
// SIAM J. Sci. Comput. 26(6), 2005). Throws when they are not: a rounded step would make the
// reference round twice.
inline double exact_multiply_add(double x, double a, double b) {
  const double p = x * a;
  const double s = p + b;
  const double product_error = std::fma(x, a, -p);
  const double b_virtual = s - p;
  const double sum_error = (p - (s - b_virtual)) + (b - b_virtual);
  if (product_error != 0 || sum_error != 0)
    throw std::domain_error("exact_multiply_add: " + std::to_string(x) + " * " + std::to_string(a) +
                            " + " + std::to_string(b) + " is not exact in double");
  return s;
}

// The chain x = x·a + b: coefficients representable in every format that uses them, and a scale
// for the inputs. The fixed point is b / (1 − a) = 0.25, so values stay in the normal range while
// they decay, sample after sample. Near it a step changes x by less than half an ulp and the
// chain stalls: (x − 0.25)·(1 − a) < ulp(x)/2, i.e. below x = 0.375 for both fp16 and bf16. A
// stalled chain hides skipped steps, so inputs start far enough above it to keep moving for
// k = 1024 steps: x_k − 0.25 ≈ (x_0 − 0.25)·a^k, with a^1024 ≈ e^-1 for fp16 and e^-8 for bf16.
// So inputs from reference::positive_test_value ([0.5, 2), outliers at 2^±12) are scaled by 2
// for fp16 (to [1, 4), at most 2^14) and by 2^11 for bf16 (to [1024, 4096), at most 2^24).
struct ChainCoefficients {
  double a;
  double b;
  double input_scale;
};
// fp64 and fp32: a = 1 − 2^-10, b = 2^-12, as the host sweep; these never stall here.
inline constexpr ChainCoefficients kChainCoefficients{1 - 0x1p-10, 0x1p-12, 1};
// fp16 (11 significant bits): a = 1 − 2^-10 (10 bits), b = 2^-12.
inline constexpr ChainCoefficients kChainCoefficientsFp16{1 - 0x1p-10, 0x1p-12, 2};
// bf16 (8 significant bits): a = 1 − 2^-7 (7 bits), b = 2^-9.
inline constexpr ChainCoefficients kChainCoefficientsBf16{1 - 0x1p-7, 0x1p-9, 0x1p11};

// fp64 and fp32: k steps of std::fma, each correctly rounded as the GPU's fma / fmaf.
template <class T>
T fma_chain(T x, int k, T a, T b) {
  for (int j = 0; j < k; ++j) x = std::fma(x, a, b);
  return x;
}

// fp16 and bf16: k steps of the correctly rounded fma of __hfma2 (PTX fma.rn.f16x2 / .bf16x2:
// x·a + b in infinite precision, rounded once to nearest even). Each step is exact in double
// (checked by exact_multiply_add) and then rounded once to the format's significand. Why it is
// exact with the coefficients above: fp16 x has 11 significant bits and a has 10, so x·a has at
// most 21; its lowest bit is at least 2^-34 (x ≥ 2^-24) and its highest at most 2^16, and b =
// 2^-12 lies in between, so x·a + b spans at most 51 bits. bf16: x·a has at most 8 + 7 = 15
// bits, and x·a + 2^-9 fits in 53 bits while x lies in [2^-40, 2^40] (values here stay in
// [2^-14, 2^24]).
inline double fma_chain_rounded(double x, int k, double a, double b, const HalfFormat& f) {
  for (int j = 0; j < k; ++j) {
    x = round_to_significand(exact_multiply_add(x, a, b), f.significand_bits);
    check_in_normal_range(x, f);  // the GPU rounds subnormals on a fixed grid: not modelled here
  }
  return x;
}

// One entry c = Σ_k a_k·b_k of a GEMM whose inputs are exact in their type: the reference value
// (summed in long double) and the bound on |ĉ − c| for the GPU's ĉ.
struct GemmEntry {
  double value;
  double bound;
};

// γ_K = K·u / (1 − K·u): the relative error bound of a K-term dot product in which every term
// goes through at most K roundings of unit roundoff u, in any summation order (Higham, "Accuracy
// and Stability of Numerical Algorithms", 2nd ed., Lemma 3.1 and eq. 3.5).
inline double gamma_bound(std::size_t terms, double unit_roundoff) {
  const double ku = static_cast<double>(terms) * unit_roundoff;
  if (!(ku < 1)) throw std::domain_error("gamma_bound: K·u must be below 1");
  return ku / (1 - ku);
}

// |ĉ − c| ≤ ((1 + u_in)²·(1 + γ_K(u_acc))·(1 + u_out) − 1)·Σ_k |a_k||b_k| + the reference's own
// error. u_in: rounding of each input on its way into the multiplier (tf32), u_acc: the
// accumulator's unit roundoff, u_out: the final rounding into the output type. The reference sums
// in long double (unit roundoff 2^-64 on x86, error γ_K·Σ) and is rounded once to double (2^-53).
inline GemmEntry gemm_entry_reference(std::span<const double> a_row, std::span<const double> b_col,
                                      double u_input, double u_accumulate, double u_output) {
  if (a_row.size() != b_col.size() || a_row.empty())
    throw std::invalid_argument("gemm_entry_reference: rows and columns must match, non-empty");
  long double sum = 0, sum_abs = 0;
  for (std::size_t k = 0; k < a_row.size(); ++k) {
    const long double product = static_cast<long double>(a_row[k]) * b_col[k];
    sum += product;
    sum_abs += std::fabs(product);
  }
  const std::size_t terms = a_row.size();
  const double u_long_double = std::ldexp(1.0, -std::numeric_limits<long double>::digits);
  const double u_double = std::ldexp(1.0, -std::numeric_limits<double>::digits);
  const double gpu_factor =
      (1 + u_input) * (1 + u_input) * (1 + gamma_bound(terms, u_accumulate)) * (1 + u_output) - 1;
  const double reference_factor = gamma_bound(terms, u_long_double) + u_double;
  return {static_cast<double>(sum), (gpu_factor + reference_factor) * static_cast<double>(sum_abs)};
}

// How a kernel's elements are stored on the device, for host staging buffers of raw bytes.
enum class StorageFormat { fp64, fp32, fp16, bf16 };

constexpr std::size_t storage_bytes(StorageFormat f) {
  return f == StorageFormat::fp64 ? 8 : f == StorageFormat::fp32 ? 4 : 2;
}

// x rounded to nearest (ties to even) in the format, as a double.
inline double round_to_storage(StorageFormat f, double x) {
  switch (f) {
    case StorageFormat::fp64: return x;
    case StorageFormat::fp32: return static_cast<float>(x);
    case StorageFormat::fp16: return fp16_value(fp16_bits(x));
    case StorageFormat::bf16: return bf16_value(bf16_bits(x));
  }
  return x;
}

namespace detail {
template <class T>
void store_bytes(T v, unsigned char* dst) {
  std::memcpy(dst, &v, sizeof v);
}
template <class T>
T load_bytes(const unsigned char* src) {
  T v{};
  std::memcpy(&v, src, sizeof v);
  return v;
}
}  // namespace detail

// Writes x, rounded to the format, at `dst` (storage_bytes(f) bytes).
inline void store(StorageFormat f, double x, unsigned char* dst) {
  switch (f) {
    case StorageFormat::fp64: return detail::store_bytes(x, dst);
    case StorageFormat::fp32: return detail::store_bytes(static_cast<float>(x), dst);
    case StorageFormat::fp16: return detail::store_bytes(fp16_bits(x), dst);
    case StorageFormat::bf16: return detail::store_bytes(bf16_bits(x), dst);
  }
}

inline double load(StorageFormat f, const unsigned char* src) {
  switch (f) {
    case StorageFormat::fp64: return detail::load_bytes<double>(src);
    case StorageFormat::fp32: return detail::load_bytes<float>(src);
    case StorageFormat::fp16: return fp16_value(detail::load_bytes<std::uint16_t>(src));
    case StorageFormat::bf16: return bf16_value(detail::load_bytes<std::uint16_t>(src));
  }
  return 0;
}

}  // namespace bb::reference
