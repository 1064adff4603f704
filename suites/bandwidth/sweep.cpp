// Sweep sizes and the cache capacities a sweep is expected to find.
#include <cmath>
#include <set>

#include "suites/bandwidth/bandwidth_suite.h"

namespace bb::suites {

std::vector<std::uint64_t> sweep_sizes(std::uint64_t max_bytes, int per_octave) {
  std::set<std::uint64_t> sizes;  // rounding can merge neighbours at the small end
  for (int i = 0;; ++i) {
    const double b = 4096.0 * std::exp2(static_cast<double>(i) / per_octave);
    const auto rounded = static_cast<std::uint64_t>(std::llround(b / 512)) * 512;
    sizes.insert(rounded);
    if (rounded >= max_bytes) break;
  }
  return {sizes.begin(), sizes.end()};
}

nlohmann::json host_cache_levels(const HostInfo& host, int threads) {
  nlohmann::json levels = nlohmann::json::array();
  for (const CacheInfo& c : host.caches) {
    if (c.type == "Instruction" || c.size_bytes == 0) continue;
    // Threads pinned to distinct CPUs: a cache shared by k CPUs serves up to ceil(threads / k)
    // of them, each with its own copy.
    const int sharing = std::max(c.shared_by_cpus, 1);
    const int instances = std::max(1, (threads + sharing - 1) / sharing);
    std::string name = "L";
    name += std::to_string(c.level);
    levels.push_back({{"name", name},
                      {"bytes", c.size_bytes * static_cast<std::uint64_t>(instances)},
                      {"per_instance_bytes", c.size_bytes},
                      {"instances", instances}});
  }
  return levels;
}

}  // namespace bb::suites
