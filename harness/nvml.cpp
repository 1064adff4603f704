#include "harness/nvml.h"

#include <dlfcn.h>

#include <cctype>

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

std::optional<std::string> nvml_pci_bus_id(std::string_view text) {
  // Split at ':' and '.', each field 1..8 hex digits.
  std::vector<unsigned long long> fields;
  std::vector<char> seps;
  std::size_t i = 0;
  while (true) {
    std::size_t j = i;
    unsigned long long v = 0;
    while (j < text.size() && std::isxdigit(static_cast<unsigned char>(text[j])) && j - i < 9) {
      const char ch = static_cast<char>(std::tolower(static_cast<unsigned char>(text[j])));
      v = v * 16 + static_cast<unsigned long long>(ch <= '9' ? ch - '0' : ch - 'a' + 10);
      ++j;
    }
    if (j == i || j - i > 8) return std::nullopt;
    fields.push_back(v);
    if (j == text.size()) break;
    if (text[j] != ':' && text[j] != '.') return std::nullopt;
    seps.push_back(text[j]);
    i = j + 1;
  }
  unsigned long long domain = 0, bus = 0, device = 0, function = 0;
  const std::string shape(seps.begin(), seps.end());
  if (shape == "::.")
    domain = fields[0], bus = fields[1], device = fields[2], function = fields[3];
  else if (shape == "::")
    domain = fields[0], bus = fields[1], device = fields[2];
  else if (shape == ":.")
    bus = fields[0], device = fields[1], function = fields[2];
  else
    return std::nullopt;
  if (domain > 0xffffffffULL || bus > 0xff || device > 0x1f || function > 7) return std::nullopt;
  return fmt::format("{:08X}:{:02X}:{:02X}.{:X}", domain, bus, device, function);
}

NvmlClocks Nvml::clocks(const std::string& pci_bus_id) const {
  NvmlClocks c;
  if (!impl_) {
    c.reasons_missing = reason_;
    return c;
  }
  const std::optional<std::string> id = nvml_pci_bus_id(pci_bus_id);
  if (!id) {
    c.reasons_missing = "no PCI bus id NVML could look up ('" + pci_bus_id + "')";
    return c;
  }
  NvmlDevice dev = nullptr;
  if (const int status = impl_->by_pci(id->c_str(), &dev); status != 0) {
    c.reasons_missing =
        fmt::format("nvmlDeviceGetHandleByPciBusId_v2(\"{}\") returned {}", *id, status);
    return c;
  }
  unsigned int mhz = 0;
  if (impl_->applications_clock && impl_->applications_clock(dev, kClockSm, &mhz) == 0)
    c.applications_sm_hz = mhz * 1e6;
  unsigned long long mask = 0;
  if (!impl_->reasons) {
    c.reasons_missing = "libnvidia-ml.so.1 lacks nvmlDeviceGetCurrentClocksEventReasons";
  } else if (const int status = impl_->reasons(dev, &mask); status != 0) {
    c.reasons_missing = fmt::format("nvmlDeviceGetCurrentClocksEventReasons returned {}", status);
  } else {
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
