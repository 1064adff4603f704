// Error bounds of a GEMM C = A·B computed in a floating-point arithmetic, elementwise against
// |A||B|: the deterministic bound (Higham 2002, §3.5), its probabilistic counterpart (Higham & Mary
// 2019), the extra term when the library rounds its inputs to a narrower format (tf32, bf16), and
// the two-stage accumulation of fp8 tensor cores. The error of entry (i, j) is reported as a
// fraction of (|A||B|)_ij; "factor" below is that fraction. Derivations: theory/README.md.
#pragma once

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>

#include "theory/summation.h"

namespace bb::theory {

// Unit roundoff of rounding to nearest into p significant bits: u = 2^-p (Higham §2.1).
inline double nearest_unit(int p) { return std::ldexp(1.0, -p); }
// Relative error bound of truncating (rounding toward zero) into p significant bits: 2^(1−p)
// (Higham §2.1: directed rounding doubles u). Used where the hardware's rounding is not documented
// (the tensor cores' fp32 → tf32 / bf16 input conversion; their accumulator, Fasi et al. 2021).
inline double truncation_unit(int p) { return std::ldexp(1.0, 1 - p); }

// Inputs rounded to a format of unit u_in on their way into the multiplier: â = a(1 + δ),
// b̂ = b(1 + ε), |δ|, |ε| ≤ u_in, so |âb̂ − ab| ≤ (2u_in + u_in²)|a||b| (Higham Lemma 3.3 with
// two factors).
inline double input_rounding_term(double u_in) { return 2 * u_in + u_in * u_in; }

// How a library's GEMM rounds, for the bounds below. Products of the (rounded) inputs are exact in
// every mode here (their significands are at most 24 bits and the accumulator is wider, or they go
// through one rounding counted in the accumulation's γ).
struct GemmErrorModel {
  double u_input = 0;       // each input's rounding inside the library (0: inputs used as given)
  double sum_growth = 0;    // Σ|pieces| ≤ (1 + sum_growth)|x| when inputs are split (bf16x9)
  double u_accumulate = 0;  // the accumulator's unit (per addition); terms_per_k terms per k
  double terms_per_k = 1;   // addends per k: 9 for bf16x9 (every piece against every piece)
  double u_output = 0;      // the final rounding into the output type (0: output = accumulator)
  // A narrower tensor-core stage (fp8 on Hopper): `chunk` products per instruction added into an
  // accumulator of unit u_stage, promoted into the u_accumulate one every `interval` products;
  // interval 0 = never promoted (cuBLASLt's fast accumulation). chunk 0: no stage.
  double u_stage = 0;
  int chunk = 0;
  int interval = 0;
  // The accumulator rounds toward zero (tensor cores): its errors take the sign of the partial
  // sums, so on data with a nonzero mean they add up like K·u instead of √K·u, and the
  // probabilistic law (errors of mean zero) does not apply; on zero-mean data it does.
  bool truncates = false;
};

// Roundings a term goes through in each stage of a K-long dot product under the model.
struct GemmRoundings {
  double stage = 0;       // at u_stage
  double accumulate = 0;  // at u_accumulate
};
// A narrow stage aligns its products to the largest exponent among them and the accumulator and
// truncates each: every product and the running sum are cut once per instruction, so a term is
// charged one u_stage rounding per product it meets until promotion (min(k, interval), or k when
// never promoted), not one per instruction.
inline GemmRoundings gemm_roundings(const GemmErrorModel& m, double k) {
  if (m.chunk <= 0) return {0, m.terms_per_k * k};
  if (m.interval <= 0) return {k, 0};
  return {std::min(k, static_cast<double>(m.interval)), std::ceil(k / m.interval)};
}

// Deterministic: |Ĉ − C| ≤ factor·|A||B| elementwise, with
// factor = (1 + u_in)²·(1 + g)·(1 + γ_s(u_stage))·(1 + γ_a(u_acc))·(1 + u_out) − 1
// (Higham (3.13) for γ_K|A||B|; the input term as above; stages multiply as in Higham Lemma 3.3).
// Infinite when a stage has n·u ≥ 1.
// The product of (1 + x) factors minus one, as expm1(Σ log1p x): no cancellation when it is tiny.
inline double product_minus_one(std::initializer_list<double> terms) {
  double log_sum = 0;
  for (double t : terms) log_sum += std::log1p(t);
  return std::expm1(log_sum);
}

inline double gemm_error_factor(const GemmErrorModel& m, double k) {
  const GemmRoundings r = gemm_roundings(m, k);
  return product_minus_one({m.u_input, m.u_input, m.sum_growth, gamma_n(r.stage, m.u_stage),
                            gamma_n(r.accumulate, m.u_accumulate), m.u_output});
}

// Probabilistic (Higham & Mary 2019, Thm 3.1): each stage's γ_n replaced by
// γ̃_n(λ) = exp(λ√n·u + n·u²/(1 − u)) − 1, holding with probability ≥ 1 − 2n·exp(−λ²(1−u)²/2)
// (theory/summation.h). The input rounding stays deterministic: tensor cores may truncate, so its
// errors need not have mean zero.
inline double gemm_probabilistic_factor(const GemmErrorModel& m, double k, double lambda) {
  const GemmRoundings r = gemm_roundings(m, k);
  return product_minus_one(
      {m.u_input, m.u_input, m.sum_growth, probabilistic_dot_bound(r.stage, m.u_stage, lambda, 1),
       probabilistic_dot_bound(r.accumulate, m.u_accumulate, lambda, 1), m.u_output});
}

// The smallest λ at which Higham & Mary's theorem still guarantees half of the entries of an
// n-rounding dot product: 2n·exp(−λ²/2) = 1/2, λ = √(2 ln 4n) (3.3 at n = 64, 4.7 at 16384). The
// median normalized error must then lie below the probabilistic factor.
inline double median_lambda(double n) { return std::sqrt(2 * std::log(4 * std::max(n, 1.0))); }

// Effective bits of a mode: −log2 of its median normalized error |Ĉ − C|_ij / (|A||B|)_ij (24 would
// be an fp32 result correct to its last bit); infinite for an exact result.
inline double effective_bits(double median_normalized_error) {
  return median_normalized_error > 0 ? -std::log2(median_normalized_error)
                                     : std::numeric_limits<double>::infinity();
}

}  // namespace bb::theory
