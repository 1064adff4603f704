// Occupancy on the GPU: co-resident blocks per SM measured (each block records %smid and
// %globaltimer) against the model and cudaOccupancyMaxActiveBlocksPerMultiprocessor, cooperative
// launches at and past the limit, waves, divergence, bank conflicts, forced spills, DRAM latency
// and latency hiding. CUDA builds only; the checks over all cases are in occupancy_checks.cpp.
#include <algorithm>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "harness/checks.h"
#include "harness/gpu.h"
#include "harness/simulated_timing.h"
#include "kernels/occupancy.h"
#include "reference/chase.h"
#include "reference/occupancy.h"
#include "suites/common/parallel.h"
#include "suites/occupancy/occupancy_suite.h"
#include "suites/suites.h"
#include "theory/hierarchy.h"
#include "theory/occupancy.h"
#include "theory/simulated_gpu.h"

namespace bb::suites {
namespace {

using kernels::BlockRecord;
using kernels::ResidencyKernel;

constexpr std::size_t kDefaultSharedLimit = 48 * 1024;

// The architecture's limits; on a simulator (GPGPU-Sim), the limits of its config as the device
// reports them and its allocation rules (theory/simulated_gpu.h): SM86_RTX3070's config gives 32
// block slots per SM where an sm_86 GPU has 16.
theory::SmLimits sm_limits_of(const GpuDevice& gpu) {
  const theory::SmLimits* sm = theory::find_sm_limits(gpu.cc_major, gpu.cc_minor);
  if (!sm) throw std::runtime_error(gpu.arch() + " is not in the occupancy table");
  if (!gpu.simulated) return *sm;
  if (gpu.shared_memory_per_sm_bytes != sm->shared_per_sm_bytes())
    throw std::runtime_error("the simulator's shared memory per SM (" +
                             std::to_string(gpu.shared_memory_per_sm_bytes) + " B) is not " +
                             gpu.arch() + "'s largest carveout (" +
                             std::to_string(sm->shared_per_sm_bytes()) + " B): no model for it");
  return theory::gpgpusim_sm_limits(*sm, gpu.max_threads_per_sm, gpu.max_blocks_per_sm,
                                    gpu.registers_per_sm);
}

// GPGPU-Sim places blocks, and answers cudaOccupancyMaxActiveBlocksPerMultiprocessor and the
// cooperative launch's limit, counting a kernel's static shared memory only (shader.cc max_cta:
// kernel_info->smem): dynamic shared memory limits no residency there.
constexpr const char* kSimulatorDynamicShared =
    "not judged on a simulator: GPGPU-Sim counts static shared memory only when it places blocks "
    "(shader.cc max_cta, kernel_info->smem; its occupancy API and cooperative launch call it), so "
    "dynamic shared memory limits no residency there";

// Residency, waves, divergence and bank conflicts work in registers and shared memory and write
// a few results: no L2 flush between their samples (it changes nothing they read, and on a timing
// simulator each flush is a host copy of 2x the L2, seconds of simulation).
constexpr bool kNoMemoryData = true;

// Blocks that hold their SM for spin_ns; by default two waves' worth, so every SM fills up.
class Residency final : public Instance {
 public:
  Residency(const GpuDevice& gpu, ResidencyKernel kernel, int threads, std::size_t dynamic_shared,
            int blocks, std::uint64_t spin_ns, bool cooperative)
      : gpu_(gpu),
        kernel_(kernel),
        threads_(threads),
        dynamic_(dynamic_shared),
        spin_ns_(spin_ns),
        cooperative_(cooperative) {
    if (dynamic_ > kDefaultSharedLimit) kernels::residency_allow_dynamic_shared(kernel_, dynamic_);
    attributes_ = kernels::residency_attributes(kernel_);
    theory::KernelResources k;
    k.threads_per_block = threads_;
    k.registers_per_thread = attributes_.registers;
    k.static_shared_bytes = attributes_.static_shared_bytes;
    k.dynamic_shared_bytes = dynamic_;
    k.max_dynamic_shared_bytes = dynamic_ > kDefaultSharedLimit ? dynamic_ : 0;
    const theory::SmLimits limits = sm_limits_of(gpu_);
    model_ = theory::occupancy(limits, k);
    model_source_ = limits.source;
    api_ = kernels::residency_api_blocks_per_sm(kernel_, threads_, dynamic_);
    blocks_ = blocks > 0 ? blocks : 2 * gpu_.sm_count * std::max({model_.blocks_per_sm, api_, 1});
    records_ = DeviceBuffer(static_cast<std::size_t>(blocks_) * sizeof(BlockRecord));
  }

