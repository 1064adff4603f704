// The GPU memory hierarchy: a read-bandwidth sweep (every block re-reading its own chunk) and a
// one-thread pointer-chase latency sweep over working sets up to 8x the L2, and strided reads
// against the 32-byte sector model.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

#include "base/cuda_check.h"
#include "harness/gpu.h"
#include "harness/simulated_timing.h"
#include "kernels/hierarchy.h"
#include "reference/chase.h"
#include "suites/bandwidth/bandwidth_suite.h"
#include "suites/common/parallel.h"
#include "theory/hierarchy.h"

namespace bb::suites {
namespace {

constexpr int kThreads = 1024;              // one block per SM, all of it
constexpr double kReadSampleBytes = 4.0e9;  // bytes read per sample, at least (as affordable)
constexpr std::uint64_t kLineBytes = 64;    // one chase entry per 64 bytes (two sectors)
constexpr std::uint64_t kSectorBytes = 32;
constexpr std::uint64_t kMinReadSweepBytes = 1 << 20;

// The bytes a read-sweep sample reads: kReadSampleBytes, as the device affords it.
double read_sample_bytes(const GpuDevice& gpu) {
  const auto floats = static_cast<std::size_t>(kReadSampleBytes / sizeof(float));
  return static_cast<double>(affordable_elements(&gpu, floats) * sizeof(float));
}

// Dependent loads per sample: at least 2^15, and 32 laps of small working sets, because L1 contents
// do not survive from one launch to the next: a lap's cold misses stay ≤ 1/32 of the loads.
std::uint64_t chase_steps(std::uint64_t lines) {
  return std::min<std::uint64_t>(std::max<std::uint64_t>(std::uint64_t{1} << 15, 32 * lines),
                                 std::uint64_t{1} << 18);
}

// x[i] = i mod 3 in each float4 component: every per-thread total stays an exact small integer.
std::vector<float> mod3_floats(std::size_t n) {
  std::vector<float> v(n);
  parallel_for(n, [&](std::size_t i) { v[i] = static_cast<float>(i % 3); });
  return v;
}

class ReadSweepCuda final : public Instance {
 public:
  ReadSweepCuda(int blocks, std::size_t n16, int passes)
      : blocks_(blocks),
        n16_(n16),
        passes_(passes),
        x_(n16 * 16),
        out_(static_cast<std::size_t>(blocks) * sizeof(double)),
        host_(mod3_floats(n16 * 4)) {
    x_.upload(host_.data(), n16 * 16);
  }
  Comparison validate() override {
    out_.fill_bytes(0xFF);
    run(nullptr);
    std::vector<double> got(static_cast<std::size_t>(blocks_)), want(got.size(), 0.0);
    out_.download(got.data(), got.size() * sizeof(double));
    const std::size_t chunk = (n16_ + got.size() - 1) / got.size();
    // Each block's chunk on its own thread: sums of small integers, exact in any order.
    parallel_for(got.size(), [&](std::size_t blk) {
      for (std::size_t i = blk * chunk; i < std::min(n16_, (blk + 1) * chunk); ++i)
        want[blk] += passes_ * static_cast<double>(host_[4 * i] + host_[4 * i + 1] +
                                                   host_[4 * i + 2] + host_[4 * i + 3]);
    });
    return compare<double, double>(got, want, Tolerance{0, 0});
  }
  void run(gpu_stream s) override {
    kernels::read_cuda(x_.get(), n16_, passes_, out_.as<double>(), blocks_, kThreads, s);
  }

