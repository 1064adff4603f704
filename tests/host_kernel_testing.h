// Helpers of the host-kernel tests (tests/*_host_test.cpp): the odd sizes and OpenMP thread counts
// every kernel runs at, arrays that start off a 64-byte boundary between poisoned guard cells, and
// the house comparison rule (harness/compare.h) as a GoogleTest assertion.
#pragma once

#include <gtest/gtest.h>
#include <omp.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "harness/compare.h"

namespace bb::host_test {

// Empty, single, tiny, both sides of a 64-element (or 32- or 128-element) vector block, larger.
inline constexpr std::size_t kOddSizes[] = {0,  1,  2,   3,   7,   31,  32,   33,  63,
                                            64, 65, 127, 128, 129, 257, 1000, 1031};
// 3 threads on 2 cores: uneven static splits, still quick.
inline constexpr int kThreadCounts[] = {1, 2, 3};
// Elements past a 64-byte boundary: aligned, and two misalignments.
inline constexpr std::size_t kOffsets[] = {0, 1, 3};

// The OpenMP thread count for one scope; the previous one is restored.
class OmpThreads {
 public:
  explicit OmpThreads(int threads) : previous_(omp_get_max_threads()) {
    omp_set_num_threads(threads);
  }
  ~OmpThreads() { omp_set_num_threads(previous_); }
  OmpThreads(const OmpThreads&) = delete;
  OmpThreads& operator=(const OmpThreads&) = delete;

 private:
  int previous_;
};

// n elements starting `offset` elements past a 64-byte boundary, with kGuard cells on each side;
// every cell starts as `poison`. guards_intact() says whether the cells outside [0, n) still hold
// it, bit for bit (NaN poison included).
template <class T>
class GuardedArray {
 public:
  static constexpr std::size_t kGuard = 64 / sizeof(T) + 5;

  GuardedArray(std::size_t n, std::size_t offset, T poison)
      : n_(n), poison_(poison), cells_(n + offset + 2 * kGuard + 64 / sizeof(T), poison) {
    std::size_t base = kGuard;
    while (reinterpret_cast<std::uintptr_t>(cells_.data() + base) % 64 != 0) ++base;
    first_ = base + offset;
  }

  T* data() { return cells_.data() + first_; }
  std::span<T> span() { return {data(), n_}; }
  std::span<const T> span() const { return {cells_.data() + first_, n_}; }
  T& operator[](std::size_t i) { return cells_[first_ + i]; }
  void poison() {
    for (T& x : span()) x = poison_;
  }

  bool guards_intact() const {
    for (std::size_t i = 0; i < cells_.size(); ++i)
      if ((i < first_ || i >= first_ + n_) && std::memcmp(&cells_[i], &poison_, sizeof(T)) != 0)
        return false;
    return true;
  }

 private:
  std::size_t n_, first_ = 0;
  T poison_;
  std::vector<T> cells_;
};

// |out − ref| ≤ atol + rtol·|ref| everywhere (harness/compare.h), and, for two or more elements,
// a reference that is not all one value (a test on it would prove little). Spans, vectors, arrays.
template <class Out, class Ref>
::testing::AssertionResult within(const Out& out, const Ref& ref, Tolerance tol) {
  using O = std::remove_cvref_t<decltype(*std::data(out))>;
  using R = std::remove_cvref_t<decltype(*std::data(ref))>;
  Comparison c = compare<O, R>(std::span<const O>(std::data(out), std::size(out)),
                               std::span<const R>(std::data(ref), std::size(ref)), tol);
  if (std::size(ref) < 2) c.reference_trivial = false;  // one value is all equal, trivially
  if (c.mismatches == 0 && !c.reference_trivial) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << c.describe();
}

// Where a failure happened, for the messages.
inline std::string where(std::size_t n, std::size_t offset, int threads) {
  return "n " + std::to_string(n) + " offset " + std::to_string(offset) + " threads " +
         std::to_string(threads);
}

}  // namespace bb::host_test
