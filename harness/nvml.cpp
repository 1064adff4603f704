#include "harness/nvml.h"

#include <dlfcn.h>

#include <fmt/format.h>

namespace bb {
namespace {

// nvml.h's C interface, the parts used here (stable since the R450 drivers): nvmlReturn_t is an
// int (0 success), nvmlDevice_t an opaque pointer, nvmlClockType_t NVML_CLOCK_SM = 1.
using NvmlDevice = struct NvmlDeviceOpaque*;
using StatusFn = int (*)();  // nvmlInit_v2, nvmlShutdown
using ByPciFn = int (*)(const char*, NvmlDevice*);
using ClockFn = int (*)(NvmlDevice, int, unsigned int*);
using ReasonsFn = int (*)(NvmlDevice, unsigned long long*);
constexpr int kClockSm = 1;

struct Bit {
  std::uint64_t mask;
  const char* name;
};
// nvml.h: nvmlClocksEventReason* (formerly nvmlClocksThrottleReason*, the same bits).
constexpr Bit kReasons[] = {{0x1, "gpu_idle"},
                            {0x2, "applications_clocks_setting"},
                            {0x4, "sw_power_cap"},
                            {0x8, "hw_slowdown"},
                            {0x10, "sync_boost"},
                            {0x20, "sw_thermal_slowdown"},
                            {0x40, "hw_thermal_slowdown"},
                            {0x80, "hw_power_brake_slowdown"},
                            {0x100, "display_clock_setting"}};
constexpr std::uint64_t kSlowdown = 0x8 | 0x20 | 0x40 | 0x80;

}  // namespace

struct Nvml::Impl {
  void* lib = nullptr;
  StatusFn shutdown = nullptr;
  ByPciFn by_pci = nullptr;
  ClockFn applications_clock = nullptr;
  ReasonsFn reasons = nullptr;
  ~Impl() {
    if (shutdown) shutdown();
    if (lib) dlclose(lib);
  }
};

Nvml::Nvml() {
  auto impl = std::make_unique<Impl>();
  impl->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!impl->lib) {
    reason_ = "libnvidia-ml.so.1 not loadable (it comes with the NVIDIA driver)";
    return;
  }
  const auto sym = [&](const char* name) { return dlsym(impl->lib, name); };
  auto init = reinterpret_cast<StatusFn>(sym("nvmlInit_v2"));
  impl->by_pci = reinterpret_cast<ByPciFn>(sym("nvmlDeviceGetHandleByPciBusId_v2"));
  impl->applications_clock = reinterpret_cast<ClockFn>(sym("nvmlDeviceGetApplicationsClock"));
  impl->reasons = reinterpret_cast<ReasonsFn>(sym("nvmlDeviceGetCurrentClocksEventReasons"));
  if (!impl->reasons)
    impl->reasons = reinterpret_cast<ReasonsFn>(sym("nvmlDeviceGetCurrentClocksThrottleReasons"));
  if (!init || !impl->by_pci) {
    reason_ = "libnvidia-ml.so.1 lacks nvmlInit_v2 or nvmlDeviceGetHandleByPciBusId_v2";
    return;
  }
  if (const int status = init(); status != 0) {
    reason_ = "nvmlInit_v2 returned " + std::to_string(status);
    return;
  }
  impl->shutdown = reinterpret_cast<StatusFn>(sym("nvmlShutdown"));
  impl_ = std::move(impl);
}

Nvml::~Nvml() = default;

std::optional<NvmlClocks> Nvml::clocks(const std::string& pci_bus_id) const {
  if (!impl_ || pci_bus_id.empty()) return std::nullopt;
  NvmlDevice dev = nullptr;
  if (impl_->by_pci(pci_bus_id.c_str(), &dev) != 0) return std::nullopt;
  NvmlClocks c;
  unsigned int mhz = 0;
  if (impl_->applications_clock && impl_->applications_clock(dev, kClockSm, &mhz) == 0)
    c.applications_sm_hz = mhz * 1e6;
  unsigned long long mask = 0;
  if (impl_->reasons && impl_->reasons(dev, &mask) == 0) {
    c.event_reasons = mask;
    c.reasons_known = true;
  }
  return c;
}

std::vector<std::string> clock_event_reason_names(std::uint64_t mask) {
  std::vector<std::string> names;
  for (const Bit& b : kReasons)
    if (mask & b.mask) names.emplace_back(b.name), mask &= ~b.mask;
  for (int i = 0; i < 64; ++i)
    if (mask & (std::uint64_t{1} << i)) names.push_back(fmt::format("{:#x}", 1ULL << i));
  return names;
}

bool clock_event_is_slowdown(std::uint64_t mask) { return (mask & kSlowdown) != 0; }

}  // namespace bb
