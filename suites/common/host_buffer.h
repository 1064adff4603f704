// Host arrays for the bandwidth cases: uninitialised (the first touch happens in the parallel fill
// of whoever owns it), 64-byte aligned, and from 2 MiB up aligned to 2 MiB and advised as
// transparent huge pages, so that TLB misses do not pose as cache misses in the sweeps.
#pragma once

#include <sys/mman.h>

#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>

namespace bb::suites {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

template <class T>
using HostArray = std::unique_ptr<T[], FreeDeleter>;

inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

template <class T>
HostArray<T> allocate_host(std::size_t n) {
  const std::size_t align = n * sizeof(T) >= kHugePageBytes ? kHugePageBytes : 64;
  const std::size_t bytes = (n * sizeof(T) + align - 1) / align * align;
  auto* p = static_cast<T*>(std::aligned_alloc(align, bytes));
  if (!p) throw std::runtime_error("cannot allocate " + std::to_string(bytes) + " host bytes");
  if (align == kHugePageBytes) ::madvise(p, bytes, MADV_HUGEPAGE);  // advice: failure is harmless
  return HostArray<T>(p);
}

}  // namespace bb::suites
