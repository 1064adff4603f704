// Error bounds of floating-point summation and dot products (Higham, Accuracy and Stability of
// Numerical Algorithms, 2nd ed., 2002, ch. 3–4), in terms of the unit roundoff u of the
// arithmetic (theory/formats.h: unit_roundoff) and Σ|x_i|. Derivations: theory/README.md.
#pragma once

#include <cmath>
#include <limits>

namespace bb::theory {

// γ_n = n·u / (1 − n·u) (Higham Lemma 3.1); infinite once n·u ≥ 1 (no bound).
inline double gamma_n(double n, double u) {
  const double nu = n * u;
  return nu < 1 ? nu / (1 - nu) : std::numeric_limits<double>::infinity();
}

// Recursive summation s += x_i of n terms: |Ŝ − S| ≤ γ_{n−1} Σ|x_i| (Higham (4.4)).
inline double recursive_sum_bound(double n, double u, double abs_sum) {
  return gamma_n(n - 1, u) * abs_sum;
}

// Pairwise (cascade) summation, a balanced tree of depth ⌈log2 n⌉: |Ŝ − S| ≤ γ_⌈log2 n⌉ Σ|x_i|
// (Higham (4.6)).
inline double pairwise_sum_bound(double n, double u, double abs_sum) {
  return gamma_n(std::ceil(std::log2(std::max(n, 1.0))), u) * abs_sum;
}

// Compensated (Kahan) summation: |Ŝ − S| ≤ (2u + O(n·u²)) Σ|x_i| (Higham (4.8), after Knuth); the
// O term is taken as 2n·u² — at n ≤ 2^20 in fp32 it is under 1% of 2u.
inline double kahan_sum_bound(double n, double u, double abs_sum) {
  return (2 * u + 2 * n * u * u) * abs_sum;
}

// Dot product of length n (any order of the additions, products rounded): |ŝ − s| ≤ γ_n Σ|x_i y_i|
// (Higham (3.5)); GEMM elementwise |C − Ĉ| ≤ γ_K |A||B| for inner dimension K (Higham (3.13)).
inline double dot_bound(double n, double u, double abs_sum) { return gamma_n(n, u) * abs_sum; }

// Probabilistic bound (Higham & Mary, SIAM J. Sci. Comput. 41(5), 2019, Thm 2.4): with rounding
// errors independent of mean zero, |ŝ − s| ≤ γ̃_n(λ) Σ|x_i y_i|, γ̃_n(λ) = exp(λ√n·u + n·u²/(1−u)) −
// 1 ≈ λ√n·u, with probability at least 1 − 2·exp(−λ²(1−u)²/2) (λ = 5: 1 − 7.5e-6).
inline double probabilistic_dot_bound(double n, double u, double lambda, double abs_sum) {
  return std::expm1(lambda * std::sqrt(n) * u + n * u * u / (1 - u)) * abs_sum;
}
inline double probabilistic_bound_failure(double lambda, double u) {
  return 2 * std::exp(-lambda * lambda * (1 - u) * (1 - u) / 2);
}

}  // namespace bb::theory
