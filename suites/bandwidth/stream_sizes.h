// Sizes and declared work of the STREAM cases, shared by the host and CUDA case lists.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "harness/case.h"
#include "theory/stream.h"

namespace bb::suites {

inline constexpr std::size_t kHostMinElements = std::size_t{1} << 25;  // BabelStream's default
inline constexpr std::size_t kCudaMinElements = std::size_t{1} << 25;

// Elements per array so that `arrays` arrays span at least 8x the cache, rounded up to 2^20.
inline std::size_t stream_elements(std::uint64_t cache_bytes, std::size_t element_bytes, int arrays,
                                   std::size_t min_elements) {
  const std::uint64_t need = 8 * cache_bytes / (static_cast<std::uint64_t>(arrays) * element_bytes);
  const std::size_t mib = std::size_t{1} << 20;
  return std::max<std::size_t>(min_elements, (need + mib - 1) / mib * mib);
}

// Refuses sizes that would leave less than a quarter of host memory free.
inline void check_host_memory(const HostInfo& host, std::uint64_t bytes) {
  if (host.memory_bytes > 0 && bytes > host.memory_bytes / 4 * 3)
    throw std::runtime_error("needs " + std::to_string(bytes >> 20) +
                             " MiB of host memory, host has " +
                             std::to_string(host.memory_bytes >> 20) + " MiB");
}

template <class T>
Work stream_work(const theory::StreamKernel& k, std::size_t n) {
  Work w;
  const double elements = static_cast<double>(n);
  w.bytes_read = theory::stream_bytes_read(k, elements, sizeof(T));
  w.bytes_written = theory::stream_bytes_written(k, elements, sizeof(T));
  w.flop = theory::stream_flop(k, elements);
  w.elements = elements;
  w.precision = sizeof(T) == 8 ? theory::Precision::fp64 : theory::Precision::fp32;
  return w;
}

}  // namespace bb::suites
