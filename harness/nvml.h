// NVIDIA's management library (NVML), loaded at run time: the clock the driver sustains a GPU at
// (its applications clock) and why it runs slower (clock-event reasons). libnvidia-ml.so.1 comes
// with the driver; the toolkit here carries neither nvml.h nor a link stub, so the few entry points
// are looked up with dlsym. Absent (no driver, a host-only machine): available() is false and says
// why; nothing throws.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace bb {

struct NvmlClocks {
  double applications_sm_hz = 0;    // nvmlDeviceGetApplicationsClock(NVML_CLOCK_SM); 0 unknown
  std::uint64_t event_reasons = 0;  // nvmlDeviceGetCurrentClocksEventReasons, nvml.h's bit mask
  bool reasons_known = false;
};

class Nvml {
 public:
  Nvml();  // loads and initialises the library; never throws
  ~Nvml();

  bool available() const { return impl_ != nullptr; }
  const std::string& reason() const { return reason_; }  // why not available
  // The device with this PCI bus id ("domain:bus:device.function" in hex); nullopt when
  // the library or the device is not there.
  std::optional<NvmlClocks> clocks(const std::string& pci_bus_id) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string reason_;
};

// The names of the set bits of a clock-event-reason mask (nvml.h, nvmlClocksEventReason*):
// "gpu_idle", "applications_clocks_setting", "sw_power_cap", "hw_slowdown", "sync_boost",
// "sw_thermal_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown",
// "display_clock_setting"; an unknown bit as "0x…".
std::vector<std::string> clock_event_reason_names(std::uint64_t mask);
// Whether the mask holds a slowdown (thermal, hardware, power brake): throttling, as opposed to
// power management (sw_power_cap: the sustained clock under load) or a setting.
bool clock_event_is_slowdown(std::uint64_t mask);

}  // namespace bb
