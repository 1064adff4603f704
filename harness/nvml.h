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
#include <string_view>
#include <vector>

namespace bb {

struct NvmlClocks {
  double applications_sm_hz = 0;    // nvmlDeviceGetApplicationsClock(NVML_CLOCK_SM); 0 unknown
  std::uint64_t event_reasons = 0;  // nvmlDeviceGetCurrentClocksEventReasons, nvml.h's bit mask
  bool reasons_known = false;
  // Why the event reasons are unknown (no library, the device not found by its bus id, the call
  // refused), so that missing throttle evidence is said, never silently dropped; empty: known.
  std::string reasons_missing;
};

// A PCI bus id in the form NVML reports it, nvmlPciInfo_t.busId: "DDDDDDDD:BB:DD.F", domain 8 hex
// digits, bus and device 2, function 1, upper case (nvidia-smi's "00000000:1B:00.0"), from the
// forms the CUDA runtime and NVML's lookup accept: "domain:bus:device.function" (cudaDeviceGet-
// PCIBusId's "0000:1b:00.0", or unpadded "0:1b:0.0"), "domain:bus:device" and "bus:device.function"
// (domain 0), hexadecimal (NVML API reference, nvmlDeviceGetHandleByPciBusId_v2). nullopt when the
// text is none of them or a field is out of range (domain > 0xffffffff, bus > 0xff, device > 0x1f,
// function > 7).
std::optional<std::string> nvml_pci_bus_id(std::string_view text);

class Nvml {
 public:
  Nvml();  // loads and initialises the library; never throws
  ~Nvml();

  bool available() const { return impl_ != nullptr; }
  const std::string& reason() const { return reason_; }  // why not available
  // The device with this PCI bus id (any form nvml_pci_bus_id accepts; looked up in NVML's own
  // padded form). When the library, the device or a call is not there, what is unknown stays 0 /
  // false and reasons_missing says why.
  NvmlClocks clocks(const std::string& pci_bus_id) const;

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
