// Error bounds of floating-point summation and dot products (Higham, Accuracy and Stability of
// Numerical Algorithms, 2nd ed., 2002, ch. 3–4), in terms of the unit roundoff u of the
// arithmetic (theory/formats.h: unit_roundoff) and Σ|x_i|. Derivations: theory/README.md.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

#include "theory/work.h"

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

// Compensated (Kahan) summation: |Ŝ − S| ≤ (2u + O(n·u²)) Σ|x_i| (Higham (4.8), after Knuth). The
// O term's constant is not given there: 2n·u² is this project's estimate (at n = 2^20 in fp32 it is
// n·u = 6% of the 2u term), so this estimates the bound rather than proving it; infinite once
// n·u ≥ 1, where the first-order analysis says nothing.
inline double kahan_sum_bound(double n, double u, double abs_sum) {
  if (n * u >= 1) return std::numeric_limits<double>::infinity();
  return (2 * u + 2 * n * u * u) * abs_sum;
}

// Any order of additions in which no term passes through more than h of them (a tree of height
// h; recursive summation is h = n − 1, pairwise ⌈log2 n⌉): |Ŝ − S| ≤ γ_h Σ|x_i| (Higham §4.2:
// Ŝ = Σ x_i(1 + δ_i), |δ_i| ≤ γ_{h_i}).
inline double tree_sum_bound(double h, double u, double abs_sum) { return gamma_n(h, u) * abs_sum; }

// Dot product of length n (any order of the additions, products rounded): |ŝ − s| ≤ γ_n Σ|x_i y_i|
// (Higham (3.5)); GEMM elementwise |C − Ĉ| ≤ γ_K |A||B| for inner dimension K (Higham (3.13)).
inline double dot_bound(double n, double u, double abs_sum) { return gamma_n(n, u) * abs_sum; }

// Probabilistic bound (Higham & Mary, SIAM J. Sci. Comput. 41(5), 2019, Thm 2.4 and its
// inner-product corollary Thm 3.1): with rounding errors independent of mean zero,
// |ŝ − s| ≤ γ̃_n(λ)·Σ|x_i y_i|, γ̃_n(λ) = exp(λ√n·u + n·u²/(1−u)) − 1 ≈ λ√n·u, with probability at
// least Q = 1 − n·(1 − P(λ)), P(λ) = 1 − 2·exp(−λ²(1−u)²/2): n products must hold at once. The
// failure probability is min(1, 2n·exp(−λ²(1−u)²/2)) (λ = 5, n = 10^4: 0.075).
inline double probabilistic_dot_bound(double n, double u, double lambda, double abs_sum) {
  return std::expm1(lambda * std::sqrt(n) * u + n * u * u / (1 - u)) * abs_sum;
}
inline double probabilistic_bound_failure(double n, double lambda, double u) {
  return std::min(1.0, 2 * n * std::exp(-lambda * lambda * (1 - u) * (1 - u) / 2));
}

// Flop per term: one addition; compensated summation four (Kahan: y = x − c, t = s + y,
// c = (t − s) − y; Higham Alg. 4.2).
inline double summation_flop_per_element(bool compensated) { return compensated ? 4 : 1; }

// Summing n values of element_bytes each: one read of them, flop per term as above, n elements.
inline WorkCount summation_work(double elements, double element_bytes, double flop_per_element) {
  return {elements * element_bytes, 0, flop_per_element * elements, elements};
}

}  // namespace bb::theory