  Comparison validate() override {
    records_.fill_bytes(0xFF);  // poison: block ids of ~0 never match
    run(nullptr);
    std::vector<BlockRecord> rec(static_cast<std::size_t>(blocks_));
    records_.download(rec.data(), rec.size() * sizeof(BlockRecord));
    // Per block: its id (proves the record was written) and 1 if its SM and times make sense.
    const std::size_t n = rec.size();
    std::vector<double> out(2 * n), ref(2 * n);
    for (std::size_t i = 0; i < n; ++i) {
      const bool sane = rec[i].smid < static_cast<std::uint32_t>(gpu_.sm_count) &&
                        rec[i].end_ns >= rec[i].start_ns + spin_ns_;
      out[i] = rec[i].block;
      ref[i] = static_cast<double>(i);
      out[n + i] = sane ? 1.0 : 0.0;
      ref[n + i] = 1.0;
    }
    measured_ = max_co_resident(rec);
    if (cooperative_) {
      const int limit = model_.blocks_per_sm * gpu_.sm_count;
      at_limit_ = kernels::residency_cooperative_launch(kernel_, records_.as<BlockRecord>(), limit,
                                                        threads_, dynamic_, spin_ns_);
      over_limit_ = kernels::residency_cooperative_launch(kernel_, records_.as<BlockRecord>(),
                                                          limit + 1, threads_, dynamic_, spin_ns_);
    }
    return compare<double, double>(out, ref, Tolerance{0, 0});
  }

  void run(gpu_stream s) override {
    kernels::residency_launch(kernel_, records_.as<BlockRecord>(), blocks_, threads_, dynamic_,
                              spin_ns_, s);
  }

  nlohmann::json observations() override {
    nlohmann::json j = {{"model_blocks_per_sm", model_.blocks_per_sm},
                        {"model_binding_limit", theory::limiting_factor_names(model_.limiting)},
                        {"api_blocks_per_sm", api_},
                        {"measured_max_blocks_per_sm", measured_},
                        {"registers_per_thread", attributes_.registers},
                        {"static_shared_bytes", attributes_.static_shared_bytes},
                        {"blocks_per_wave", model_.blocks_per_sm * gpu_.sm_count},
                        {"grid_blocks", blocks_}};
    if (cooperative_) {
      j["cooperative_at_limit"] = at_limit_.empty() ? "success" : at_limit_;
      j["cooperative_over_limit"] = over_limit_.empty() ? "success" : over_limit_;
    }
    if (gpu_.simulated) j["model_source"] = model_source_;
    if (gpu_.simulated && dynamic_ > 0) j["not_judged"] = kSimulatorDynamicShared;
    return j;
  }

