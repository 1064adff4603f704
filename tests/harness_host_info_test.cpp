// Tests for harness/host_info: the sysfs parsers, and query_host against a fake sysfs + proc tree.
#include "harness/host_info.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <stdlib.h>
#include <set>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace bb {
namespace {

namespace fs = std::filesystem;

TEST(CountCpuList, HandWorked) {
  EXPECT_EQ(count_cpu_list("0"), 1);
  EXPECT_EQ(count_cpu_list("0-3"), 4);
  EXPECT_EQ(count_cpu_list("0-3,8,10-11"), 7);
  EXPECT_EQ(count_cpu_list("0-55,112-167"), 112);
  EXPECT_EQ(count_cpu_list("0,56"), 2);
}

TEST(CountCpuList, MalformedCountsAsOne) {
  EXPECT_EQ(count_cpu_list(""), 1);
  EXPECT_EQ(count_cpu_list("abc"), 1);
  EXPECT_EQ(count_cpu_list("0-3,x"), 1);
  EXPECT_EQ(count_cpu_list("a-3"), 1);
}

TEST(ParseCacheSize, Units) {
  EXPECT_EQ(parse_cache_size("48K"), 49152u);
  EXPECT_EQ(parse_cache_size("2048K"), 2097152u);
  EXPECT_EQ(parse_cache_size("480M"), 503316480u);
  EXPECT_EQ(parse_cache_size("1G"), 1073741824u);
  EXPECT_EQ(parse_cache_size("512"), 512u);
}

TEST(ParseCacheSize, GarbageIsZero) {
  EXPECT_EQ(parse_cache_size("garbage"), 0u);
  EXPECT_EQ(parse_cache_size(""), 0u);
  EXPECT_EQ(parse_cache_size("K"), 0u);
}

TEST(HostInfo, DerivedFromFields) {
  HostInfo h;
  EXPECT_EQ(h.last_level_cache_bytes(), 0u);
  EXPECT_EQ(h.fp64_simd_lanes(), 2);
  h.isa = {"sse2", "avx", "avx2", "fma"};
  EXPECT_EQ(h.fp64_simd_lanes(), 4);
  EXPECT_TRUE(h.has("fma"));
  EXPECT_FALSE(h.has("avx512f"));
  h.isa.push_back("avx512f");
  EXPECT_EQ(h.fp64_simd_lanes(), 8);
  // 8 lanes × 2 FMA units × 2 flop × 4 CPUs × 2.5 GHz = 320e9.
  h.logical_cpus = 4;
  h.cpu_clock_hz = 2.5e9;
  EXPECT_DOUBLE_EQ(h.peak_fp64_flop_per_s_estimate(), 320e9);
  // The last level ignores instruction caches, even at a higher level.
  h.caches = {{1, "Data", 48 << 10, 1}, {2, "Unified", 2 << 20, 1}, {3, "Instruction", 1 << 10, 1}};
  EXPECT_EQ(h.last_level_cache_bytes(), 2u << 20);
}

class FakeTree : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "bb_host_info_XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    root_ = tmpl;
    sys_ = root_ / "sys";
    proc_ = root_ / "proc";
    const struct {
      int level;
      const char* type;
      const char* size;
      const char* shared;
    } caches[] = {{1, "Data", "48K", "0,56"},
                  {1, "Instruction", "32K", "0,56"},
                  {2, "Unified", "2048K", "0,56"},
                  {3, "Unified", "105M", "0-55,112-167"}};
    for (int i = 0; i < 4; ++i) {
      const fs::path dir = sys_ / "cpu0" / "cache" / ("index" + std::to_string(i));
      write(dir / "level", std::to_string(caches[i].level) + "\n");
      write(dir / "type", std::string(caches[i].type) + "\n");
      write(dir / "size", std::string(caches[i].size) + "\n");
      write(dir / "shared_cpu_list", std::string(caches[i].shared) + "\n");
    }
    write(proc_ / "cpuinfo",
          "processor\t: 0\n"
          "vendor_id\t: GenuineIntel\n"
          "model name\t: Fake Xeon Platinum 9999\n"
          "cpu MHz\t\t: 2000.000\n"
          "flags\t\t: fpu sse2 avx avx2 fma avx512f avx512cd avx512_bf16 amx_tile avx512vl\n"
          "\n"
          "processor\t: 1\n"
          "model name\t: Some Other CPU\n"
          "cpu MHz\t\t: 800.000\n");
    write(proc_ / "meminfo", "MemTotal:       16384 kB\nMemFree:         1024 kB\n");
  }

  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  static void write(const fs::path& path, const std::string& content) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << content;
  }

  fs::path root_, sys_, proc_;
};

