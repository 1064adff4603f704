// The GPU side of the harness with CUDA: device discovery, timed samples, L2 flush, SM clock.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <dlfcn.h>

#include <sstream>
#include <utility>

#include "base/cuda_check.h"
#include "base/device_timers.cuh"
#include "harness/gpu.h"
#include "harness/gpusim_config.h"
#include "harness/nvml.h"

namespace bb {
namespace {

std::string version_string(int major, int minor, int patch) {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

int attribute(cudaDeviceAttr attr, int device) {
  int v = 0;
  check_cuda(cudaDeviceGetAttribute(&v, attr, device), "cudaDeviceGetAttribute");
  return v;
}

// nvidia-smi's form of the 16-byte UUID: "GPU-" then 8-4-4-4-12 hex digits.
std::string uuid_text(const cudaUUID_t& u) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    const auto byte = static_cast<unsigned char>(u.bytes[i]);
    s += kHex[byte >> 4];
    s += kHex[byte & 15];
  }
  return s;
}

GpuDevice describe_device(int index) {
  cudaDeviceProp p{};
  check_cuda(cudaGetDeviceProperties(&p, index), "cudaGetDeviceProperties");
  GpuDevice d;
  d.index = index;
  d.name = p.name;
  d.uuid = uuid_text(p.uuid);
  // NVML's padded form, "00000000:1B:00.0" (nvml_pci_bus_id), from the properties already read
  // (no cudaDeviceGetPCIBusId: one call fewer, and simulators lack it).
  std::ostringstream bus;
  bus << std::hex << p.pciDomainID << ':' << p.pciBusID << ':' << p.pciDeviceID << ".0";
  d.pci_bus_id = nvml_pci_bus_id(bus.str()).value_or(bus.str());
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  // CUDA 13 removed clockRate/memoryClockRate from cudaDeviceProp: the attributes are in kHz.
  d.sm_clock_hz = attribute(cudaDevAttrClockRate, index) * 1e3;
  d.memory_clock_hz = attribute(cudaDevAttrMemoryClockRate, index) * 1e3;
  d.bus_width_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, index);
  d.memory_bytes = p.totalGlobalMem;
  d.l2_bytes = static_cast<std::uint64_t>(p.l2CacheSize);
  d.shared_memory_per_sm_bytes = p.sharedMemPerMultiprocessor;
  d.registers_per_sm = p.regsPerMultiprocessor;
  d.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  d.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
  d.simulated = d.name.starts_with("GPGPU-Sim");  // a simulator, not a GPU: "GPGPU-Sim_v4.2.0"
  fill_gpu_peaks(d);
  if (d.simulated && is_timed_simulator(d.name)) {
    // The simulator reads gpgpusim.config from its working directory: the same file gives the
    // peaks of what it simulates (the table's are those of real parts).
    d.simulated_timing = true;
    d.simulated_config = "gpgpusim.config";
    try {
      fill_simulated_peaks(d, read_gpusim_config(d.simulated_config));
    } catch (const std::exception& e) {
      throw std::runtime_error(d.name + ": the simulator's " + d.simulated_config + ": " +
                               e.what());
    }
  }
  return d;
}

// One thread spins for `spin_ns` of %globaltimer time and records the clock64() cycles it saw.
__global__ void sm_clock_kernel(std::uint64_t spin_ns, std::uint64_t* cycles_and_ns) {
  const std::uint64_t t0 = global_timer_ns();
  const long long c0 = clock64();
  std::uint64_t t1 = t0;
  while (t1 - t0 < spin_ns) t1 = global_timer_ns();
  const long long c1 = clock64();
  cycles_and_ns[0] = static_cast<std::uint64_t>(c1 - c0);
  cycles_and_ns[1] = t1 - t0;
}

// NCCL's version without linking NCCL (it is not part of the toolkit, and only the collectives
// need it): ncclGetVersion from libnccl.so.2 if the loader finds one.
std::string nccl_version() {
  void* lib = dlopen("libnccl.so.2", RTLD_LAZY | RTLD_LOCAL);
  if (!lib) return "";
  using get_version_fn = int (*)(int*);
  std::string v;
  if (auto* get = reinterpret_cast<get_version_fn>(dlsym(lib, "ncclGetVersion"))) {
    int code = 0;
    if (get(&code) == 0) v = version_string(code / 10000, code / 100 % 100, code % 100);
  }
  dlclose(lib);
  return v;
}

