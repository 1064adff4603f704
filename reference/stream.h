// CPU references for the STREAM kernels: each element computed in long double and rounded once.
#pragma once

#include <cstddef>
#include <span>

namespace bb::reference {

// a[i] = b[i] + s*c[i], exact to within one rounding of the result.
template <class T>
void triad(std::span<T> a, std::span<const T> b, std::span<const T> c, T s) {
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<T>(static_cast<long double>(b[i]) +
                          static_cast<long double>(s) * static_cast<long double>(c[i]));
}

// Tolerance for a triad result against this reference, for positive inputs: the kernel rounds at
// most twice (product and sum, or once with an FMA), each ≤ u relative; the reference once, ≤ u.
// So |out − ref| ≤ 3u|ref| (plus O(u²)); 4u leaves room for that term. u = 2^-53 (fp64), 2^-24
// (fp32).
template <class T>
constexpr double triad_rtol() {
  return 4.0 * (sizeof(T) == 8 ? 0x1.0p-53 : 0x1.0p-24);
}

}  // namespace bb::reference
