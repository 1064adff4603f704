// Pointer-chase tables: a pseudo-random single cycle through n cache lines, laid out one entry per
// line so that every step of the chase is a load from a new, unpredictable line.
//
// The visiting order is a keyed bijection on [0, n) (multiply/xorshift rounds on the next power of
// two, cycle-walking down to n), not a shuffled array: any permutation `order` gives a single cycle
// order[0] -> order[1] -> … -> order[n-1] -> order[0], and because the bijection has a cheap
// inverse, entry `line` of the table (the line after it) is computed in place, in address order:
// no n-entry shuffle, no random writes. Building a 2 GiB table costs one sequential pass.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "reference/random.h"

namespace bb::reference {

class RandomCycle {
 public:
  RandomCycle(std::uint64_t lines, std::uint64_t seed) : lines_(lines) {
    if (lines == 0 || lines > (std::uint64_t{1} << 32))
      throw std::invalid_argument("random cycle: 1 … 2^32 lines");
    bits_ = std::max(1, static_cast<int>(std::bit_width(lines - 1)));
    mask_ = bits_ == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits_) - 1;
    shift_ = (bits_ + 1) / 2;
    std::uint64_t s = seed;
    for (auto& r : rounds_) {
      s = splitmix64(s);
      r.mul = s | 1;  // odd: invertible modulo 2^bits
      r.inv = inverse_odd(r.mul);
      s = splitmix64(s);
      r.add = s;
    }
  }

  std::uint64_t size() const { return lines_; }

  // The i-th line visited (i in [0, n)).
  std::uint64_t at(std::uint64_t i) const {
    do i = forward(i);
    while (i >= lines_);
    return i;
  }
  // The position of `line` in the order: at(position(line)) == line.
  std::uint64_t position(std::uint64_t line) const {
    do line = backward(line);
    while (line >= lines_);
    return line;
  }
  // The line visited after `line`.
  std::uint64_t next(std::uint64_t line) const {
    const std::uint64_t i = position(line) + 1;
    return at(i == lines_ ? 0 : i);
  }

 private:
  struct Round {
    std::uint64_t mul, inv, add;
  };
  static std::uint64_t inverse_odd(std::uint64_t a) {
    std::uint64_t x = a;  // Newton: each step doubles the correct low bits (3 -> 6 -> … -> 96)
    for (int k = 0; k < 5; ++k) x *= 2 - a * x;
    return x;
  }
  // x ^= x >> s is its own inverse: applied twice it leaves x ^ (x >> 2s) = x, as 2s >= bits.
  std::uint64_t xorshift(std::uint64_t x) const { return x ^ (x >> shift_); }
  std::uint64_t forward(std::uint64_t x) const {
    for (const Round& r : rounds_) x = xorshift(((x * r.mul) + r.add) & mask_);
    return x;
  }
  std::uint64_t backward(std::uint64_t x) const {
    for (auto r = rounds_.rbegin(); r != rounds_.rend(); ++r)
      x = ((xorshift(x) - r->add) * r->inv) & mask_;
    return x;
  }

  std::uint64_t lines_;
  int bits_ = 1, shift_ = 1;
  std::uint64_t mask_ = 1;
  std::array<Round, 3> rounds_{};
};

// table[line·words_per_line] = the next line's first word index; the other words are 0. Fills the
// lines [first, end) only (callers may split the table between threads); `table` holds
// cycle.size() × words_per_line words, whose indices must fit in 32 bits.
inline void fill_chase_table(const RandomCycle& cycle, std::uint32_t words_per_line,
                             std::uint32_t* table, std::uint64_t first, std::uint64_t end) {
  if (cycle.size() * words_per_line > (std::uint64_t{1} << 32))
    throw std::invalid_argument("chase table: word indices do not fit in 32 bits");
  for (std::uint64_t line = first; line < end; ++line) {
    std::uint32_t* entry = table + line * words_per_line;
    for (std::uint32_t w = 0; w < words_per_line; ++w) entry[w] = 0;
    entry[0] = static_cast<std::uint32_t>(cycle.next(line) * words_per_line);
  }
}

inline std::vector<std::uint32_t> chase_table(const RandomCycle& cycle,
                                              std::uint32_t words_per_line) {
  std::vector<std::uint32_t> table(cycle.size() * words_per_line);
  fill_chase_table(cycle, words_per_line, table.data(), 0, cycle.size());
  return table;
}

}  // namespace bb::reference