 private:
  const GpuDevice& gpu_;
  ResidencyKernel kernel_;
  int threads_;
  std::size_t dynamic_;
  std::uint64_t spin_ns_;
  bool cooperative_;
  kernels::KernelAttributes attributes_;
  theory::Occupancy model_;
  std::string model_source_;
  int api_ = 0, blocks_ = 0, measured_ = 0;
  std::string at_limit_, over_limit_;
  DeviceBuffer records_;
};

Case residency_case(const std::string& label, ResidencyKernel kernel, int threads,
                    std::size_t dynamic_shared) {
  const std::string name = "residency/" + label;
  Case c{name, Backend::cuda,
         [=](const CaseContext& ctx) {
           Declared d;  // no work: the case counts blocks, not flop or bytes
           d.params = {{"kernel", kernel == ResidencyKernel::light ? "light" : "heavy"},
                       {"threads_per_block", threads},
                       {"dynamic_shared_bytes", dynamic_shared},
                       {"spin_ns", residency_spin_ns(ctx.gpu)}};
           return d;
         },
         [=](const CaseContext& ctx, Declared& d) -> std::unique_ptr<Instance> {
           return std::make_unique<Residency>(*ctx.gpu, kernel, threads, dynamic_shared, 0,
                                              d.params.at("spin_ns").get<std::uint64_t>(), true);
         },
         [name](const Prepared& p, const Measurement&) {
           const nlohmann::json o = p.instance->observations();
           const double model = o["model_blocks_per_sm"], api = o["api_blocks_per_sm"];
           const double measured = o["measured_max_blocks_per_sm"];
           const std::string binding = o["model_binding_limit"];
           std::vector<Check> checks = {
               observed_check(name + "/model_vs_cuda_api",
                              "model blocks/SM == cudaOccupancyMaxActiveBlocksPerMultiprocessor",
                              model, api, "bound by " + binding),
               observed_check(name + "/measured", "measured max co-resident blocks/SM == model",
                              model, measured, "from each block's %smid and %globaltimer")};
           const std::string at = o["cooperative_at_limit"], over = o["cooperative_over_limit"];
           checks.push_back(observed_check(
               name + "/cooperative",
               "cooperative launch of model x SMs blocks succeeds, one more fails", 1,
               at == "success" && over == "cudaErrorCooperativeLaunchTooLarge" ? 1 : 0,
               "at the limit: " + at + "; one block more: " + over));
           if (o.contains("not_judged"))
             for (Check& k : checks) {
               const double expected = k.predicted, got = k.measured;
               k = skipped({"occupancy", k.name, k.law},
                           o["not_judged"].get<std::string>() + " (model " +
                               fmt::format("{:g}", expected) + ", measured " +
                               fmt::format("{:g}", got) + "; " + k.reason + ")");
               k.predicted = expected;
               k.measured = got;
             }
           return checks;
         }};
  c.warm_caches = kNoMemoryData;
  return c;
}

// Waves: the light kernel at 256 threads, each block spinning 50 us, at grid sizes around
// multiples of one wave (SMs x blocks per SM).
Case waves_case(const std::string& label, double waves_times, int plus) {
  Case c{"waves/" + label, Backend::cuda,
         [=](const CaseContext& ctx) {
           Declared d;  // no work: the case counts waves
           d.params = {{"threads_per_block", 256}, {"spin_ns", waves_spin_ns(ctx.gpu)}};
           return d;
         },
         [=](const CaseContext& ctx, Declared& d) -> std::unique_ptr<Instance> {
           const GpuDevice& gpu = *ctx.gpu;
           // One wave = SMs x the model's blocks per SM for this kernel and block size (the
           // kernel's registers come from the device: params only the device can tell).
           Residency probe(gpu, ResidencyKernel::light, 256, 0, 1, 0, false);
           const int per_wave = probe.observations()["blocks_per_wave"];
           const int blocks = std::max(1, static_cast<int>(waves_times * per_wave) + plus);
           d.params["blocks"] = blocks;
           d.params["blocks_per_wave"] = per_wave;
           return std::make_unique<Residency>(gpu, ResidencyKernel::light, 256, 0, blocks,
                                              d.params.at("spin_ns").get<std::uint64_t>(), false);
         },
         nullptr};
  c.warm_caches = kNoMemoryData;
  return c;
}

template <class Launch, class Reference>
class FloatKernel final : public Instance {
 public:
  FloatKernel(int blocks, int threads, Launch launch, Reference reference)
      : n_(static_cast<std::size_t>(blocks) * threads),
        blocks_(blocks),
        threads_(threads),
        launch_(launch),
        reference_(reference),
        out_(n_ * sizeof(float)) {}
  Comparison validate() override {
    out_.fill_bytes(0xFF);  // NaN poison
    run(nullptr);
    std::vector<float> out(n_), ref(n_);
    out_.download(out.data(), n_ * sizeof(float));
    for (std::size_t i = 0; i < n_; ++i) ref[i] = reference_(static_cast<int>(i));
    return compare<float, float>(out, ref, Tolerance{0, 0});  // same operations: bit-exact
  }
  void run(gpu_stream s) override { launch_(out_.as<float>(), blocks_, threads_, s); }