 private:
  int blocks_;
  std::size_t n16_;
  int passes_;
  DeviceBuffer x_, out_;
  std::vector<float> host_;
};

class ChaseCuda final : public Instance {
 public:
  // `warm_lines`: the steps of the warm-up lap after validation (0: none).
  ChaseCuda(std::uint64_t lines, std::uint64_t warm_lines)
      : lines_(lines),
        steps_(chase_steps(lines)),
        warm_lines_(warm_lines),
        cycle_(lines, 0x9E3779B97F4A7C15ull + lines),
        next_(lines * 16 * sizeof(std::uint32_t)),
        position_(sizeof(std::uint32_t)) {
    const std::vector<std::uint32_t> table = parallel_chase_table(cycle_, 16);
    next_.upload(table.data(), table.size() * sizeof(std::uint32_t));
  }
  Comparison validate() override {
    std::vector<double> got, want;
    const std::uint64_t k = cycle_.position(0);
    for (std::uint64_t s : {std::uint64_t{1}, std::uint64_t{2}, steps_}) {
      const std::uint32_t zero = 0;
      position_.upload(&zero, sizeof zero);
      kernels::chase_cuda(next_.as<std::uint32_t>(), s, position_.as<std::uint32_t>(), nullptr);
      std::uint32_t p = 0;
      position_.download(&p, sizeof p);
      got.push_back(p);
      want.push_back(static_cast<double>(cycle_.at((k + s) % lines_) * 16));
    }
    // One full lap for working sets up to 2x the L2, so that what fits the L2 is resident when
    // sampling starts (the case keeps caches warm between samples); waited for here, because the
    // samples run on the harness's own stream.
    if (warm_lines_ > 0) {
      kernels::chase_cuda(next_.as<std::uint32_t>(), warm_lines_, position_.as<std::uint32_t>(),
                          nullptr);
      check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize (chase warm-up lap)");
    }
    return compare<double, double>(got, want, Tolerance{0, 0});
  }
  // Each sample walks on from where the last one stopped (the position stays on the device).
  void run(gpu_stream s) override {
    kernels::chase_cuda(next_.as<std::uint32_t>(), steps_, position_.as<std::uint32_t>(), s);
  }

 private:
  std::uint64_t lines_, steps_, warm_lines_;
  reference::RandomCycle cycle_;
  DeviceBuffer next_, position_;
};

// Holds the device's L2 fetch granularity at the sector size while a strided case lives: the model
// counts 32-byte sectors, and a larger fetch (a hint the driver may apply, up to 128 bytes) would
// move bytes no load asked for. Restores the previous value; records it. Devices without the limit
// keep their behaviour, and the params say so; so does a simulator (GPGPU-Sim aborts the process on
// this limit in cudaDeviceGetLimit).
class FetchGranularity {
 public:
  FetchGranularity(std::size_t bytes, bool simulated) {
    std::size_t before = 0;
    if (simulated) return;
    if (cudaDeviceGetLimit(&before, cudaLimitMaxL2FetchGranularity) != cudaSuccess) {
      (void)cudaGetLastError();  // unsupported here: clear the (non-sticky) error, change nothing
      return;
    }
    check_cuda(cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, bytes),
               "cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity)");
    previous_ = before;
  }
  ~FetchGranularity() {
    if (previous_ && cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, *previous_) != cudaSuccess)
      std::fprintf(stderr, "boundbench: could not restore the L2 fetch granularity\n");
  }
  FetchGranularity(const FetchGranularity&) = delete;
  FetchGranularity& operator=(const FetchGranularity&) = delete;
  std::optional<std::size_t> previous() const { return previous_; }

 private:
  std::optional<std::size_t> previous_;
};

class StridedCuda final : public Instance {
 public:
  StridedCuda(int blocks, int threads, std::size_t n, std::size_t stride, bool simulated)
      : granularity_(kSectorBytes, simulated),
        blocks_(blocks),
        threads_(threads),
        stride_(stride),
        accesses_(n / stride),
        x_(n * sizeof(float)),
        out_(static_cast<std::size_t>(blocks) * sizeof(double)),
        host_(mod3_floats(n)) {
    x_.upload(host_.data(), n * sizeof(float));
  }
  Comparison validate() override {
    out_.fill_bytes(0xFF);
    run(nullptr);
    std::vector<double> got(static_cast<std::size_t>(blocks_)), want(got.size(), 0.0);
    out_.download(got.data(), got.size() * sizeof(double));
    // Access i is read by block (i mod round) / per_block (kernels/hierarchy.h): each block's on
    // its own thread (sums of small integers, exact in any order).
    const std::size_t per_block =
        static_cast<std::size_t>(threads_) * kernels::kStridedLoadsInFlight;
    const std::size_t round = got.size() * per_block;
    parallel_for(got.size(), [&](std::size_t blk) {
      for (std::size_t base = blk * per_block; base < accesses_; base += round)
        for (std::size_t i = base; i < std::min(accesses_, base + per_block); ++i)
          want[blk] += host_[i * stride_];
    });
    return compare<double, double>(got, want, Tolerance{0, 0});
  }
  void run(gpu_stream s) override {
    kernels::strided_read_cuda(x_.as<float>(), accesses_, stride_, out_.as<double>(), blocks_,
                               threads_, s);
  }
  nlohmann::json fetch_granularity() const {
    return granularity_.previous() ? nlohmann::json{{"set_bytes", kSectorBytes},
                                                    {"previous_bytes", *granularity_.previous()}}
                                   : nlohmann::json("unsupported: left as it was");
  }

