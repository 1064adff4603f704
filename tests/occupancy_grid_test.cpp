// The occupancy model (theory/occupancy.h) against NVIDIA's own calculator, cuda_occupancy.h (host
// only, no GPU needed), over the whole grid: every architecture in the table × block sizes 32 …
// 1024 × registers 0 … 255 × shared memory in allocation steps up to the opt-in limit; then odd
// block sizes, carveout preferences, the default (not opted-in) limit, static shared memory and
// barrier counts on dense samples. Zero mismatches allowed, in blocks per SM and in the limiting
// factors; the first few are printed with their configuration.
#include <cuda_occupancy.h>
#include <gtest/gtest.h>
#include <omp.h>

#include <cstdio>
#include <string>
#include <vector>

#include "theory/occupancy.h"

namespace bb::theory {
namespace {

cudaOccDeviceProp oracle_device(const SmLimits& sm) {
  cudaOccDeviceProp p;
  p.computeMajor = sm.cc_major;
  p.computeMinor = sm.cc_minor;
  p.maxThreadsPerBlock = sm.max_threads_per_block;
  p.maxThreadsPerMultiprocessor = sm.max_threads_per_sm;
  p.regsPerBlock = sm.max_registers_per_block;
  p.regsPerMultiprocessor = sm.registers_per_sm;
  p.warpSize = sm.warp_size;
  p.sharedMemPerBlock = sm.shared_per_block_bytes;
  p.sharedMemPerMultiprocessor = sm.shared_per_sm_bytes();
  p.numSms = 1;
  p.sharedMemPerBlockOptin = sm.shared_per_block_optin_bytes;
  p.reservedSharedMemPerBlock = sm.reserved_shared_per_block_bytes;
  return p;
}

struct Config {
  KernelResources k;
  int carveout = kCarveoutDefault;
};

std::string describe(const SmLimits& sm, const Config& c) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%s threads=%d regs=%d static=%zu dynamic=%zu max_dynamic=%zu barriers=%d "
                "carveout=%d",
                sm.arch().c_str(), c.k.threads_per_block, c.k.registers_per_thread,
                c.k.static_shared_bytes, c.k.dynamic_shared_bytes, c.k.max_dynamic_shared_bytes,
                c.k.barriers, c.carveout);
  return buf;
}

// Compares one configuration; returns false (and records it) on any difference.
class Grid {
 public:
  explicit Grid(const SmLimits& sm) : Grid(sm, sm) {}
  // The model runs with `model`, the calculator with `oracle`'s constants (to test the test).
  Grid(const SmLimits& model, const SmLimits& oracle) : sm_(model), prop_(oracle_device(oracle)) {}

  bool same(const Config& c, std::vector<std::string>* mismatches) const {
    cudaOccFuncAttributes attr;
    attr.maxThreadsPerBlock = sm_.max_threads_per_block;
    attr.numRegs = c.k.registers_per_thread;
    attr.sharedSizeBytes = c.k.static_shared_bytes;
    attr.partitionedGCConfig = PARTITIONED_GC_OFF;
    attr.shmemLimitConfig =
        c.k.max_dynamic_shared_bytes > 0 ? FUNC_SHMEM_LIMIT_OPTIN : FUNC_SHMEM_LIMIT_DEFAULT;
    attr.maxDynamicSharedSizeBytes = c.k.max_dynamic_shared_bytes;
    attr.numBlockBarriers = c.k.barriers;
    cudaOccDeviceState state;
    state.carveoutConfig = c.carveout;
    cudaOccResult r{};
    const cudaOccError err = cudaOccMaxActiveBlocksPerMultiprocessor(
        &r, &prop_, &attr, &state, c.k.threads_per_block, c.k.dynamic_shared_bytes);
    const Occupancy o = occupancy(sm_, c.k, c.carveout);
    if (err == CUDA_OCC_SUCCESS && r.activeBlocksPerMultiprocessor == o.blocks_per_sm &&
        r.limitingFactors == o.limiting)
      return true;
    if (mismatches && mismatches->size() < 10) {
      char buf[160];
      std::snprintf(buf, sizeof buf, ": model %d blocks [%s], cuda_occupancy.h %d [%s] (status %d)",
                    o.blocks_per_sm, limiting_factor_names(o.limiting).c_str(),
                    r.activeBlocksPerMultiprocessor,
                    limiting_factor_names(r.limitingFactors).c_str(), static_cast<int>(err));
      mismatches->push_back(describe(sm_, c) + buf);
    }
    return false;
  }

 private:
  const SmLimits& sm_;
  cudaOccDeviceProp prop_;
};

// Runs `body(outer, count_mismatch)` for outer in [0, n) on all threads; returns the mismatch
// count and the first few descriptions.
template <class Body>
long long sweep(int n, const Body& body, std::vector<std::string>& first) {
  long long bad = 0;
#pragma omp parallel for schedule(dynamic) reduction(+ : bad)
  for (int outer = 0; outer < n; ++outer) {
    std::vector<std::string> local;
    bad += body(outer, local);
    if (!local.empty()) {
#pragma omp critical
      for (auto& m : local)
        if (first.size() < 10) first.push_back(std::move(m));
    }
  }
  return bad;
}