 private:
  std::size_t n_;
  int blocks_, threads_;
  Launch launch_;
  Reference reference_;
  DeviceBuffer out_;
};

template <class Launch, class Reference>
std::unique_ptr<Instance> float_kernel(int blocks, int threads, Launch l, Reference r) {
  return std::make_unique<FloatKernel<Launch, Reference>>(blocks, threads, l, r);
}

// The blocks of a grid whose threads each take `per_thread` steps, as the device affords them (at
// least one).
int affordable_blocks(const GpuDevice& gpu, int blocks, int threads, std::size_t per_thread) {
  const std::size_t per_block = static_cast<std::size_t>(threads) * per_thread;
  return static_cast<int>(std::max<std::size_t>(
      1, affordable_elements(&gpu, static_cast<std::size_t>(blocks) * per_block) / per_block));
}

// A grid's blocks and the steps each of its threads takes.
struct GridShape {
  int blocks = 0;
  int steps_per_thread = 0;
};

// 8 blocks per SM of 256 threads each taking `steps` steps, as the device affords them.
GridShape default_grid(const GpuDevice& gpu, int steps) {
  return {affordable_blocks(gpu, gpu.sm_count * 8, 256, static_cast<std::size_t>(steps)), steps};
}

// A FloatKernel case of 256-thread blocks on the grid `grid(gpu)` picks (a GridShape):
// `count(threads, steps)` its work over the grid's threads, bounded in `memory_level`; `params`
// its own besides the grid (which adds blocks, threads_per_block and iters, the steps);
// `launch(out, steps, blocks, threads, stream)` and `lane(i, steps)` the kernel and each thread's
// reference value.
template <class Grid, class Count, class Launch, class Lane>
Case grid_case(std::string name, const char* memory_level, const nlohmann::json& params, Grid grid,
               Count count, Launch launch, Lane lane) {
  constexpr int kThreads = 256;
  Case c{std::move(name), Backend::cuda,
         [=](const CaseContext& ctx) {
           const GridShape g = grid(*ctx.gpu);
           Declared d;
           d.work = work_of(count(g.blocks * kThreads, g.steps_per_thread), theory::Precision::fp32,
                            memory_level);
           d.params = params;
           d.params["blocks"] = g.blocks;
           d.params["threads_per_block"] = kThreads;
           d.params["iters"] = g.steps_per_thread;
           return d;
         },
         [=](const CaseContext&, Declared& d) {
           const int steps = d.params.at("iters").get<int>();
           return float_kernel(
               d.params.at("blocks").get<int>(), kThreads,
               [launch, steps](float* out, int b, int t, gpu_stream s) {
                 launch(out, steps, b, t, s);
               },
               [lane, steps](int i) { return lane(i, steps); });
         },
         nullptr};
  c.warm_caches = kNoMemoryData;
  return c;
}

Case divergence_case(int paths) {
  return grid_case(
      "divergence/paths=" + std::to_string(paths), "registers",  // useful FMAs only
      {{"paths", paths}}, [](const GpuDevice& gpu) { return default_grid(gpu, kDivergenceIters); },
      [](int threads, int iters) { return theory::divergence_work(threads, iters); },
      [paths](float* out, int iters, int b, int t, gpu_stream s) {
        kernels::divergence_launch(out, paths, iters, b, t, s);
      },
      [paths](int i, int iters) { return reference::divergence_lane(i & 31, paths, iters); });
}

// Bank conflicts: 256-thread blocks each reading `iters` shared-memory words at `stride`, one add
// per word read (the grid and reads: harness/simulated_timing.h bank_grid, a timing simulator
// takes its own).
Case bank_case(int stride) {
  return grid_case(
      "bank_conflicts/stride=" + std::to_string(stride), "shared",
      {{"stride_words", stride}, {"conflict_ways", theory::bank_conflict_ways(stride)}},
      [](const GpuDevice& gpu) {
        const BankGrid g = bank_grid(gpu, default_grid(gpu, kBankIters).blocks, kBankIters);
        return GridShape{g.blocks, g.reads_per_thread};
      },
      [](int threads, int reads) { return theory::bank_conflict_work(threads, reads); },
      [stride](float* out, int reads, int b, int t, gpu_stream s) {
        kernels::bank_conflict_launch(out, stride, reads, b, t, s);
      },
      [stride](int i, int reads) { return reference::bank_lane(i & 31, stride, reads); });
}

Case spill_case(kernels::SpillVariant v) {
  const bool capped = v == kernels::SpillVariant::capped;
  return {std::string("spills/") + (capped ? "capped" : "uncapped"), Backend::cuda,
          [=](const CaseContext& ctx) {
            const int blocks = affordable_blocks(*ctx.gpu, ctx.gpu->sm_count * 8,
                                                 kernels::kSpillThreads, kSpillRounds);
            Declared d;
            d.work = work_of(theory::spill_work(blocks * kernels::kSpillThreads, kSpillRounds),
                             theory::Precision::fp32, "registers");
            d.params = {{"variant", capped ? "capped" : "uncapped"},
                        {"launch_bounds", capped ? "256, 8" : "256, 1"},
                        {"rounds", kSpillRounds},
                        {"blocks", blocks}};
            return d;
          },
          [=](const CaseContext&, Declared& d) {
            // What the compiler gave the kernel: the device's attributes.
            const kernels::SpillAttributes a = kernels::spill_attributes(v);
            d.params["registers_per_thread"] = a.registers;
            d.params["local_bytes_per_thread"] = a.local_bytes;
            return float_kernel(
                d.params.at("blocks").get<int>(), kernels::kSpillThreads,
                [v](float* out, int b, int, gpu_stream s) {
                  kernels::spill_launch(v, out, kSpillRounds, b, s);
                },
                [](int i) { return reference::spill_thread(i, kSpillRounds); });
          },
          nullptr};
}

// Streaming reads with one 16-byte load in flight per thread, at a given number of resident
// 128-thread blocks per SM (dynamic shared memory throttles the rest), one wave of blocks.
class StreamRead final : public Instance {
 public:
  StreamRead(const GpuDevice& gpu, int blocks_per_sm, std::size_t dynamic_shared)
      : n16_(latency_loads_16b(&gpu, kLatencyN16)),
        blocks_(gpu.sm_count * blocks_per_sm),
        dynamic_(dynamic_shared),
        data_(n16_ * 16),
        out_(static_cast<std::size_t>(blocks_) * sizeof(float)) {
    std::vector<float> host(n16_ * 4);
    parallel_for(n16_, [&](std::size_t i) {
      for (int c = 0; c < 4; ++c)
        host[4 * i + c] = static_cast<float>((i * 2654435761ull >> 30) & 3);
    });
    data_.upload(host.data(), host.size() * sizeof(float));
    // The reference: each block's sum of the x components its threads read (small integers:
    // exact in fp32 in any order).
    expected_.assign(static_cast<std::size_t>(blocks_), 0.0f);
    const std::size_t stride = static_cast<std::size_t>(blocks_) * kLatencyThreads;
    parallel_for(expected_.size(), [&](std::size_t blk) {  // element i: block (i mod stride) / T
      for (std::size_t base = blk * kLatencyThreads; base < n16_; base += stride)
        for (std::size_t i = base; i < std::min(n16_, base + kLatencyThreads); ++i)
          expected_[blk] += host[4 * i];
    });
  }
  Comparison validate() override {
    out_.fill_bytes(0xFF);
    run(nullptr);
    std::vector<float> out(expected_.size());
    out_.download(out.data(), out.size() * sizeof(float));
    return compare<float, float>(out, expected_, Tolerance{0, 0});
  }
  void run(gpu_stream s) override {
    kernels::stream_read_launch(data_.get(), n16_, out_.as<float>(), blocks_, kLatencyThreads,
                                dynamic_, s);
  }

