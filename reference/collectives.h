// CPU reference of the collectives: inputs whose reduced results are exact in every data type
// (small integers), and the output every rank must hold afterwards, element by element, in the
// layout of nccl-tests (rank r's part of an all_gather at offset r·count, …).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "reference/formats.h"
#include "theory/collectives.h"

namespace bb::reference {

enum class DType { fp32, bf16, fp16, int32 };
enum class RedOp { sum, max, min };
inline constexpr DType kAllDTypes[] = {DType::fp32, DType::bf16, DType::fp16, DType::int32};
inline constexpr RedOp kAllRedOps[] = {RedOp::sum, RedOp::max, RedOp::min};

inline std::string_view dtype_name(DType t) {
  constexpr std::string_view names[] = {"fp32", "bf16", "fp16", "int32"};
  return names[static_cast<int>(t)];
}
inline std::optional<DType> dtype_from_name(std::string_view n) {
  for (auto t : kAllDTypes)
    if (dtype_name(t) == n) return t;
  return std::nullopt;
}
inline std::string_view redop_name(RedOp o) {
  constexpr std::string_view names[] = {"sum", "max", "min"};
  return names[static_cast<int>(o)];
}
inline std::optional<RedOp> redop_from_name(std::string_view n) {
  for (auto o : kAllRedOps)
    if (redop_name(o) == n) return o;
  return std::nullopt;
}
inline std::size_t dtype_bytes(DType t) { return t == DType::bf16 || t == DType::fp16 ? 2 : 4; }

// Element counts of one rank's input and output buffers for a message of nominal `bytes` (the
// size nccl-tests prints), rounded down so that every rank's share is whole; count 0: too small.
struct CollectiveShape {
  std::size_t count = 0;      // elements of the message n
  std::size_t in_count = 0;   // elements of one rank's send buffer
  std::size_t out_count = 0;  // elements of one rank's receive buffer
  std::size_t bytes = 0;      // n = count × element size
};
inline CollectiveShape collective_shape(theory::Collective c, std::size_t bytes, int ranks,
                                        DType t) {
  using theory::Collective;
  const auto p = static_cast<std::size_t>(ranks);
  std::size_t n = bytes / dtype_bytes(t);
  const bool split =
      c == Collective::all_gather || c == Collective::reduce_scatter || c == Collective::all_to_all;
  if (split) n -= n % p;
  CollectiveShape s{n, n, n, n * dtype_bytes(t)};
  if (c == Collective::all_gather) s.in_count = n / p;
  if (c == Collective::reduce_scatter) s.out_count = n / p;
  return s;
}

// Input element i of rank r: an integer in [−A, A], A = the largest amplitude (≤ 3) whose sum over
// all ranks stays exact in the type (|Σ| ≤ 256 for bf16, 2048 for fp16, 2^24 for fp32).
inline int pattern_amplitude(DType t, int ranks) {
  const long limit = t == DType::bf16 ? 256 : t == DType::fp16 ? 2048 : 1L << 24;
  return static_cast<int>(std::clamp<long>(limit / std::max(ranks, 1), 1, 3));
}
// v(r, i) = ((11·r + c_i) mod m) − A with m = 2A + 1 ∈ {3, 5, 7} and c_i = 3i + ⌊i/7⌋: 11 is
// coprime to every m, so consecutive ranks run through all m values (every rank counts).
inline std::uint64_t pattern_offset(std::size_t i) { return i * 3 + i / 7; }
inline int pattern_value(int rank, std::size_t i, int amplitude) {
  const auto m = static_cast<std::uint64_t>(2 * amplitude + 1);
  return static_cast<int>((static_cast<std::uint64_t>(rank) * 11 + pattern_offset(i)) % m) -
         amplitude;
}

inline std::uint32_t encode_element(DType t, double v) {
  switch (t) {
    case DType::fp32: return std::bit_cast<std::uint32_t>(static_cast<float>(v));
    case DType::bf16:
      return static_cast<std::uint32_t>(encode(theory::format_spec(theory::Format::bf16), v));
    case DType::fp16:
      return static_cast<std::uint32_t>(encode(theory::format_spec(theory::Format::fp16), v));
    case DType::int32: return static_cast<std::uint32_t>(static_cast<std::int32_t>(v));
  }
  return 0;
}
inline double decode_element(DType t, std::uint32_t code) {
  switch (t) {
    case DType::fp32: return std::bit_cast<float>(code);
    case DType::bf16: return decode(theory::format_spec(theory::Format::bf16), code);
    case DType::fp16: return decode(theory::format_spec(theory::Format::fp16), code);
    case DType::int32: return static_cast<std::int32_t>(code);
  }
  return 0;
}
inline void store_element(DType t, void* data, std::size_t i, std::uint32_t code) {
  if (dtype_bytes(t) == 2) {
    const auto c16 = static_cast<std::uint16_t>(code);
    std::memcpy(static_cast<char*>(data) + 2 * i, &c16, 2);
  } else {
    std::memcpy(static_cast<char*>(data) + 4 * i, &code, 4);
  }
}
inline std::uint32_t load_element(DType t, const void* data, std::size_t i) {
  if (dtype_bytes(t) == 2) {
    std::uint16_t c16 = 0;
    std::memcpy(&c16, static_cast<const char*>(data) + 2 * i, 2);
    return c16;
  }
  std::uint32_t c = 0;
  std::memcpy(&c, static_cast<const char*>(data) + 4 * i, 4);
  return c;
}

// Rank r's input: elements [first, first + count) of its pattern.
inline void fill_input(DType t, int rank, int amplitude, void* data, std::size_t count,
                       std::size_t first = 0) {
  std::uint32_t codes[7];  // pattern values are −3…3: encode each once
  for (int v = -3; v <= 3; ++v) codes[v + 3] = encode_element(t, v);
  for (std::size_t i = 0; i < count; ++i)
    store_element(t, data, i, codes[pattern_value(rank, first + i, amplitude) + 3]);
}

// Output poison: a NaN for the float types, a value no pattern reduces to for int32.
inline void poison_output(DType t, void* data, std::size_t count) {
  const std::uint32_t code = t == DType::fp32    ? 0x7FBADBADu
                             : t == DType::int32 ? 0x7F7F7F7Fu
                             : t == DType::bf16  ? 0x7FDAu  // NaN
                                                 : 0x7E5Au;  // fp16 NaN
  for (std::size_t i = 0; i < count; ++i) store_element(t, data, i, code);
}

inline long reduce_values(RedOp op, long a, long b) {
  return op == RedOp::sum ? a + b : op == RedOp::max ? std::max(a, b) : std::min(a, b);
}

// The reduction of element i over ranks 0 … p−1 in O(m), not O(p): the values repeat with period
// m in r and a full period sums to 0 and holds both −A and A, so only the first p mod m ranks
// matter for the sum, and p ≥ m gives max A and min −A.
inline long reduced_value(RedOp op, std::size_t i, int ranks, int amplitude) {
  const int m = 2 * amplitude + 1;
  if (op == RedOp::max && ranks >= m) return amplitude;
  if (op == RedOp::min && ranks >= m) return -amplitude;
  const int first = op == RedOp::sum ? ranks % m : ranks;
  long acc = op == RedOp::sum ? 0 : pattern_value(0, i, amplitude);
  for (int r = op == RedOp::sum ? 0 : 1; r < first; ++r)
    acc = reduce_values(op, acc, pattern_value(r, i, amplitude));
  return acc;
}

// The value that must be at element i of `rank`'s output (layout of nccl-tests; MPI's in-place
// reduce_scatter keeps its result at the front, which is the same view of the output).
inline long expected_output(theory::Collective c, RedOp op, int rank, int ranks, int root,
                            const CollectiveShape& s, int amplitude, std::size_t i) {
  using theory::Collective;
  const std::size_t share = s.count / static_cast<std::size_t>(ranks);
  const auto reduced = [&](std::size_t index) {
    return reduced_value(op, index, ranks, amplitude);
  };
  switch (c) {
    case Collective::all_reduce:
    case Collective::reduce: return reduced(i);
    case Collective::reduce_scatter: return reduced(static_cast<std::size_t>(rank) * share + i);
    case Collective::all_gather:
      return pattern_value(static_cast<int>(i / share), i % share, amplitude);
    case Collective::broadcast: return pattern_value(root, i, amplitude);
    case Collective::all_to_all:
      return pattern_value(static_cast<int>(i / share),
                           static_cast<std::size_t>(rank) * share + i % share, amplitude);
    case Collective::send_recv: return pattern_value((rank + ranks - 1) % ranks, i, amplitude);
  }
  return 0;
}

// Whether `rank` has an output to check (a reduce leaves only the root's defined).
inline bool has_output(theory::Collective c, int rank, int root) {
  return c != theory::Collective::reduce || rank == root;
}

// Elements of `rank`'s output that differ from the reference, compared as codes (exact).
inline std::size_t count_wrong(theory::Collective c, RedOp op, DType t, int rank, int ranks,
                               int root, const CollectiveShape& s, const void* out) {
  if (!has_output(c, rank, root)) return 0;
  const int amplitude = pattern_amplitude(t, ranks);
  std::uint32_t codes[2 * 3 * 256 * 3 + 1];  // |expected| ≤ 3·ranks: encode lazily by value
  constexpr long kOffset = 2304;
  std::fill(std::begin(codes), std::end(codes), 0xFFFFFFFFu);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < s.out_count; ++i) {
    const long v = expected_output(c, op, rank, ranks, root, s, amplitude, i);
    std::uint32_t want = 0;
    if (v + kOffset >= 0 && v + kOffset < static_cast<long>(std::size(codes))) {
      auto& slot = codes[v + kOffset];
      if (slot == 0xFFFFFFFFu) slot = encode_element(t, static_cast<double>(v));
      want = slot;
    } else {
      want = encode_element(t, static_cast<double>(v));
    }
    wrong += load_element(t, out, i) != want;
  }
  return wrong;
}

}  // namespace bb::reference
