// Host loops of the GPU cases (input generation, references, comparisons) on the OpenMP threads:
// the GPU runs each case in milliseconds, so serial host passes over 2^25–2^28 elements would take
// most of a lent GPU's time. Every element is computed from its index alone (reference/random.h),
// so the results do not depend on the thread count.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <vector>

#include "reference/chase.h"

namespace bb::suites {

// f(i) for i in [0, n) on the OpenMP threads; the first exception thrown is rethrown here (one
// escaping a parallel region would terminate the program).
template <class F>
void parallel_for(std::size_t n, const F& f) {
  std::exception_ptr error;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i) {
    try {
      f(static_cast<std::size_t>(i));
    } catch (...) {
#pragma omp critical(bb_suites_parallel_for_error)
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

// The number of i in [0, n) with pred(i), counted on the OpenMP threads (exact: integer sums).
template <class P>
std::size_t parallel_count(std::size_t n, const P& pred) {
  std::size_t count = 0;
#pragma omp parallel for schedule(static) reduction(+ : count)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i)
    count += pred(static_cast<std::size_t>(i)) ? 1 : 0;
  return count;
}

// reference::fill_chase_table over all of `table` (cycle.size() × words_per_line words) on the
// OpenMP threads, in chunks of 2^14 lines split statically: each line's entry depends on the line
// alone, and each thread first-touches the chunks it fills.
inline void parallel_fill_chase_table(const reference::RandomCycle& cycle,
                                      std::uint32_t words_per_line, std::uint32_t* table) {
  constexpr std::uint64_t kChunk = std::uint64_t{1} << 14;
  const std::uint64_t lines = cycle.size();
  parallel_for((lines + kChunk - 1) / kChunk, [&](std::size_t k) {
    reference::fill_chase_table(cycle, words_per_line, table, k * kChunk,
                                std::min(lines, (k + 1) * kChunk));
  });
}

// reference::chase_table on the OpenMP threads.
inline std::vector<std::uint32_t> parallel_chase_table(const reference::RandomCycle& cycle,
                                                       std::uint32_t words_per_line) {
  std::vector<std::uint32_t> table(cycle.size() * words_per_line);
  parallel_fill_chase_table(cycle, words_per_line, table.data());
  return table;
}

}  // namespace bb::suites