 private:
  std::size_t n16_;
  int blocks_;
  std::size_t dynamic_;
  DeviceBuffer data_, out_;
  std::vector<float> expected_;
};

Case latency_hiding_case(int blocks_per_sm) {
  const int warps = blocks_per_sm * kLatencyThreads / 32;
  return {
      "latency_hiding/warps_per_sm=" + std::to_string(warps), Backend::cuda,
      [=](const CaseContext& ctx) {
        const theory::SmLimits& sm = sm_limits_of(*ctx.gpu);
        // Shared memory per block so that exactly blocks_per_sm fit.
        const std::size_t per_block = sm.shared_per_sm_bytes() / blocks_per_sm;
        const std::size_t dynamic = (per_block - sm.reserved_shared_per_block_bytes) / 128 * 128;
        Declared d;
        // One add per 16-byte load (the x component of each float4).
        const std::size_t n16 = latency_loads_16b(ctx.gpu, kLatencyN16);
        d.work = work_of(theory::read_work(static_cast<double>(n16) * 16, 16, 1),
                         theory::Precision::fp32);
        d.params = {{"warps_per_sm", warps},
                    {"blocks_per_sm", blocks_per_sm},
                    {"threads_per_block", kLatencyThreads},
                    {"dynamic_shared_bytes", dynamic},
                    {"bytes_in_flight_per_warp", 32 * 16},
                    {"loads_16b", n16},
                    {"sm_count", ctx.gpu->sm_count}};
        return d;
      },
      [=](const CaseContext& ctx, Declared& d) -> std::unique_ptr<Instance> {
        // The shared memory throttles to exactly blocks_per_sm: checked with the model.
        const auto dynamic = d.params.at("dynamic_shared_bytes").get<std::size_t>();
        theory::KernelResources k;
        k.threads_per_block = kLatencyThreads;
        k.registers_per_thread = 32;
        k.dynamic_shared_bytes = dynamic;
        k.max_dynamic_shared_bytes = dynamic;
        const int predicted = theory::occupancy(sm_limits_of(*ctx.gpu), k).blocks_per_sm;
        if (blocks_per_sm * kLatencyThreads > ctx.gpu->max_threads_per_sm)
          throw CaseSkipped("does not fit this device: " + std::to_string(warps) +
                            " warps/SM, the device holds " +
                            std::to_string(ctx.gpu->max_threads_per_sm / 32));
        // On a simulator the config's shared memory per SM and per block (theory::
        // gpgpusim_sm_limits) may not express the throttle (one block taking a whole SM's
        // shared memory exceeds the per-block limit): the geometry does not fit that device.
        // On a GPU a mismatch is our model's error.
        if (predicted != blocks_per_sm && ctx.gpu->simulated)
          throw CaseSkipped("does not fit this device: shared memory cannot throttle to " +
                            std::to_string(blocks_per_sm) + " blocks/SM on this simulated " +
                            "device's limits (the model gives " + std::to_string(predicted) + ")");
        if (predicted != blocks_per_sm)
          throw std::runtime_error("throttling to " + std::to_string(blocks_per_sm) +
                                   " blocks/SM gave " + std::to_string(predicted));
        kernels::stream_read_allow_dynamic_shared(dynamic);
        return std::make_unique<StreamRead>(*ctx.gpu, blocks_per_sm, dynamic);
      },
      nullptr};
}

// One thread chasing a random single cycle through 512 MiB, one entry per 64-byte line.
class PointerChase final : public Instance {
 public:
  PointerChase(std::size_t words, std::uint64_t steps)
      : steps_(steps), next_(words * sizeof(std::uint32_t)), out_(2 * sizeof(std::uint32_t)) {
    host_ = parallel_chase_table(reference::RandomCycle(words / 16, 0x9E3779B97F4A7C15ull), 16);
    next_.upload(host_.data(), host_.size() * sizeof(std::uint32_t));
  }
  Comparison validate() override {
    out_.fill_bytes(0xFF);
    kernels::pointer_chase_launch(next_.as<std::uint32_t>(), steps_ / 2, out_.as<std::uint32_t>(),
                                  nullptr);
    kernels::pointer_chase_launch(next_.as<std::uint32_t>(), steps_, out_.as<std::uint32_t>() + 1,
                                  nullptr);
    std::uint32_t out[2];
    out_.download(out, sizeof out);
    std::uint32_t p = 0, ref[2] = {0, 0};
    for (std::uint64_t s = 1; s <= steps_; ++s) {
      p = host_[p];
      if (s == steps_ / 2) ref[0] = p;
    }
    ref[1] = p;
    return compare<std::uint32_t, std::uint32_t>(out, ref, Tolerance{0, 0});
  }
  void run(gpu_stream s) override {
    kernels::pointer_chase_launch(next_.as<std::uint32_t>(), steps_, out_.as<std::uint32_t>(), s);
  }

