// The host FMA-chain kernel (kernels/intensity.h) bit-exact with reference::fma_chain at small, odd
// sizes on both sides of every vector block (8 chains of 8 or 16 lanes), misaligned arrays and 1-3
// OpenMP threads; in place, so nothing outside [0, n) may change (NaN guards).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kernels/intensity.h"
#include "reference/intensity.h"
#include "reference/random.h"
#include "tests/host_kernel_testing.h"

namespace bb {
namespace {

using host_test::GuardedArray;
using host_test::within;

template <class T>
void expect_chain_matches(std::size_t n, std::size_t offset, int threads, int k, T a, T b) {
  GuardedArray<T> x(n, offset, std::numeric_limits<T>::quiet_NaN());
  std::vector<T> want(n);
  for (std::size_t i = 0; i < n; ++i) {
    // Both signs, outliers at 2^±12.
    x[i] = static_cast<T>((i % 3 == 1 ? -1 : 1) * reference::positive_test_value(9, i));
    want[i] = reference::fma_chain<T>(x[i], k, a, b);
  }
  kernels::fma_chain_host(x.data(), n, k, a, b);
  const std::string at = host_test::where(n, offset, threads) + " k " + std::to_string(k) +
                         (sizeof(T) == 8 ? " fp64 " : " fp32 ") + kernels::fma_chain_host_isa();
  EXPECT_TRUE(within(x.span(), want, {0.0, 0.0})) << at;
  EXPECT_TRUE(x.guards_intact()) << at;
}

TEST(IntensityHostKernel, FmaChainIsBitExactAtOddSizesOffsetsAndThreads) {
  // fp32 blocks are 128 elements (AVX-512) or 64 (AVX2) per thread: sizes past two of them too.
  for (int threads : host_test::kThreadCounts) {
    const host_test::OmpThreads scope(threads);
    for (std::size_t n : host_test::kOddSizes)
      for (std::size_t offset : host_test::kOffsets)
        for (int k : {0, 1, 2, 7, 33}) {
          // The suite's chain (fixed point 0.25), and one that changes sign and grows.
          expect_chain_matches<double>(n, offset, threads, k, 1 - 0x1p-10, 0x1p-12);
          expect_chain_matches<double>(n, offset, threads, k, -1.25, 0.3);
          expect_chain_matches<float>(n, offset, threads, k, 1 - 0x1p-10f, 0x1p-12f);
          expect_chain_matches<float>(n, offset, threads, k, -1.25f, 0.3f);
        }
  }
}

}  // namespace
}  // namespace bb
