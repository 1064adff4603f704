#include "harness/host_info.h"

#include <sched.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

namespace bb {
namespace {

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// Value of the first "key : value" line of /proc/cpuinfo or /proc/meminfo with that key.
std::string proc_field(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string k = line.substr(0, colon);
    k.erase(k.find_last_not_of(" \t") + 1);
    if (k != key) continue;
    const auto start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "";
}

// Leading number of `text` ("16384 kB" → 16384); 0 when there is none.
double parse_number(const std::string& text) {
  try {
    return std::stod(text);
  } catch (const std::exception&) {
    return 0;
  }
}

// -1 when the field is absent or not a number.
int int_field(const std::string& text) {
  try {
    return text.empty() ? -1 : std::stoi(text);
  } catch (const std::exception&) {
    return -1;
  }
}

// CPUID leaf 0x40000000 holds the hypervisor's 12-character vendor signature ("KVMKVMKVM",
// "Microsoft Hv", "VMwareVMware", "XenVMMXenVMM") when the hypervisor flag is set.
std::string hypervisor_vendor(bool flagged) {
  if (!flagged) return "none";
#if defined(__x86_64__) || defined(__i386__)
  unsigned regs[4] = {};
  __cpuid(0x40000000u, regs[0], regs[1], regs[2], regs[3]);
  char sig[13] = {};
  std::memcpy(sig, &regs[1], 12);  // EBX, ECX, EDX
  std::string s(sig);
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  if (s.rfind("KVMKVMKVM", 0) == 0) return "KVM";
  if (!s.empty()) return s;
#endif
  return "unknown";
}

}  // namespace

int count_cpu_list(const std::string& list) {
  int count = 0;
  std::stringstream ss(list);
  for (std::string part; std::getline(ss, part, ',');) {
    const auto dash = part.find('-');
    try {
      if (dash == std::string::npos) {
        std::stoi(part);
        ++count;
      } else {
        count += std::stoi(part.substr(dash + 1)) - std::stoi(part.substr(0, dash)) + 1;
      }
    } catch (const std::exception&) {
      return 1;
    }
  }
  return std::max(count, 1);
}

std::string binary_size_text(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  for (; u < 4 && bytes >= 1024; ++u) bytes /= 1024;
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 || bytes >= 100 ? "%.0f %s" : "%.3g %s", bytes, units[u]);
  return buf;
}

std::uint64_t parse_cache_size(const std::string& text) {
  std::size_t pos = 0;
  std::uint64_t v = 0;
  try {
    v = std::stoull(text, &pos);
  } catch (const std::exception&) {
    return 0;
  }
  const char unit = pos < text.size() ? text[pos] : ' ';
  if (unit == 'K') return v << 10;
  if (unit == 'M') return v << 20;
  if (unit == 'G') return v << 30;
  return v;
}

std::uint64_t HostInfo::last_level_cache_bytes() const {
  const CacheInfo* llc = nullptr;
  for (const auto& c : caches)
    if (c.type != "Instruction" && (!llc || c.level > llc->level)) llc = &c;
  return llc ? llc->size_bytes : 0;
}

bool HostInfo::has(const std::string& feature) const {
  return std::find(isa.begin(), isa.end(), feature) != isa.end();
}

int HostInfo::fp64_simd_lanes() const {
  if (has("avx512f")) return 8;
  if (has("avx2")) return 4;
  return 2;
}

// peak ≈ lanes × FMA units (2) × 2 flop per FMA × cores × clock
double HostInfo::peak_fp64_flop_per_s_estimate() const {
  const int cores = physical_cores > 0 ? physical_cores : logical_cpus;
  return fp64_simd_lanes() * 2.0 * 2.0 * cores * cpu_clock_hz;
}

HostInfo query_host(const std::string& sysfs_cpu_root, const std::string& proc_root) {
  HostInfo h;
  const std::string cpuinfo = proc_root + "/cpuinfo";
  h.cpu_model = proc_field(cpuinfo, "model name");
  cpu_set_t set;
  CPU_ZERO(&set);
  const bool have_set = sched_getaffinity(0, sizeof set, &set) == 0;
  h.logical_cpus = have_set ? CPU_COUNT(&set) : static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  std::set<std::pair<std::string, std::string>> cores;
  std::set<std::string> packages;
  for (int cpu = 0; have_set && cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &set)) continue;
    const std::string topo = sysfs_cpu_root + "/cpu" + std::to_string(cpu) + "/topology/";
    const std::string core = read_first_line(topo + "core_id");
    const std::string package = read_first_line(topo + "physical_package_id");
    if (!core.empty()) cores.emplace(package, core);
    if (!package.empty()) packages.insert(package);
  }
  h.physical_cores = static_cast<int>(cores.size());
  h.sockets = static_cast<int>(packages.size());
  h.cpu_vendor = proc_field(cpuinfo, "vendor_id");
  h.cpu_family = int_field(proc_field(cpuinfo, "cpu family"));
  h.cpu_model_number = int_field(proc_field(cpuinfo, "model"));
  h.cpu_stepping = int_field(proc_field(cpuinfo, "stepping"));
  h.microcode = proc_field(cpuinfo, "microcode");

  for (int i = 0;; ++i) {
    const std::string dir = sysfs_cpu_root + "/cpu0/cache/index" + std::to_string(i);
    const std::string level = read_first_line(dir + "/level");
    if (level.empty()) break;
    CacheInfo c;
    c.level = std::atoi(level.c_str());
    c.type = read_first_line(dir + "/type");
    c.size_bytes = parse_cache_size(read_first_line(dir + "/size"));
    c.shared_by_cpus = count_cpu_list(read_first_line(dir + "/shared_cpu_list"));
    h.caches.push_back(c);
  }

  std::stringstream flag_text(proc_field(cpuinfo, "flags"));
  const std::set<std::string> flags{std::istream_iterator<std::string>(flag_text), {}};
  for (const char* wanted : {"sse2", "avx", "avx2", "fma", "avx512f", "avx512_bf16", "avx512_fp16",
                             "avx512_vnni", "amx_tile", "amx_bf16", "amx_int8", "asimd", "sve"})
    if (flags.count(wanted)) h.isa.emplace_back(wanted);
  h.virtualized = flags.count("hypervisor") > 0;
  h.hypervisor = hypervisor_vendor(h.virtualized);

  h.memory_bytes = static_cast<std::uint64_t>(
      parse_number(proc_field(proc_root + "/meminfo", "MemTotal")) * 1024);
  const double max_khz =
      parse_number(read_first_line(sysfs_cpu_root + "/cpu0/cpufreq/cpuinfo_max_freq"));
  h.cpu_clock_hz = max_khz > 0 ? max_khz * 1e3 : parse_number(proc_field(cpuinfo, "cpu MHz")) * 1e6;
  h.clock_is_max = max_khz > 0;
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) == 0) h.hostname = name;
  return h;
}

}  // namespace bb