 private:
  std::uint64_t steps_;
  DeviceBuffer next_, out_;
  std::vector<std::uint32_t> host_;
};

Case pointer_chase_case() {
  return {"latency/dram", Backend::cuda,
          [](const CaseContext& ctx) {
            Declared d;
            d.work.memory_level = "latency";  // one dependent load at a time: no bandwidth bound
            // A timing simulator: fewer steps over a smaller table (harness/simulated_timing.h).
            d.params = {{"steps", chase_steps(ctx.gpu)},
                        {"working_set_bytes", chase_words(ctx.gpu) * sizeof(std::uint32_t)},
                        {"stride_bytes", 64}};
            return d;
          },
          [](const CaseContext&, Declared& d) -> std::unique_ptr<Instance> {
            return std::make_unique<PointerChase>(
                d.params.at("working_set_bytes").get<std::size_t>() / sizeof(std::uint32_t),
                d.params.at("steps").get<std::uint64_t>());
          },
          nullptr};
}

}  // namespace

std::vector<Case> occupancy_cuda_cases() {
  std::vector<Case> cases = {
      residency_case("warps", ResidencyKernel::light, 1024, 0),
      residency_case("blocks", ResidencyKernel::light, 32, 0),
      residency_case("shared_memory", ResidencyKernel::light, 128, 60 * 1024),
      residency_case("registers", ResidencyKernel::heavy, 256, 0),
      waves_case("1", 0, 1),
      waves_case("half", 0.5, 0),
      waves_case("full", 1, 0),
      waves_case("full+1", 1, 1),
      waves_case("double", 2, 0),
      waves_case("double+1", 2, 1),
      waves_case("triple", 3, 0),
  };
  for (int paths : {1, 2, 4, 8, 16, 32}) cases.push_back(divergence_case(paths));
  for (int stride : {1, 2, 4, 8, 16, 32, 33}) cases.push_back(bank_case(stride));
  cases.push_back(spill_case(kernels::SpillVariant::uncapped));
  cases.push_back(spill_case(kernels::SpillVariant::capped));
  cases.push_back(pointer_chase_case());
  for (int blocks_per_sm : {1, 2, 3, 4, 6, 8, 12, 16})
    cases.push_back(latency_hiding_case(blocks_per_sm));
  return cases;
}

}  // namespace bb::suites
