// Pointer-chase tables: a random single cycle through n cache lines (Sattolo's algorithm, a
// uniformly random permutation with one cycle), laid out one entry per line so that every step of
// the chase is a load from a new, unpredictable line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "reference/random.h"

namespace bb::reference {

// order[i] is the i-th line visited; the walk goes order[i] -> order[i + 1] -> … -> order[0].
inline std::vector<std::uint32_t> random_cycle(std::size_t lines, std::uint64_t seed) {
  std::vector<std::uint32_t> order(lines);
  for (std::size_t i = 0; i < lines; ++i) order[i] = static_cast<std::uint32_t>(i);
  std::uint64_t state = seed;
  for (std::size_t i = lines - 1; i > 0 && lines > 1; --i) {
    state = splitmix64(state);
    std::swap(order[i], order[state % i]);
  }
  return order;
}

// next[line·words_per_line] = the next line's first word index; the other words stay 0.
inline std::vector<std::uint32_t> chase_table(const std::vector<std::uint32_t>& order,
                                              std::uint32_t words_per_line) {
  const std::size_t lines = order.size();
  std::vector<std::uint32_t> next(lines * words_per_line, 0);
  for (std::size_t i = 0; i < lines; ++i)
    next[order[i] * words_per_line] = order[(i + 1) % lines] * words_per_line;
  return next;
}

}  // namespace bb::reference
