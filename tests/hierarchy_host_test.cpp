// The host memory-hierarchy kernels (kernels/hierarchy.h) at small, odd sizes, every alignment of a
// 64-byte line and 1-3 OpenMP threads. The reads sum integers with outliers, so every order of
// summation is exact: bit-exact with a long-double sum. NaN sits in every cell they must not read
// (guards, the skipped cells between strides). The chase against reference/chase.h's cycle.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/hierarchy.h"
#include "reference/chase.h"
#include "reference/random.h"
#include "tests/host_kernel_testing.h"

namespace bb {
namespace {

using host_test::GuardedArray;
using host_test::within;

// Integers in [−2048, 2048), one in 64 an outlier of about ±2^30: sums of a few thousand stay exact
// in fp64 in any order, and a dropped or repeated element changes them.
double integer_value(std::uint64_t i) {
  const std::uint64_t r = reference::splitmix64(i * 0x9E3779B97F4A7C15ull + 11);
  const double v = static_cast<double>(r % 4096) - 2048;
  return (r >> 20) % 64 == 0 ? v * 0x1p19 + 1 : v;
}

TEST(HierarchyHostKernel, ReadIsExactAtOddSizesEveryAlignmentAndThreads) {
  for (int threads : host_test::kThreadCounts) {
    const host_test::OmpThreads scope(threads);
    for (std::size_t n : host_test::kOddSizes)
      for (std::size_t offset = 0; offset < 8; ++offset) {  // every start within a 64-byte line
        GuardedArray<double> x(n, offset, NAN);
        long double sum = 0;
        for (std::size_t i = 0; i < n; ++i) sum += x[i] = integer_value(i);
        for (int passes : {1, 2, 3}) {
          const double got = kernels::read_host(x.data(), n, passes);
          const double want = static_cast<double>(passes * sum);
          EXPECT_TRUE(within(std::vector{got}, std::vector{want}, {0.0, 0.0}))
              << host_test::where(n, offset, threads) << " passes " << passes;
        }
      }
  }
}

TEST(HierarchyHostKernel, StridedReadIsExactAtOddSizesStridesAndThreads) {
  for (int threads : host_test::kThreadCounts) {
    const host_test::OmpThreads scope(threads);
    for (std::size_t accesses : host_test::kOddSizes)
      for (std::size_t stride : {1, 2, 3, 7, 16})
        for (std::size_t offset : host_test::kOffsets) {
          // Only x[i·stride] for i < accesses is read: every other cell is NaN.
          const std::size_t cells = accesses ? (accesses - 1) * stride + 1 : 0;
          GuardedArray<double> x(cells, offset, NAN);
          long double sum = 0;
          for (std::size_t i = 0; i < accesses; ++i) sum += x[i * stride] = integer_value(i);
          const double got = kernels::strided_read_host(x.data(), accesses, stride);
          const double want = static_cast<double>(sum);
          EXPECT_TRUE(within(std::vector{got}, std::vector{want}, {0.0, 0.0}))
              << host_test::where(accesses, offset, threads) << " stride " << stride;
        }
  }
}

TEST(HierarchyHostKernel, ChaseEndsWhereTheCycleSays) {
  for (std::uint64_t lines : {1, 2, 3, 7, 63, 64, 65, 1000})
    for (std::uint32_t words : {1u, 16u}) {
      const reference::RandomCycle cycle(lines, 0xC0FFEE + lines);
      const std::vector<std::uint32_t> table = reference::chase_table(cycle, words);
      for (std::uint64_t start_line : {std::uint64_t{0}, lines / 2, lines - 1})
        for (std::uint64_t steps : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{2},
                                    std::uint64_t{3}, lines - 1, lines, 2 * lines + 3}) {
          const auto start = static_cast<std::uint32_t>(start_line * words);
          const std::uint64_t end_line = cycle.at((cycle.position(start_line) + steps) % lines);
          ASSERT_EQ(kernels::chase_host(table.data(), steps, start), end_line * words)
              << "lines " << lines << " words " << words << " start " << start_line << " steps "
              << steps;
        }
    }
}

}  // namespace
}  // namespace bb
