// The huge-page arrays' pool (suites/common/host_buffer.h): a freed array comes back only at its
// exact size, the one kept last first; what is kept stays within its cap, and a fresh array first
// frees kept ones until those in use and kept fit the limit.
#include <gtest/gtest.h>

#include <cstdint>

#include "suites/common/host_buffer.h"

namespace bb::suites {
namespace {

constexpr std::size_t kMiB2 = kHugePageBytes;

TEST(HugeBlockPool, GivesBackOnlyTheExactSizeLastKeptFirst) {
  HugeBlockPool pool(100 * kMiB2, 1000 * kMiB2);
  void* a1 = pool.allocate(2 * kMiB2);
  void* a2 = pool.allocate(2 * kMiB2);
  void* b = pool.allocate(3 * kMiB2);
  ASSERT_TRUE(a1 && a2 && b);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b) % kHugePageBytes, 0u);
  pool.give(a1, 2 * kMiB2);
  pool.give(b, 3 * kMiB2);
  pool.give(a2, 2 * kMiB2);
  EXPECT_EQ(pool.held_bytes(), 7 * kMiB2);
  void* c = pool.allocate(kMiB2);  // smaller than every kept block: a fresh one, none handed out
  EXPECT_TRUE(c != a1 && c != a2 && c != b);
  EXPECT_EQ(pool.held_bytes(), 7 * kMiB2);
  EXPECT_EQ(pool.allocate(2 * kMiB2), a2);
  EXPECT_EQ(pool.allocate(2 * kMiB2), a1);
  EXPECT_EQ(pool.held_bytes(), 3 * kMiB2);
  for (void* p : {a1, a2}) pool.give(p, 2 * kMiB2);
  pool.give(c, kMiB2);
}

TEST(HugeBlockPool, KeepsWithinItsCapAndFreesKeptBlocksBeforePassingItsLimit) {
  HugeBlockPool pool(5 * kMiB2, 10 * kMiB2);
  void* a = pool.allocate(2 * kMiB2);
  void* b = pool.allocate(2 * kMiB2);
  void* c = pool.allocate(2 * kMiB2);
  pool.give(a, 2 * kMiB2);
  pool.give(b, 2 * kMiB2);
  pool.give(c, 2 * kMiB2);  // 6 > 5: the longest kept (a) goes
  EXPECT_EQ(pool.held_bytes(), 4 * kMiB2);
  void* big = pool.allocate(7 * kMiB2);  // 4 kept + 7 > 10: b goes, 2 + 7 fits
  EXPECT_EQ(pool.held_bytes(), 2 * kMiB2);
  EXPECT_EQ(pool.allocate(2 * kMiB2), c);
  EXPECT_EQ(pool.held_bytes(), 0u);
  pool.give(c, 2 * kMiB2);
  pool.give(big, 7 * kMiB2);  // alone past the cap: freed at once, c too (kept longer)
  EXPECT_EQ(pool.held_bytes(), 0u);
}

TEST(HostArrays, AHugePageArrayIsReusedAtItsSizeAndSmallOnesNeverKept) {
  const std::size_t n = 3 * kHugePageBytes / sizeof(double);
  const double* first = nullptr;
  {
    HostArray<double> x = allocate_host<double>(n);
    first = x.get();
    x[n - 1] = 1.0;
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(first) % kHugePageBytes, 0u);
  }
  const std::size_t held = huge_block_pool().held_bytes();
  EXPECT_GE(held, n * sizeof(double));
  {
    HostArray<double> again = allocate_host<double>(n);
    EXPECT_EQ(again.get(), first);  // the same pages, already faulted in
    EXPECT_EQ(huge_block_pool().held_bytes(), held - n * sizeof(double));
  }
  { HostArray<double> small = allocate_host<double>(100); }
  EXPECT_EQ(huge_block_pool().held_bytes(), held);
}

}  // namespace
}  // namespace bb::suites
