// The host memory hierarchy: a read-bandwidth sweep and a pointer-chase latency sweep over working
// sets from 4 KiB to 4x the last-level cache, and strided reads against the cache-line model.
#include <algorithm>
#include <memory>
#include <mutex>
#include <vector>

#include "harness/host_threads.h"
#include "kernels/hierarchy.h"
#include "reference/chase.h"
#include "suites/bandwidth/bandwidth_suite.h"
#include "suites/common/host_buffer.h"
#include "suites/common/host_read.h"
#include "suites/common/parallel.h"
#include "theory/hierarchy.h"

namespace bb::suites {
namespace {

constexpr double kReadSampleBytes = 64.0 * (1 << 20);  // bytes read per sample, at least
constexpr std::uint64_t kChaseSteps = 1 << 16;         // dependent loads per sample
constexpr std::uint64_t kChaseWarmLapLines = 1 << 22;  // a full warm-up lap up to 256 MiB
constexpr std::uint64_t kLineBytes = 64;

// The table is the first `lines` lines of an array of `capacity_lines` (the sweep's largest): every
// point of the sweep asks for the same size, which the huge-page pool hands from one point to the
// next (host_buffer.h: fresh huge pages are what cost here); one thread walks it, so where its
// pages were first touched does not matter.
class ChaseHost final : public Instance {
 public:
  ChaseHost(std::uint64_t lines, std::uint64_t capacity_lines)
      : lines_(lines),
        cycle_(lines, 0x2545F4914F6CDD1Dull + lines),
        table_(allocate_host<std::uint32_t>(std::max(lines, capacity_lines) * 16)) {
    parallel_fill_chase_table(cycle_, 16, table_.get());
  }
  Comparison validate() override {
    // Independent of the table: after s steps from line 0 = at(k) the walk is at at(k + s).
    const std::uint64_t k = cycle_.position(0);
    std::vector<double> out, ref;
    for (std::uint64_t s : {std::uint64_t{1}, std::uint64_t{2}, kChaseSteps}) {
      out.push_back(static_cast<double>(kernels::chase_host(table_.get(), s)));
      ref.push_back(static_cast<double>(cycle_.at((k + s) % lines_) * 16));
    }
    // One full lap, so that a working set that fits a cache level is resident when sampling starts.
    if (lines_ <= kChaseWarmLapLines) position_ = kernels::chase_host(table_.get(), lines_);
    return compare<double, double>(out, ref, Tolerance{0, 0});
  }
  // Each sample walks on from where the last one stopped: over the samples the walk covers the
  // cycle instead of repeating its first kChaseSteps lines.
  void run(gpu_stream) override {
    position_ = kernels::chase_host(table_.get(), kChaseSteps, position_);
  }

 private:
  std::uint64_t lines_;
  reference::RandomCycle cycle_;
  HostArray<std::uint32_t> table_;
  std::uint32_t position_ = 0;
};

// Strides of a line or more read the array in `passes` passes, pass p from line p of each group
// of `passes` lines: every stride moves at least all the lines stride 1 does, in a case at least
// as long (the prefetchers stream the whole span each pass: 2.6-3.2x stride 1's time on the EPYC
// VM under load, in a run not committed).
class StridedHost final : public Instance {
 public:
  StridedHost(std::shared_ptr<const double[]> x, std::size_t n, std::size_t stride,
              std::size_t passes)
      : stride_(stride), accesses_(n / stride), passes_(passes), x_(std::move(x)) {}
  Comparison validate() override {
    // x[o + i·s] = (o + i·s) mod 7: small integers, exact in any order. Closed form: i ≡ j (mod 7)
    // holds for m/7 (+1 when j < m mod 7) of the i in [0, m), each reading (o + j·s) mod 7.
    const auto expected = [&](std::size_t m, std::size_t o) {
      double sum = 0;
      for (std::size_t j = 0; j < 7; ++j)
        sum += static_cast<double>((o + j * stride_) % 7 * (m / 7 + (j < m % 7 ? 1 : 0)));
      return sum;
    };
    const std::size_t last = offset(passes_ - 1);
    const std::vector<double> out = {
        kernels::strided_read_host(x_.get(), accesses_ / 3, stride_),
        kernels::strided_read_host(x_.get(), accesses_, stride_),
        kernels::strided_read_host(x_.get() + last, accesses_, stride_)};
    const std::vector<double> ref = {expected(accesses_ / 3, 0), expected(accesses_, 0),
                                     expected(accesses_, last)};
    return compare<double, double>(out, ref, Tolerance{0, 0});
  }
  void run(gpu_stream) override {
    for (std::size_t p = 0; p < passes_; ++p)
      sink_ += kernels::strided_read_host(x_.get() + offset(p), accesses_, stride_);
  }

