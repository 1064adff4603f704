// The GPU side of the harness, free of CUDA types so that host-only code can use it. Implemented in
// gpu_cuda.cu when the CUDA backend is built, and in gpu_absent.cpp (which reports "built without
// CUDA") when it is not.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "theory/peaks.h"

struct CUstream_st;  // cudaStream_t is CUstream_st*

namespace bb {

using gpu_stream = CUstream_st*;

struct GpuDevice {
  int index = 0;
  std::string name;
  std::string uuid;        // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi prints it
  std::string pci_bus_id;  // NVML's form, "00000000:1B:00.0" (nvml_pci_bus_id; NVML's lookup key)
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  double sm_clock_hz = 0;      // maximum SM clock (cudaDevAttrClockRate)
  double memory_clock_hz = 0;  // cudaDevAttrMemoryClockRate
  int bus_width_bits = 0;
  std::uint64_t memory_bytes = 0;
  std::uint64_t l2_bytes = 0;
  std::uint64_t shared_memory_per_sm_bytes = 0;
  int registers_per_sm = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  // A simulator (GPGPU-Sim names its device "GPGPU-Sim_v…"): kernels compute real results,
  // thousands of times slower. Functional: its event times and clocks are no measurements. In its
  // timing model (`simulated_timing`, "GPGPU-Sim timing …", ci/gpusim/timing.patch) events and
  // clocks give simulated time, and the peaks are those of its gpgpusim.config
  // (`simulated_config`, the path it was read from).
  bool simulated = false;
  bool simulated_timing = false;
  std::string simulated_config;

  // Theoretical peaks (theory/peaks.h); the FLOP/s arrays are indexed by theory::Precision and stay
  // zero when the architecture is not in the table.
  double peak_dram_bytes_per_s = 0;
  bool arch_in_table = false;
  std::array<double, theory::kPrecisionCount> peak_cuda_core_flop_per_s{};
  std::array<double, theory::kPrecisionCount> peak_tensor_flop_per_s{};

  std::string arch() const { return "sm_" + std::to_string(cc_major * 10 + cc_minor); }
  // The larger of the CUDA-core and tensor-core peaks for that precision.
  double peak_flop_per_s(theory::Precision p) const;
};

// The bulk lengths a device affords: a functional simulator (GPGPU-Sim) computes real results about
// 10^4 times slower than a GPU (3-7 M warp-instructions per second), so on one a bulk length n
// shrinks to at most kSimulatedBulkElements plus its tail, n mod kSimulatedTailElements (odd sizes
// and the tails of vector loops stay). A GPU, or none (nominal sizes), affords n. The one size
// choice the suites make on a simulated device.
inline constexpr std::size_t kSimulatedBulkElements = std::size_t{1} << 18;
inline constexpr std::size_t kSimulatedTailElements = 4096;
// A timing simulator (GPGPU-Sim's performance model, `simulated_timing`) is slower still: about
// 800 simulated cycles per second of one core on SM7_QV100 (80 SMs; a 2^18-element fp32 triad,
// 3 MiB, ran 8,600 cycles, half of them the launch and ramp). It affords 2^21 elements (8 MiB of
// fp32): the strided read's stride 32 still moves 2 MiB of sectors, several times the ramp's worth,
// so the sector model's time ratios are those of the bytes; 8,192 256-thread blocks' worth of
// elements, several waves of the 46-80 SMs of the configs.
inline constexpr std::size_t kSimulatedTimingBulkElements = std::size_t{1} << 21;
inline std::size_t affordable_elements(const GpuDevice* gpu, std::size_t n) {
  if (gpu == nullptr || !gpu->simulated) return n;
  const std::size_t bulk =
      gpu->simulated_timing ? kSimulatedTimingBulkElements : kSimulatedBulkElements;
  if (n <= bulk) return n;
  return bulk + n % kSimulatedTailElements;
}

// Why a functional simulator cannot run `library`'s device code (cuBLAS, cuBLASLt, NCCL: SASS
// only, no PTX to simulate), as every such reason reads: "cannot run under the simulator: …".
inline std::string sass_only_reason(const std::string& library) {
  return "cannot run under the simulator: " + library +
         " device code (SASS only, no PTX to simulate)";
}

// Fills the theoretical peaks of `d` from its clocks, SM count and the architecture table.
void fill_gpu_peaks(GpuDevice& d);

struct GpuStatus {
  bool built_with_cuda = false;
  bool usable = false;
  std::string reason;  // why no GPU is usable: "CUDA driver version is insufficient…", …
  int driver_version = 0, runtime_version = 0;  // CUDA's integer form, e.g. 13000
  std::string cublas_version, cublaslt_version;
  std::string nccl_version;  // from libnccl.so.2 when it can be loaded; empty otherwise
  std::vector<GpuDevice> devices;
};

// Never throws: every failure becomes `usable = false` with the reason.
GpuStatus query_gpus();

// Makes `device` current for this thread, so that a case's allocations land on it.
void set_current_gpu(const GpuDevice& device);

// One case's GPU resources: its device, a stream, two events, and the L2-flush buffer.
class GpuSession {
 public:
  GpuSession(const GpuDevice& device, bool flush_l2);
  ~GpuSession();

  // One sample: flush L2 (unless hot), record start, enqueue, check the launch, record stop, wait.
  // Returns the event-measured seconds between start and stop.
  double time_sample_s(const std::function<void(gpu_stream)>& enqueue);
  // Enqueues without flush, events or waiting (warm-up launches, not timed), checking the launch.
  void launch(const std::function<void(gpu_stream)>& enqueue);
  // Waits for the session's stream.
  void wait();
  // SM clock from a one-thread kernel that spins ~1 ms reading %globaltimer and clock64().
  double measure_sm_clock_hz();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Device memory owned by value; only CUDA-built code creates it.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;

  void* get() const { return ptr_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  std::size_t bytes() const { return bytes_; }
  void upload(const void* host, std::size_t bytes);
  void download(void* host, std::size_t bytes) const;
  void fill_bytes(unsigned char value);  // e.g. 0xFF: NaN in every IEEE float format (poison)

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace bb
