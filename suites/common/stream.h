// STREAM array sizes and work, shared by the bandwidth suite and the cases that stream like it
// (Little's law on the host, the harness's overhead case): arrays past the caches, as BabelStream
// sizes them, and the work theory/stream.h counts.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "harness/case.h"
#include "theory/stream.h"

namespace bb::suites {

inline constexpr std::size_t kHostMinElements = std::size_t{1} << 25;  // BabelStream's default
inline constexpr std::size_t kCudaMinElements = std::size_t{1} << 25;

// Host STREAM arrays together span at least 4x the last-level cache; GPU arrays 8x the L2.
inline constexpr int kHostCacheMultiple = 4;
inline constexpr int kCudaCacheMultiple = 8;

// Elements per array so that 3 arrays span at least `multiple` x the cache, rounded up to 2^20.
inline std::size_t stream_elements(std::uint64_t cache_bytes, int multiple,
                                   std::size_t element_bytes, std::size_t min_elements) {
  const std::uint64_t need =
      static_cast<std::uint64_t>(multiple) * cache_bytes / (3 * element_bytes);
  const std::size_t mib = std::size_t{1} << 20;
  return std::max<std::size_t>(min_elements, (need + mib - 1) / mib * mib);
}

// One sample of a STREAM kernel over n elements of T.
template <class T>
Work stream_work(const theory::StreamKernel& k, std::size_t n) {
  return work_of(theory::stream_work(k, static_cast<double>(n), sizeof(T)),
                 sizeof(T) == 8 ? theory::Precision::fp64 : theory::Precision::fp32);
}

}  // namespace bb::suites