 private:
  static std::size_t offset(std::size_t pass) { return pass * kLineBytes / sizeof(double); }
  std::size_t stride_, accesses_, passes_;
  std::shared_ptr<const double[]> x_;
  double sink_ = 0;
};

// The bytes a sweep point allocates: its sweep's largest point's (the pool then hands one array
// from point to point, host_buffer.h) where that fits in memory, else its own; checked to fit.
std::uint64_t sweep_capacity(const HostInfo& host, std::uint64_t bytes,
                             std::uint64_t sweep_max_bytes) {
  const std::uint64_t capacity =
      fits_in_memory(sweep_max_bytes, host.memory_bytes) ? std::max(bytes, sweep_max_bytes) : bytes;
  check_host_memory(host, capacity);
  return capacity;
}

Case read_point(std::uint64_t bytes, std::uint64_t sweep_max_bytes) {
  Case c{"read-sweep/host/" + std::to_string(bytes), Backend::host,
         [bytes](const CaseContext& ctx) {
           const int passes = read_passes(bytes, kReadSampleBytes);
           const int threads = openmp_threads();
           Declared d;
           d.work = work_of(theory::read_work(static_cast<double>(bytes), sizeof(double), passes),
                            theory::Precision::fp64, "hierarchy");
           d.params = {{"sweep", "read"},
                       {"working_set_bytes", bytes},
                       {"passes", passes},
                       {"threads", threads},
                       {"virtualized", ctx.host.virtualized},
                       {"cache_levels", host_cache_levels(ctx.host, threads)}};
           return d;
         },
         [bytes, sweep_max_bytes](const CaseContext& ctx, Declared&) -> std::unique_ptr<Instance> {
           // Threads read it: a prefix only where first touch does not place pages.
           const std::uint64_t capacity =
               sweep_capacity(ctx.host, bytes, single_numa_node() ? sweep_max_bytes : bytes);
           return std::make_unique<HostRead>(bytes / sizeof(double),
                                             read_passes(bytes, kReadSampleBytes),
                                             capacity / sizeof(double));
         },
         nullptr};
  c.sweep_point = true;
  return c;
}

Case latency_point(std::uint64_t bytes, std::uint64_t sweep_max_bytes) {
  Case c{"latency-sweep/host/" + std::to_string(bytes), Backend::host,
         [bytes](const CaseContext& ctx) {
           Declared d;
           d.work.memory_level = "latency";  // one dependent load at a time: no work declared
           d.params = {{"sweep", "latency"},
                       {"working_set_bytes", bytes},
                       {"steps", kChaseSteps},
                       {"stride_bytes", kLineBytes},
                       {"cpu_clock_hz", ctx.host.cpu_clock_hz},
                       {"virtualized", ctx.host.virtualized},
                       {"cache_levels", host_cache_levels(ctx.host, 1)}};
           return d;
         },
         [bytes, sweep_max_bytes](const CaseContext& ctx, Declared&) -> std::unique_ptr<Instance> {
           const std::uint64_t capacity = sweep_capacity(ctx.host, bytes, sweep_max_bytes);
           return std::make_unique<ChaseHost>(bytes / kLineBytes, capacity / kLineBytes);
         },
         nullptr};
  c.sweep_point = true;
  return c;
}

// One array x[i] = i mod 7 of n doubles for the strides' instances alive at once (a pairing group:
// all six at a time; they only read it). Six arrays of 2x the last-level cache were 3 GB of fresh
// pages a run, the costliest part of the suite's set-up on a KVM VM (host_buffer.h); each pass
// reads 2x the cache, so a shared array leaves no more in it than a case's own passes do.
class Mod7Array {
 public:
  std::shared_ptr<const double[]> get(std::size_t n) {
    const std::lock_guard lock(mutex_);
    std::shared_ptr<const double[]> x = array_.lock();
    if (!x || n_ != n) {
      auto owner = std::make_shared<HostArray<double>>(allocate_host<double>(n));
      fill_mod7(owner->get(), n);
      x = std::shared_ptr<const double[]>(owner, owner->get());
      array_ = x, n_ = n;
    }
    return x;
  }

