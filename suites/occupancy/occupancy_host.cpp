// The host side of latency hiding: one thread's DRAM latency (a pointer chase through a random
// cycle of cache lines, 4x the last-level cache) and all threads' streaming-read bandwidth (8x the
// last-level cache), for Little's law on the host.
#include <algorithm>
#include <memory>
#include <vector>

#include "harness/host_threads.h"
#include "kernels/hierarchy.h"
#include "reference/chase.h"
#include "suites/common/host_read.h"
#include "suites/common/memory_guards.h"
#include "suites/common/stream.h"
#include "suites/suites.h"
#include "theory/hierarchy.h"

namespace bb::suites {
namespace {

constexpr std::uint64_t kHostChaseSteps = 1 << 16;

class HostChase final : public Instance {
 public:
  explicit HostChase(std::size_t lines)
      : lines_(lines),
        cycle_(lines, 0x2545F4914F6CDD1Dull),
        next_(reference::chase_table(cycle_, 16)) {}
  Comparison validate() override {
    // Independent of the table: after s steps from line 0 = at(k) the walk is at at(k + s).
    const std::uint64_t k = cycle_.position(0);
    std::vector<double> out, ref;
    for (std::uint64_t s : {kHostChaseSteps / 2, kHostChaseSteps}) {
      out.push_back(static_cast<double>(kernels::chase_host(next_.data(), s)));
      ref.push_back(static_cast<double>(cycle_.at((k + s) % lines_) * 16));
    }
    return compare<double, double>(out, ref, Tolerance{0, 0});
  }
  void run(gpu_stream) override { sink_ ^= kernels::chase_host(next_.data(), kHostChaseSteps); }

 private:
  std::size_t lines_;
  reference::RandomCycle cycle_;
  std::vector<std::uint32_t> next_;
  std::uint32_t sink_ = 0;
};

}  // namespace

std::vector<Case> occupancy_host_cases() {
  return {
      {"host/latency", Backend::host,
       [](const CaseContext& ctx) {
         const std::uint64_t llc = std::max<std::uint64_t>(ctx.host.last_level_cache_bytes(), 1);
         const std::size_t lines = std::max<std::size_t>(4 * llc / 64, std::size_t{1} << 22);
         Declared d;
         d.work.memory_level = "latency";
         d.params = {
             {"steps", kHostChaseSteps}, {"working_set_bytes", lines * 64}, {"stride_bytes", 64}};
         return d;
       },
       [](const CaseContext& ctx, Declared& d) -> std::unique_ptr<Instance> {
         const std::size_t lines = d.params.at("working_set_bytes").get<std::size_t>() / 64;
         check_host_memory(ctx.host, lines * 64);
         return std::make_unique<HostChase>(lines);
       },
       nullptr},
      {"host/read", Backend::host,
       [](const CaseContext& ctx) {
         // One array of at least 8x the last-level cache.
         const std::size_t n = stream_elements(ctx.host.last_level_cache_bytes(), 24,
                                               sizeof(double), kHostMinElements);
         Declared d;
         d.work =
             work_of(theory::read_work(static_cast<double>(n) * sizeof(double), sizeof(double), 1),
                     theory::Precision::fp64);
         const int cores =
             ctx.host.physical_cores > 0 ? ctx.host.physical_cores : ctx.host.logical_cpus;
         d.params = {{"elements", n},
                     {"threads", openmp_threads()},
                     {"cores", cores},
                     {"fp64_lanes", ctx.host.fp64_simd_lanes()},
                     {"parallel_fp64_lanes", cores * ctx.host.fp64_simd_lanes()},
                     {"line_bytes", 64}};
         return d;
       },
       [](const CaseContext& ctx, Declared& d) -> std::unique_ptr<Instance> {
         const auto n = d.params.at("elements").get<std::size_t>();
         check_host_memory(ctx.host, n * sizeof(double));
         return std::make_unique<HostRead>(n, 1);
       },
       nullptr},
  };
}

}  // namespace bb::suites
