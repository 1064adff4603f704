// What the host is: CPU model, cores, caches (sysfs), ISA features, memory, and an estimated peak.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bb {

struct CacheInfo {
  int level = 0;
  std::string type;  // "Data", "Instruction", "Unified"
  std::uint64_t size_bytes = 0;
  int shared_by_cpus = 1;  // CPUs in shared_cpu_list
};

struct HostInfo {
  std::string cpu_model;
  int logical_cpus = 0;           // CPUs this process may run on
  int physical_cores = 0;         // distinct (package, core) among them; 0 if sysfs has no topology
  std::vector<CacheInfo> caches;  // as cpu0 sees them
  std::vector<std::string> isa;   // "avx2", "avx512f", "avx512_bf16", "amx_tile", …
  std::uint64_t memory_bytes = 0;
  double cpu_clock_hz = 0;  // max frequency (cpufreq), else the current "cpu MHz"
  // True when cpu_clock_hz is the maximum (cpufreq's cpuinfo_max_freq): only then is the peak
  // estimate an upper bound. "cpu MHz" (e.g. under a hypervisor) can sit below the turbo clock.
  bool clock_is_max = false;
  // The CPU flag "hypervisor": a virtual machine, whose cache sizes in sysfs describe the host's
  // CPU, not what this VM's vCPUs get (placement, other tenants).
  bool virtualized = false;
  std::string hostname;
  // Identity (the results file's machine fingerprint): /proc/cpuinfo's vendor_id, cpu family,
  // model, stepping and microcode; packages among the CPUs this process may use; the hypervisor's
  // CPUID vendor ("KVM", "Microsoft Hv", ...; "none" on bare metal, "unknown" when unreadable).
  std::string cpu_vendor;
  int cpu_family = -1, cpu_model_number = -1, cpu_stepping = -1;  // -1: not reported
  std::string microcode;
  int sockets = 0;  // 0: sysfs has no topology
  std::string hypervisor;

  std::uint64_t last_level_cache_bytes() const;  // largest data/unified cache, 0 if unknown
  bool has(const std::string& feature) const;
  int fp64_simd_lanes() const;  // 8 with AVX-512, 4 with AVX2, 2 with SSE2
  // Estimate: lanes × 2 FMA units × 2 flop × cores × clock (physical cores: SMT siblings share
  // the FMA units; logical CPUs where the topology is unknown). The FMA-unit count is an assumption
  // (two on server cores since Skylake-SP and on Zen 4/5); stated as an estimate wherever shown.
  double peak_fp64_flop_per_s_estimate() const;
};

// Reads /proc and /sys; fields it cannot read stay at their defaults.
HostInfo query_host(const std::string& sysfs_cpu_root = "/sys/devices/system/cpu",
                    const std::string& proc_root = "/proc");

// Parses "0-3,8,10-11" → 7. Malformed text counts as 1.
int count_cpu_list(const std::string& list);
// 266240 KiB → "260 MiB", 25276059648 → "23.5 GiB": the largest binary unit that leaves ≥ 1, with
// up to 3 significant digits; below 1 KiB, "512 B".
std::string binary_size_text(double bytes);
// Parses sysfs cache sizes "48K", "2048K", "480M" → bytes.
std::uint64_t parse_cache_size(const std::string& text);

}  // namespace bb
