// STREAM kernels (McCalpin 1995) with BabelStream's byte accounting (Deakin et al. 2018):
// bytes moved = arrays touched × elements × element size; flop per element as counted by STREAM.
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "theory/work.h"

namespace bb::theory {

enum class StreamOp { copy, mul, add, triad, dot, nstream };

struct StreamKernel {
  StreamOp op;
  std::string_view name;
  std::string_view formula;  // element-wise operation
  int arrays_read;
  int arrays_written;
  int flop_per_element;
};

inline constexpr std::array<StreamKernel, 6> kStreamKernels = {{
    {StreamOp::copy, "copy", "c = a", 1, 1, 0},
    {StreamOp::mul, "mul", "b = s*c", 1, 1, 1},
    {StreamOp::add, "add", "c = a + b", 2, 1, 1},
    {StreamOp::triad, "triad", "a = b + s*c", 2, 1, 2},
    {StreamOp::dot, "dot", "sum += a*b", 2, 0, 2},
    {StreamOp::nstream, "nstream", "a += b + s*c", 3, 1, 3},
}};

inline const StreamKernel& stream_kernel(StreamOp op) {
  for (const auto& k : kStreamKernels)
    if (k.op == op) return k;
  return kStreamKernels[0];  // unreachable: every op is in the table
}

inline std::optional<StreamKernel> find_stream_kernel(std::string_view name) {
  for (const auto& k : kStreamKernels)
    if (k.name == name) return k;
  return std::nullopt;
}

// Bytes read = arrays read × n × element size (BabelStream: copy 2 arrays in all, triad 3, nstream
// 4).
inline double stream_bytes_read(const StreamKernel& k, double elements, double element_bytes) {
  return k.arrays_read * elements * element_bytes;
}
inline double stream_bytes_written(const StreamKernel& k, double elements, double element_bytes) {
  return k.arrays_written * elements * element_bytes;
}
inline double stream_flop(const StreamKernel& k, double elements) {
  return k.flop_per_element * elements;
}

// One pass of kernel k over arrays of n elements: the three counts above, n elements.
inline WorkCount stream_work(const StreamKernel& k, double elements, double element_bytes) {
  return {stream_bytes_read(k, elements, element_bytes),
          stream_bytes_written(k, elements, element_bytes), stream_flop(k, elements), elements};
}

}  // namespace bb::theory