 private:
  std::mutex mutex_;
  std::weak_ptr<const double[]> array_;
  std::size_t n_ = 0;
};

// Passes of a strided read: one per line of a stride's step (a stride past a line skips lines).
std::size_t strided_passes(std::size_t stride) {
  return std::max<std::size_t>(1, stride * sizeof(double) / kLineBytes);
}

Case strided_case(std::size_t stride, std::shared_ptr<Mod7Array> shared) {
  Case c{"strided/fp64/host/s" + std::to_string(stride), Backend::host,
         [stride](const CaseContext& ctx) {
           // The array spans 2x the last-level cache (at least 2^25 elements): every pass
           // comes from DRAM whatever the stride.
           const std::size_t n = std::max<std::size_t>(
               kHostMinElements, 2 * ctx.host.last_level_cache_bytes() / sizeof(double));
           const std::size_t accesses = n / stride, passes = strided_passes(stride);
           Declared d;
           // Cache-line model: every 64-byte line holding an element read is moved whole. The
           // passes make every stride's lines stride 1's (bandwidth_checks.cpp: why).
           d.work = work_of(
               theory::strided_read_work(accesses * passes, stride, sizeof(double), kLineBytes),
               theory::Precision::fp64);
           d.params = {{"stride_elements", stride},
                       {"element_bytes", sizeof(double)},
                       {"accesses", accesses},  // per pass
                       {"passes", passes},
                       {"sector_bytes", kLineBytes},
                       {"array_bytes", n * sizeof(double)},
                       {"useful_bytes", accesses * passes * sizeof(double)}};
           d.host_memory_bytes = n * sizeof(double);
           return d;
         },
         [stride, shared](const CaseContext& ctx, Declared& d) -> std::unique_ptr<Instance> {
           const std::size_t n = d.params.at("array_bytes").get<std::size_t>() / sizeof(double);
           check_host_memory(ctx.host, n * sizeof(double));
           return std::make_unique<StridedHost>(shared->get(n), n, stride, strided_passes(stride));
         },
         nullptr};
  // Every stride sampled in the same rounds: the ratios to stride 1 come from the pairs.
  c.pairing_group = "strided";
  return c;
}

}  // namespace

std::vector<Case> hierarchy_host_cases(const SuiteTarget& target) {
  HostInfo nominal;
  nominal.caches.push_back({3, "Unified", std::uint64_t{32} << 20, 1});
  const HostInfo& host = target.host ? *target.host : nominal;
  const auto sizes =
      sweep_sizes(std::max(kHostCacheMultiple * host.last_level_cache_bytes(), kSweepMinMaxBytes),
                  target.quick ? kSweepPerOctaveQuick : kSweepPerOctave);
  std::vector<Case> cases;
  for (std::uint64_t b : sizes) cases.push_back(read_point(b, sizes.back()));
  for (std::uint64_t b : sizes) cases.push_back(latency_point(b, sizes.back()));
  const auto strided_array = std::make_shared<Mod7Array>();
  for (std::size_t s : {1, 2, 4, 8, 16, 32}) cases.push_back(strided_case(s, strided_array));
  return cases;
}

}  // namespace bb::suites