 private:
  FetchGranularity granularity_;
  int blocks_, threads_;
  std::size_t stride_, accesses_;
  DeviceBuffer x_, out_;
  std::vector<float> host_;
};

// The L2, the last level before DRAM: the latency check judges where the staircase leaves it
// (bandwidth_checks.cpp). GA100 (sm_80) and GH100 (sm_90) split it in two partitions joined by a
// crossbar; one SM's chase sees its near partition, half the size, as a tier of its own
// (NVIDIA A100 Tensor Core GPU Architecture whitepaper, "L2 cache"; H100 whitepaper).
nlohmann::json gpu_levels(const GpuDevice& gpu) {
  const int cc = gpu.cc_major * 10 + gpu.cc_minor;
  return nlohmann::json::array({{{"name", "L2"},
                                 {"bytes", gpu.l2_bytes},
                                 {"last_level", true},
                                 {"partitions", cc == 80 || cc == 90 ? 2 : 1}}});
}

Case read_point(std::uint64_t bytes) {
  Case c{"read-sweep/cuda/" + std::to_string(bytes), Backend::cuda,
         [bytes](const CaseContext& ctx) {
           const GpuDevice& gpu = *ctx.gpu;
           const int passes = read_passes(bytes, read_sample_bytes(gpu));
           Declared d;
           d.work = work_of(theory::read_work(static_cast<double>(bytes), sizeof(float), passes),
                            theory::Precision::fp32, "hierarchy");
           d.params = {{"sweep", "read"},
                       {"working_set_bytes", bytes},
                       {"passes", passes},
                       {"blocks", gpu.sm_count},
                       {"threads_per_block", kThreads},
                       {"per_block_bytes", bytes / static_cast<std::uint64_t>(gpu.sm_count)},
                       {"cache_levels", gpu_levels(gpu)}};
           return d;
         },
         [bytes](const CaseContext& ctx, Declared&) -> std::unique_ptr<Instance> {
           check_gpu_memory(*ctx.gpu, bytes);
           check_host_memory(ctx.host, bytes);  // the data are made on the host
           return std::make_unique<ReadSweepCuda>(ctx.gpu->sm_count, bytes / 16,
                                                  read_passes(bytes, read_sample_bytes(*ctx.gpu)));
         },
         nullptr};
  c.sweep_point = true;
  c.warm_caches = true;  // the passes after the first are served by the level that holds the chunk
  return c;
}

Case latency_point(std::uint64_t bytes) {
  Case c{"latency-sweep/cuda/" + std::to_string(bytes), Backend::cuda,
         [bytes](const CaseContext& ctx) {
           const GpuDevice& gpu = *ctx.gpu;
           Declared d;
           d.work.memory_level = "latency";  // one dependent load at a time: no work declared
           d.params = {{"sweep", "latency"},
                       {"working_set_bytes", bytes},
                       {"steps", chase_steps(bytes / kLineBytes)},
                       {"stride_bytes", kLineBytes},
                       {"sm_clock_hz", gpu.sm_clock_hz},
                       {"cache_levels", gpu_levels(gpu)}};
           return d;
         },
         [bytes](const CaseContext& ctx, Declared&) -> std::unique_ptr<Instance> {
           check_gpu_memory(*ctx.gpu, bytes);
           check_host_memory(ctx.host, bytes);  // the table is built on the host
           const std::uint64_t lines = bytes / kLineBytes;
           const std::uint64_t warm = bytes <= 2 * ctx.gpu->l2_bytes ? lines : 0;
           return std::make_unique<ChaseCuda>(lines, warm);
         },
         nullptr};
  c.sweep_point = true;
  c.warm_caches = true;
  return c;
}

