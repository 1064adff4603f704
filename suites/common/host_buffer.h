// Host arrays for the bandwidth cases: uninitialised (the first touch happens in the parallel fill
// of whoever owns it), 64-byte aligned, and from 2 MiB up aligned to 2 MiB and advised as
// transparent huge pages, so that TLB misses do not pose as cache misses in the sweeps.
//
// Huge-page arrays are recycled within the process, by exact size: a freed one is kept and handed
// to the next request of the same size. A fresh huge page can cost far more than the array's use:
// on this project's 2-core KVM VMs the fp64 STREAM copy's 1.1 GB took 12.9 s of system time to
// fault in (perf: clear_page_erms under do_huge_pmd_anonymous_page; 0.24 s as 4 KiB pages), the
// guest handing its free 2 MiB blocks back to the host (virtio-balloon free page reporting), so
// that each is faulted in on the host again. Exact sizes only: the same size is filled by the same
// threads' ranges, so the pages stay where first touch put them (a NUMA machine's placement is the
// case's own). What is kept stays within a quarter of physical memory, and a fresh array first
// frees kept ones (the longest kept first) until arrays in use and kept fit in three quarters, the
// most one case may ask for (memory_guards.h): the pool never makes a case fail to fit.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <iterator>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace bb::suites {

inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

// The huge-page blocks: the ones in use and the freed ones kept for reuse, by size (a process-wide
// allocator's free list, as malloc's own: the cases of a run share it). Thread-safe.
class HugeBlockPool {
 public:
  // Keeps at most `keep_bytes`; frees kept blocks before a fresh one would take blocks in use and
  // kept past `limit_bytes`.
  HugeBlockPool(std::size_t keep_bytes, std::size_t limit_bytes)
      : keep_bytes_(keep_bytes), limit_bytes_(limit_bytes) {}
  HugeBlockPool(const HugeBlockPool&) = delete;
  HugeBlockPool& operator=(const HugeBlockPool&) = delete;
  ~HugeBlockPool() {
    for (const Block& b : kept_) std::free(b.p);
  }
  // A block of `bytes` (a multiple of kHugePageBytes), 2 MiB aligned and advised as huge pages: the
  // one of that size kept last, else a fresh one; nullptr when none can be had.
  void* allocate(std::size_t bytes) {
    std::vector<Block> evicted;
    {
      const std::lock_guard lock(mutex_);
      for (auto it = kept_.rbegin(); it != kept_.rend(); ++it)
        if (it->bytes == bytes) {
          void* p = it->p;
          kept_.erase(std::next(it).base());
          held_bytes_ -= bytes;
          live_bytes_ += bytes;
          return p;
        }
      evicted = evict_while([&] { return live_bytes_ + held_bytes_ + bytes > limit_bytes_; });
    }
    for (const Block& b : evicted) std::free(b.p);
    void* p = std::aligned_alloc(kHugePageBytes, bytes);
    if (!p) return nullptr;
    ::madvise(p, bytes, MADV_HUGEPAGE);  // advice: failure is harmless
    const std::lock_guard lock(mutex_);
    live_bytes_ += bytes;
    return p;
  }
  // Takes back a block from allocate(): kept, the longest kept freed while past keep_bytes.
  void give(void* p, std::size_t bytes) {
    std::vector<Block> evicted;
    {
      const std::lock_guard lock(mutex_);
      live_bytes_ -= bytes;
      kept_.push_back({p, bytes});
      held_bytes_ += bytes;
      evicted = evict_while([&] { return held_bytes_ > keep_bytes_; });
    }
    for (const Block& b : evicted) std::free(b.p);
  }
  std::size_t held_bytes() const {
    const std::lock_guard lock(mutex_);
    return held_bytes_;
  }

 private:
  struct Block {
    void* p;
    std::size_t bytes;
  };
  // Takes the longest kept blocks out while `more()` holds (under the lock), for freeing after it.
  template <class More>
  std::vector<Block> evict_while(More more) {
    std::size_t gone = 0;
    while (gone < kept_.size() && more()) held_bytes_ -= kept_[gone++].bytes;
    std::vector<Block> evicted(kept_.begin(), kept_.begin() + static_cast<std::ptrdiff_t>(gone));
    kept_.erase(kept_.begin(), kept_.begin() + static_cast<std::ptrdiff_t>(gone));
    return evicted;
  }

  mutable std::mutex mutex_;
  std::vector<Block> kept_;  // in the order given
  std::size_t held_bytes_ = 0, live_bytes_ = 0;
  std::size_t keep_bytes_, limit_bytes_;
};

// The process's pool: keeps a quarter of physical memory at most, in use and kept within three
// quarters. Never destroyed (an array freed during static destruction still has a pool to go to);
// what it keeps at exit goes back with the process.
inline HugeBlockPool& huge_block_pool() {
  static HugeBlockPool* const pool = [] {
    const std::size_t memory_bytes = static_cast<std::size_t>(sysconf(_SC_PHYS_PAGES)) *
                                     static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    return new HugeBlockPool(memory_bytes / 4, memory_bytes / 4 * 3);
  }();
  return *pool;
}

// Frees a small array; hands a huge-page one (pooled_bytes > 0) back to the pool.
struct FreeDeleter {
  std::size_t pooled_bytes = 0;
  void operator()(void* p) const {
    if (pooled_bytes > 0)
      huge_block_pool().give(p, pooled_bytes);
    else
      std::free(p);
  }
};

// Whether the machine has one NUMA node (no /sys/devices/system/node/node1): there an array's pages
// serve every thread alike, wherever first touch put them.
inline bool single_numa_node() { return ::access("/sys/devices/system/node/node1", F_OK) != 0; }

template <class T>
using HostArray = std::unique_ptr<T[], FreeDeleter>;

template <class T>
HostArray<T> allocate_host(std::size_t n) {
  const std::size_t align = n * sizeof(T) >= kHugePageBytes ? kHugePageBytes : 64;
  const std::size_t bytes = (n * sizeof(T) + align - 1) / align * align;
  void* p = align == kHugePageBytes ? huge_block_pool().allocate(bytes)
                                    : std::aligned_alloc(align, bytes);
  if (!p) throw std::runtime_error("cannot allocate " + std::to_string(bytes) + " host bytes");
  return HostArray<T>(static_cast<T*>(p), FreeDeleter{align == kHugePageBytes ? bytes : 0});
}

}  // namespace bb::suites