// The L2 flush: read an L2-sized buffer. Reading (rather than nvbench's cudaMemsetAsync) leaves
// clean lines behind, so no write-backs of the flush leak into the timed region. The buffer is
// zeroed once, so `acc` is 0 and the store never happens; the compiler cannot know that and keeps
// the loads.
__global__ void l2_flush_kernel(const int4* __restrict__ buf, std::size_t n, int* sink) {
  int acc = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const int4 v = buf[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x5A5A5A5A) *sink = acc;
}

}  // namespace

GpuStatus query_gpus() {
  GpuStatus s;
  s.built_with_cuda = true;
  cudaRuntimeGetVersion(&s.runtime_version);
  cudaDriverGetVersion(&s.driver_version);  // 0 when no driver is installed
  int major = 0, minor = 0, patch = 0;
  if (cublasGetProperty(MAJOR_VERSION, &major) == CUBLAS_STATUS_SUCCESS &&
      cublasGetProperty(MINOR_VERSION, &minor) == CUBLAS_STATUS_SUCCESS &&
      cublasGetProperty(PATCH_LEVEL, &patch) == CUBLAS_STATUS_SUCCESS)
    s.cublas_version = version_string(major, minor, patch);
  const std::size_t lt = cublasLtGetVersion();  // e.g. 130100
  s.cublaslt_version = version_string(static_cast<int>(lt / 10000),
                                      static_cast<int>(lt / 100 % 100), static_cast<int>(lt % 100));
  s.nccl_version = nccl_version();

  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    // No driver, "driver insufficient", no device node…: a normal state on CPU machines.
    s.reason = std::string("cudaGetDeviceCount: ") + cudaGetErrorString(err);
    cudaGetLastError();  // clear the sticky-free error so later calls start clean
    return s;
  }
  if (count == 0) {
    s.reason = "cudaGetDeviceCount found no CUDA device";
    return s;
  }
  try {
    for (int i = 0; i < count; ++i) s.devices.push_back(describe_device(i));
  } catch (const std::exception& e) {
    s.devices.clear();
    s.reason = e.what();
    return s;
  }
  s.usable = true;
  return s;
}

void set_current_gpu(const GpuDevice& device) {
  check_cuda(cudaSetDevice(device.index), "cudaSetDevice");
}

struct GpuSession::Impl {
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  DeviceBuffer flush;  // one L2-sized buffer, zeroed once, read before every sample
  DeviceBuffer clock_out;
  int flush_blocks = 0;
  // A timing simulator's flush: a host-to-device copy of 2x its L2 (flush_copy_source), which the
  // simulator's copy-engine model (-gpgpu_perf_sim_memcpy 1) writes into the L2 as clean lines,
  // evicting the case's data in zero simulated cycles. A flush kernel would cost as many simulated
  // cycles as a large case; -gpgpu_flush_l2_cache drops only dirty lines (tag_array::flush), so
  // read data stays in L2. Empty on a GPU.
  std::vector<std::uint8_t> flush_copy_source;
  // The clock probe's spin: ~1 ms of %globaltimer; 2 us of simulated time in a timing simulator
  // (2,264 cycles at 1132 MHz: a 1 ms spin would cost minutes of simulation per case).
  std::uint64_t clock_spin_ns = 1'000'000;
};