Case strided_case(std::size_t stride) {
  Case c{"strided/fp32/cuda/s" + std::to_string(stride), Backend::cuda,
         [stride](const CaseContext& ctx) {
           // 8x the L2 (at least 2^26 floats): every pass comes from DRAM whatever the stride.
           // A timing simulator: its own grid and size (harness/simulated_timing.h).
           const GpuDevice& gpu = *ctx.gpu;
           const StridedGrid g = strided_grid(
               gpu,
               affordable_elements(&gpu, std::max<std::size_t>(std::size_t{1} << 26,
                                                               8 * gpu.l2_bytes / sizeof(float))),
               full_wave_blocks(gpu, kThreads), kernels::kStridedLoadsInFlight);
           const std::size_t n = g.elements;
           const std::size_t accesses = n / stride;
           Declared d;
           d.work =
               work_of(theory::strided_read_work(accesses, stride, sizeof(float), kSectorBytes),
                       theory::Precision::fp32);
           d.params = {{"stride_elements", stride},
                       {"element_bytes", sizeof(float)},
                       {"accesses", accesses},
                       {"sector_bytes", kSectorBytes},
                       {"array_bytes", n * sizeof(float)},
                       {"useful_bytes", accesses * sizeof(float)},
                       {"blocks", g.blocks},
                       {"threads_per_block", g.threads_per_block}};
           d.host_memory_bytes = d.gpu_memory_bytes = n * sizeof(float);  // and its host copy
           return d;
         },
         [stride](const CaseContext& ctx, Declared& d) -> std::unique_ptr<Instance> {
           const GpuDevice& gpu = *ctx.gpu;
           const std::size_t n = d.params.at("array_bytes").get<std::size_t>() / sizeof(float);
           check_gpu_memory(gpu, n * sizeof(float));
           check_host_memory(ctx.host, n * sizeof(float));
           const int blocks = d.params.at("blocks").get<int>();
           const int threads = d.params.at("threads_per_block").get<int>();
           auto inst = std::make_unique<StridedCuda>(blocks, threads, n, stride, gpu.simulated);
           // What the device did with the fetch granularity: only it can tell.
           d.params["l2_fetch_granularity"] = inst->fetch_granularity();
           // How many loads each thread has to keep in flight (the sector model's premise).
           d.params["threads"] = static_cast<std::size_t>(blocks) * threads;
           d.params["loads_in_flight_per_thread"] = kernels::kStridedLoadsInFlight;
           return inst;
         },
         nullptr};
  // Every stride sampled in the same rounds: the ratios to stride 1 come from the pairs.
  c.pairing_group = "strided";
  return c;
}

}  // namespace

std::vector<Case> hierarchy_cuda_cases(const SuiteTarget& target) {
  const std::uint64_t l2 = target.gpu ? target.gpu->l2_bytes : std::uint64_t{50} << 20;
  const std::uint64_t max_bytes = std::max(kCudaCacheMultiple * l2, kSweepMinMaxBytes);
  const auto sizes =
      sweep_sizes(affordable_elements(target.gpu, max_bytes / sizeof(float)) * sizeof(float),
                  target.quick ? kSweepPerOctaveQuick : kSweepPerOctave);
  std::vector<Case> cases;
  for (std::uint64_t b : sizes)
    if (b >= kMinReadSweepBytes) cases.push_back(read_point(b));
  for (std::uint64_t b : sizes) cases.push_back(latency_point(b));
  for (std::size_t s : {1, 2, 4, 8, 16, 32}) cases.push_back(strided_case(s));
  return cases;
}

}  // namespace bb::suites