TEST_F(FakeTree, CachesAsCpu0SeesThem) {
  const HostInfo h = query_host(sys_.string(), proc_.string());
  ASSERT_EQ(h.caches.size(), 4u);
  EXPECT_EQ(h.caches[0].level, 1);
  EXPECT_EQ(h.caches[0].type, "Data");
  EXPECT_EQ(h.caches[0].size_bytes, 48u << 10);
  EXPECT_EQ(h.caches[0].shared_by_cpus, 2);
  EXPECT_EQ(h.caches[1].type, "Instruction");
  EXPECT_EQ(h.caches[1].size_bytes, 32u << 10);
  EXPECT_EQ(h.caches[2].level, 2);
  EXPECT_EQ(h.caches[2].size_bytes, 2u << 20);
  EXPECT_EQ(h.caches[3].level, 3);
  EXPECT_EQ(h.caches[3].type, "Unified");
  EXPECT_EQ(h.caches[3].shared_by_cpus, 112);
  EXPECT_EQ(h.last_level_cache_bytes(), 105u << 20);
}

TEST_F(FakeTree, ProcFields) {
  const HostInfo h = query_host(sys_.string(), proc_.string());
  EXPECT_EQ(h.cpu_model, "Fake Xeon Platinum 9999");  // the first processor's
  const std::vector<std::string> isa = {"sse2",    "avx",         "avx2",    "fma",
                                        "avx512f", "avx512_bf16", "amx_tile"};
  EXPECT_EQ(h.isa, isa);
  EXPECT_EQ(h.memory_bytes, 16384u * 1024u);
  EXPECT_DOUBLE_EQ(h.cpu_clock_hz, 2e9);  // no cpufreq: "cpu MHz"
  EXPECT_EQ(h.fp64_simd_lanes(), 8);
  ASSERT_GT(h.logical_cpus, 0);  // from this process's affinity, not from the tree
  EXPECT_DOUBLE_EQ(h.peak_fp64_flop_per_s_estimate(), 8 * 2 * 2 * h.logical_cpus * 2e9);
}

TEST_F(FakeTree, CpufreqMaxTakesPrecedence) {
  write(sys_ / "cpu0" / "cpufreq" / "cpuinfo_max_freq", "3500000\n");  // kHz
  const HostInfo h = query_host(sys_.string(), proc_.string());
  EXPECT_DOUBLE_EQ(h.cpu_clock_hz, 3.5e9);
}

TEST_F(FakeTree, MissingTreeLeavesDefaults) {
  const HostInfo h = query_host((root_ / "nosys").string(), (root_ / "noproc").string());
  EXPECT_TRUE(h.caches.empty());
  EXPECT_TRUE(h.cpu_model.empty());
  EXPECT_TRUE(h.isa.empty());
  EXPECT_EQ(h.memory_bytes, 0u);
  EXPECT_EQ(h.cpu_clock_hz, 0.0);
  EXPECT_EQ(h.last_level_cache_bytes(), 0u);
  EXPECT_EQ(h.fp64_simd_lanes(), 2);
}

// SMT siblings (two CPUs per core_id) count once; the peak estimate uses cores, not CPUs.
TEST_F(FakeTree, PhysicalCoresFromTopology) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  std::set<int> expected_cores;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    const fs::path topo = sys_ / ("cpu" + std::to_string(cpu)) / "topology";
    write(topo / "core_id", std::to_string(cpu / 2) + "\n");
    write(topo / "physical_package_id", "0\n");
    expected_cores.insert(cpu / 2);
  }
  const HostInfo h = query_host(sys_.string(), proc_.string());
  EXPECT_EQ(h.physical_cores, static_cast<int>(expected_cores.size()));
  EXPECT_DOUBLE_EQ(h.peak_fp64_flop_per_s_estimate(),
                   8 * 2.0 * 2.0 * static_cast<double>(expected_cores.size()) * 2.0e9);
}

TEST_F(FakeTree, CacheEnumerationStopsAtFirstGap) {
  fs::remove_all(sys_ / "cpu0" / "cache" / "index2");
  const HostInfo h = query_host(sys_.string(), proc_.string());
  EXPECT_EQ(h.caches.size(), 2u);
  EXPECT_EQ(h.last_level_cache_bytes(), 48u << 10);
}

}  // namespace
}  // namespace bb