GpuSession::GpuSession(const GpuDevice& device, bool flush_l2) : impl_(std::make_unique<Impl>()) {
  check_cuda(cudaSetDevice(device.index), "cudaSetDevice");
  check_cuda(cudaStreamCreateWithFlags(&impl_->stream, cudaStreamNonBlocking), "cudaStreamCreate");
  check_cuda(cudaEventCreate(&impl_->start), "cudaEventCreate");
  check_cuda(cudaEventCreate(&impl_->stop), "cudaEventCreate");
  if (device.simulated_timing) impl_->clock_spin_ns = 2'000;
  if (flush_l2 && device.simulated_timing && device.l2_bytes > 0) {
    impl_->flush = DeviceBuffer(2 * device.l2_bytes);
    impl_->flush_copy_source.assign(2 * device.l2_bytes, 0);
  } else if (flush_l2 && device.l2_bytes > 0) {
    impl_->flush = DeviceBuffer(device.l2_bytes / sizeof(int4) * sizeof(int4));
    impl_->flush.fill_bytes(0);
    impl_->flush_blocks = device.sm_count * 4;
  }
  impl_->clock_out = DeviceBuffer(2 * sizeof(std::uint64_t));
}

GpuSession::~GpuSession() {
  // Destructors do not throw: failures here leave nothing to recover.
  if (impl_->stream) cudaStreamSynchronize(impl_->stream);
  if (impl_->start) cudaEventDestroy(impl_->start);
  if (impl_->stop) cudaEventDestroy(impl_->stop);
  if (impl_->stream) cudaStreamDestroy(impl_->stream);
}

double GpuSession::time_sample_s(const std::function<void(gpu_stream)>& enqueue) {
  Impl& s = *impl_;
  if (!s.flush_copy_source.empty()) {
    check_cuda(cudaMemcpyAsync(s.flush.get(), s.flush_copy_source.data(), s.flush.bytes(),
                               cudaMemcpyHostToDevice, s.stream),
               "cudaMemcpyAsync (the timing simulator's L2 flush)");
  } else if (s.flush.bytes() > 0) {
    l2_flush_kernel<<<s.flush_blocks, 256, 0, s.stream>>>(
        s.flush.as<int4>(), s.flush.bytes() / sizeof(int4), s.clock_out.as<int>());
    check_launch("l2_flush_kernel");
  }
  check_cuda(cudaEventRecord(s.start, s.stream), "cudaEventRecord");
  enqueue(s.stream);
  check_launch("the case's kernels");
  check_cuda(cudaEventRecord(s.stop, s.stream), "cudaEventRecord");
  check_cuda(cudaEventSynchronize(s.stop), "cudaEventSynchronize");
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, s.start, s.stop), "cudaEventElapsedTime");
  return ms * 1e-3;
}

void GpuSession::launch(const std::function<void(gpu_stream)>& enqueue) {
  enqueue(impl_->stream);
  check_launch("the case's kernels (warm-up)");
}

void GpuSession::wait() {
  check_cuda(cudaStreamSynchronize(impl_->stream), "cudaStreamSynchronize");
}

double GpuSession::measure_sm_clock_hz() {
  Impl& s = *impl_;
  auto* out = s.clock_out.as<std::uint64_t>();
  sm_clock_kernel<<<1, 1, 0, s.stream>>>(s.clock_spin_ns, out);
  check_launch("sm_clock_kernel");
  std::uint64_t host[2] = {0, 0};
  check_cuda(cudaMemcpyAsync(host, out, sizeof host, cudaMemcpyDeviceToHost, s.stream),
             "cudaMemcpyAsync");
  check_cuda(cudaStreamSynchronize(s.stream), "cudaStreamSynchronize");
  return host[1] ? static_cast<double>(host[0]) / static_cast<double>(host[1]) * 1e9 : 0.0;
}

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  check_cuda(cudaMalloc(&ptr_, bytes), "cudaMalloc(" + std::to_string(bytes) + " bytes)");
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) cudaFree(ptr_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept
    : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    if (ptr_) cudaFree(ptr_);
    ptr_ = std::exchange(o.ptr_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

void DeviceBuffer::upload(const void* host, std::size_t bytes) {
  check_cuda(cudaMemcpy(ptr_, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy H2D");
}

void DeviceBuffer::download(void* host, std::size_t bytes) const {
  check_cuda(cudaMemcpy(host, ptr_, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
}

void DeviceBuffer::fill_bytes(unsigned char value) {
  check_cuda(cudaMemset(ptr_, value, bytes_), "cudaMemset");
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

}  // namespace bb