void expect_none(long long bad, long long total, const std::vector<std::string>& first) {
  std::string shown;
  for (const auto& m : first) shown += "\n  " + m;
  EXPECT_EQ(bad, 0) << bad << " of " << total << " configurations differ:" << shown;
}

TEST(OccupancyGrid, FullGridOptedIn) {
  long long total = 0, bad = 0;
  std::vector<std::string> first;
  for (const SmLimits& sm : sm_limits_table()) {
    const Grid grid(sm);
    // Steps of half the smallest allocation unit, so that a wrong granularity shows.
    const std::size_t unit = 64;
    const std::size_t max_dynamic = sm.shared_per_block_optin_bytes;
    const int smem_steps = static_cast<int>(max_dynamic / unit) + 1;
    bad += sweep(
        32,
        [&](int t, std::vector<std::string>& local) {
          long long b = 0;
          Config c;
          c.k.threads_per_block = 32 * (t + 1);
          c.k.max_dynamic_shared_bytes = max_dynamic;
          for (int regs = 0; regs <= 255; ++regs) {
            c.k.registers_per_thread = regs;
            for (int s = 0; s < smem_steps; ++s) {
              c.k.dynamic_shared_bytes = static_cast<std::size_t>(s) * unit;
              b += !grid.same(c, &local);
            }
          }
          return b;
        },
        first);
    total += 32LL * 256 * smem_steps;
  }
  expect_none(bad, total, first);
  std::printf("full grid: %lld configurations over %zu architectures, %lld mismatches\n", total,
              sm_limits_table().size(), bad);
}

TEST(OccupancyGrid, EveryBlockSizeCarveoutAndDefaultLimit) {
  long long total = 0, bad = 0;
  std::vector<std::string> first;
  const int carveouts[] = {kCarveoutDefault, 0, 10, 25, 50, 75, 100};
  for (const SmLimits& sm : sm_limits_table()) {
    const Grid grid(sm);
    bad += sweep(
        sm.max_threads_per_block,
        [&](int t, std::vector<std::string>& local) {
          long long b = 0;
          Config c;
          c.k.threads_per_block = t + 1;  // every block size, odd ones included
          for (int regs : {0, 16, 32, 40, 64, 72, 128, 168, 255}) {
            c.k.registers_per_thread = regs;
            for (int carveout : carveouts) {
              c.carveout = carveout;
              // Not opted in: the 48 KiB default limit, and past it.
              for (std::size_t smem = 0; smem <= 64 * 1024; smem += 1536) {
                c.k.max_dynamic_shared_bytes = 0;
                c.k.dynamic_shared_bytes = smem;
                b += !grid.same(c, &local);
              }
            }
          }
          return b;
        },
        first);
    total += static_cast<long long>(sm.max_threads_per_block) * 9 * 7 * 43;
  }
  expect_none(bad, total, first);
}

TEST(OccupancyGrid, StaticSharedBarriersAndDynamicCap) {
  long long total = 0, bad = 0;
  std::vector<std::string> first;
  for (const SmLimits& sm : sm_limits_table()) {
    const Grid grid(sm);
    bad += sweep(
        32,
        [&](int t, std::vector<std::string>& local) {
          long long b = 0;
          Config c;
          c.k.threads_per_block = 32 * (t + 1);
          for (int regs : {0, 32, 64, 128, 255})
            for (int barriers : {0, 1, 2, 3, 16})
              for (std::size_t stat :
                   {std::size_t{0}, std::size_t{100}, std::size_t{4096}, std::size_t{40000}})
                for (std::size_t cap : {std::size_t{0}, std::size_t{16384}, std::size_t{65536}})
                  for (std::size_t dyn = 0; dyn <= 96 * 1024; dyn += 4000) {
                    c.k = {c.k.threads_per_block, regs, stat, dyn, cap, barriers};
                    b += !grid.same(c, &local);
                  }
          return b;
        },
        first);
    total += 32LL * 5 * 5 * 4 * 3 * 25;
  }
  expect_none(bad, total, first);
}

// The comparison catches a model that differs from the calculator, and names the configuration.
TEST(OccupancyGrid, DetectsADifferentModel) {
  SmLimits wrong = *find_sm_limits(9, 0);
  wrong.max_blocks_per_sm = 16;
  const Grid grid(wrong, *find_sm_limits(9, 0));
  Config c;
  c.k.threads_per_block = 32;
  c.k.registers_per_thread = 16;
  std::vector<std::string> mismatches;
  EXPECT_FALSE(grid.same(c, &mismatches));
  ASSERT_EQ(mismatches.size(), 1u);
  EXPECT_NE(mismatches[0].find("sm_90 threads=32 regs=16"), std::string::npos) << mismatches[0];
  EXPECT_NE(mismatches[0].find("model 16 blocks [blocks]"), std::string::npos) << mismatches[0];
  EXPECT_NE(mismatches[0].find("cuda_occupancy.h 32 [blocks]"), std::string::npos) << mismatches[0];
}

}  // namespace
}  // namespace bb::theory
