#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "reference/chase.h"

namespace bb::reference {
namespace {

TEST(RandomCycle, IsABijectionWithItsInverse) {
  for (std::uint64_t n : {1u, 2u, 3u, 7u, 64u, 1000u, 4097u, 65536u}) {
    const RandomCycle c(n, 42);
    std::vector<bool> seen(n, false);
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::uint64_t line = c.at(i);
      ASSERT_LT(line, n);
      ASSERT_FALSE(seen[line]) << n << " " << i;
      seen[line] = true;
      ASSERT_EQ(c.position(line), i);
    }
  }
}

TEST(RandomCycle, TheTableIsOneCycleThroughEveryLine) {
  for (std::uint64_t n : {1u, 5u, 1000u, 3u << 12}) {
    const RandomCycle c(n, 7);
    const std::vector<std::uint32_t> t = chase_table(c, 16);
    ASSERT_EQ(t.size(), n * 16);
    std::vector<bool> seen(n, false);
    std::uint32_t p = 0;
    for (std::uint64_t s = 0; s < n; ++s) {
      ASSERT_EQ(p % 16, 0u);
      ASSERT_FALSE(seen[p / 16]);
      seen[p / 16] = true;
      p = t[p];
    }
    EXPECT_EQ(p, 0u);  // back at the start after exactly n steps
    for (std::uint64_t w = 0; w < t.size(); ++w)
      if (w % 16 != 0 && t[w] != 0) FAIL() << "word " << w << " of a line is not 0";
  }
}

TEST(RandomCycle, StepsAreNotAStride) {
  // A prefetcher predicts constant strides; the cycle's successive distances should rarely repeat.
  const RandomCycle c(1 << 20, 3);
  int repeats = 0;
  std::int64_t last = 0;
  for (std::uint64_t i = 1; i < 10000; ++i) {
    const auto d = static_cast<std::int64_t>(c.at(i)) - static_cast<std::int64_t>(c.at(i - 1));
    repeats += d == last;
    last = d;
  }
  EXPECT_LT(repeats, 10);
}

TEST(RandomCycle, SplitFillEqualsWholeFill) {
  const RandomCycle c(1000, 9);
  const std::vector<std::uint32_t> whole = chase_table(c, 4);
  std::vector<std::uint32_t> split(whole.size(), 77);
  fill_chase_table(c, 4, split.data(), 0, 333);
  fill_chase_table(c, 4, split.data(), 333, 1000);
  EXPECT_EQ(split, whole);
}

TEST(RandomCycle, RefusesImpossibleSizes) {
  EXPECT_THROW(RandomCycle(0, 1), std::invalid_argument);
  std::uint32_t dummy = 0;
  EXPECT_THROW(fill_chase_table(RandomCycle(std::uint64_t{1} << 30, 1), 16, &dummy, 0, 0),
               std::invalid_argument);
}

}  // namespace
}  // namespace bb::reference
