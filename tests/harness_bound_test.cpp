// The bound of every case and its limiter (harness/bound.h), and projection (harness/project.h), on
// planted runs whose ceilings and cases are written by hand: each planted case gets the limiter it
// was built for, with the fraction worked out below.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "harness/bound.h"
#include "harness/project.h"
#include "theory/collectives.h"

namespace bb {
namespace {

using json = nlohmann::json;

// A host entry measured at `median_s` with a ±2% interval for its median and samples.
json entry(const std::string& suite, const std::string& name, double bytes, double flop,
           double median_s, json params, const std::string& level = "dram",
           const std::string& precision = "fp64") {
  return {{"name", suite + "/" + name},
          {"suite", suite},
          {"case", name},
          {"backend", "host"},
          {"run_type", "iteration"},
          {"bytes", bytes},
          {"flop", flop},
          {"precision", precision},
          {"memory_level", level},
          {"params", std::move(params)},
          {"median_s", median_s},
          {"min_s", 0.95 * median_s},
          {"median_ci_low_s", 0.98 * median_s},
          {"median_ci_high_s", 1.02 * median_s},
          {"median_ci_coverage", 0.95},
          {"samples_s", {0.95 * median_s, median_s, 1.02 * median_s}}};
}

// A 2-thread host with L1 64 KiB and L2 1 MiB (totals), read plateaus 400 GB/s (L1), 200 GB/s (L2),
// 80 GB/s past the caches; latency plateaus 1 ns, 4 ns, 100 ns; STREAM best 70 GB/s; FMA ceilings
// 100 GFLOP/s fp64, 200 fp32; the overhead case's fastest sample 1 us; `dram_scale` multiplies the
// DRAM figures (a second machine).
json planted_run(double dram_scale = 1, const std::string& label = "a") {
  const json levels = {{{"name", "L1"}, {"bytes", 65536}}, {{"name", "L2"}, {"bytes", 1048576}}};
  json doc = {{"context",
               {{"boundbench",
                 {{"schema_version", 2},
                  {"label", label},
                  {"host", {{"cpu_model", "planted"}, {"clock_is_max", false}}},
                  {"options", {{"device", 0}}}}}}},
              {"benchmarks", json::array()},
              {"checks", json::array()}};
  doc["figures"]["bandwidth"]["host"] = {
      {"read_bandwidth",
       {{"plateaus",
         {{{"from_bytes", 4096}, {"to_bytes", 49152}, {"bytes_per_s", 400e9}},
          {{"from_bytes", 131072}, {"to_bytes", 786432}, {"bytes_per_s", 200e9}},
          {{"from_bytes", 8388608},
           {"to_bytes", 268435456},
           {"bytes_per_s", 80e9 * dram_scale}}}}}},
      {"latency",
       {{"plateaus",
         {{{"from_bytes", 4096}, {"to_bytes", 49152}, {"latency_ns", 1.0}},
          {{"from_bytes", 131072}, {"to_bytes", 786432}, {"latency_ns", 4.0}},
          {{"from_bytes", 8388608},
           {"to_bytes", 268435456},
           {"latency_ns", 100.0 / dram_scale}}}}}},
      {"stream_best", {{"case", "triad/fp64/host"}, {"bytes_per_s", 70e9 * dram_scale}}},
      {"ceilings", {{"fp64", {{"flop_per_s", 100e9}}}, {"fp32", {{"flop_per_s", 200e9}}}}}};
  auto& b = doc["benchmarks"];
  // Read sweep point in L1: 1e9 bytes at 400 GB/s = 2.5 ms; measured 3.125 ms: 80%.
  b.push_back(entry(
      "bandwidth", "read-sweep/host/32768", 1e9, 1.25e8, 3.125e-3,
      {{"sweep", "read"}, {"working_set_bytes", 32768}, {"threads", 2}, {"cache_levels", levels}},
      "hierarchy"));
  // STREAM triad, 800 MB past the caches: at 80 GB/s (the read plateau beats STREAM's 70) 10 ms;
  // measured 12.5 ms: 80%.
  b.push_back(entry("bandwidth", "triad/fp64/host", 8e8, 6.67e7, 12.5e-3,
                    {{"working_set_bytes", 8e8}, {"threads", 2}}));
  // FMA chain: 1e9 flop at 100 GFLOP/s = 10 ms over 4 KiB (L1: 10 ns); measured 11 ms.
  b.push_back(entry("bandwidth", "intensity/fp64/host/k64", 4096, 1e9, 11e-3,
                    {{"working_set_bytes", 4096}, {"threads", 2}}));
  // Pointer chase, 65536 dependent loads through 64 MiB: 65536 x 100 ns = 6.5536 ms; measured 7 ms.
  b.push_back(entry("bandwidth", "latency-sweep/host/67108864", 0, 0, 7e-3,
                    {{"sweep", "latency"}, {"steps", 65536}, {"working_set_bytes", 67108864}},
                    "latency", "fp32"));
  // The overhead case: a 6 KiB triad (15 ns in L1), fastest sample 1 us, median 2 us: 50%.
  json overhead = entry("harness", "overhead/host", 6144, 512, 2e-6, {{"elements", 256}}, "l1");
  overhead["min_s"] = 1e-6;
  b.push_back(overhead);
  return doc;
}

const json& find(const json& doc, const std::string& name) {
  for (const auto& e : doc["benchmarks"])
    if (e["name"] == name) return e;
  throw std::out_of_range(name);
}

TEST(Bound, PlantedCasesGetTheirLimiter) {
  json doc = planted_run();
  add_bounds(doc, 0.05);
  const json& read = find(doc, "bandwidth/read-sweep/host/32768")["bound"];
  EXPECT_EQ(read["limiter"], "L1");
  EXPECT_NEAR(read["time_s"].get<double>(), 2.5e-3, 1e-12);
  EXPECT_NEAR(read["fraction"].get<double>(), 0.8, 1e-12);
  // The interval from the median's [0.98, 1.02]: [0.8/1.02, 0.8/0.98].
  EXPECT_NEAR(read["interval"][0].get<double>(), 0.8 / 1.02, 1e-12);
  EXPECT_NEAR(read["interval"][1].get<double>(), 0.8 / 0.98, 1e-12);
  EXPECT_EQ(read["source"], "measured");
  EXPECT_EQ(read["runner_up"]["resource"], "compute/fp64");  // 1.25e8 / 1e11 = 1.25 ms

  const json& stream = find(doc, "bandwidth/triad/fp64/host")["bound"];
  EXPECT_EQ(stream["limiter"], "dram");
  EXPECT_NEAR(stream["time_s"].get<double>(), 10e-3, 1e-12);
  EXPECT_EQ(stream["speed_of_light"], "memory-bound");

  const json& fma = find(doc, "bandwidth/intensity/fp64/host/k64")["bound"];
  EXPECT_EQ(fma["limiter"], "compute/fp64");
  EXPECT_NEAR(fma["fraction"].get<double>(), 10.0 / 11.0, 1e-12);
  EXPECT_EQ(fma["speed_of_light"], "compute-bound");

  const json& chase = find(doc, "bandwidth/latency-sweep/host/67108864")["bound"];
  EXPECT_EQ(chase["limiter"], "latency/dram");
  EXPECT_NEAR(chase["time_s"].get<double>(), 65536 * 100e-9, 1e-12);
  EXPECT_EQ(chase["speed_of_light"], "latency-bound");

  const json& launch = find(doc, "harness/overhead/host")["bound"];
  EXPECT_EQ(launch["limiter"], "overhead");
  EXPECT_NEAR(launch["fraction"].get<double>(), 0.5, 1e-12);
  EXPECT_EQ(launch["speed_of_light"], "overhead-bound");
}

TEST(Bound, ReadPlateauBetweenLevelsIsTheFasterOne) {
  // 100 KiB lies between the L1 plateau (to 48 KiB) and the L2 one (from 128 KiB): the L1 rate.
  const std::vector<theory::LevelPlateau> p = {{4096, 49152, 400e9}, {131072, 786432, 200e9}};
  EXPECT_EQ(theory::plateau_serving(p, 102400)->value, 400e9);
  EXPECT_EQ(theory::plateau_serving(p, 131072)->value, 200e9);
  EXPECT_EQ(theory::plateau_serving(p, 1024)->value, 400e9);
  EXPECT_FALSE(theory::plateau_serving(p, 1 << 20));
  EXPECT_EQ(theory::level_holding({65536, 1048576}, 65536), 0u);
  EXPECT_EQ(theory::level_holding({65536, 1048576}, 65537), 1u);
  EXPECT_FALSE(theory::level_holding({65536, 1048576}, 2e6));
}

TEST(Bound, CacheHeldPastTheLastPlateauUsesIt) {
  // L2 holds 900 KiB, past the L2 plateau's end (768 KiB): bounded at the plateau's 200 GB/s.
  json doc = planted_run();
  doc["figures"]["bandwidth"]["host"]["read_bandwidth"]["plateaus"].erase(2);
  doc["figures"]["bandwidth"]["host"].erase("ceilings");
  doc["figures"]["bandwidth"]["host"]["ceilings"]["fp64"]["flop_per_s"] = 100e9;
  const Ceilings c = ceilings_of(doc, "host");
  EntryWork w;
  w.bytes = 2e9, w.working_set_bytes = 921600, w.flop = 1e9, w.precision = "fp32";
  const CaseBound b = case_bound(w, c);
  ASSERT_FALSE(b.empty());
  EXPECT_EQ(b.ranked.front().resource, "L2");
  EXPECT_NEAR(b.memory_s, 10e-3, 1e-15);
  // fp32 from the fp64 FMA ceiling alone: 1e9 flop at 2 x 100 GFLOP/s = 5 ms, the runner-up.
  EXPECT_NEAR(b.compute_s, 5e-3, 1e-15);
  EXPECT_EQ(b.ranked[1].resource, "compute/fp32");
}

TEST(Bound, MeasuredCeilingBeatenIsAFindingNotAFailure) {
  json doc = planted_run();
  // STREAM at 5 ms: twice the measured 80 GB/s ceiling.
  for (auto& e : doc["benchmarks"])
    if (e["name"] == "bandwidth/triad/fp64/host") {
      e["median_s"] = 5e-3, e["median_ci_low_s"] = 4.9e-3, e["median_ci_high_s"] = 5.1e-3;
      e["min_s"] = 4.8e-3;
    }
  doc["checks"].push_back({{"suite", "bandwidth"},
                           {"name", "triad/fp64/host/roofline"},
                           {"verdict", "SKIP"},
                           {"reason", "peak bandwidth unknown"}});
  const auto made = add_bounds(doc, 0.05);
  const Check& k = made.at("bandwidth/triad/fp64/host/roofline");
  EXPECT_EQ(k.kind, CheckKind::expectation);
  EXPECT_EQ(k.verdict, Verdict::below_expectation);
  EXPECT_NE(k.reason.find("under-measured"), std::string::npos) << k.reason;
  EXPECT_EQ(doc["checks"].size(), 2u);  // replaced in place; the chase's check added
  EXPECT_EQ(doc["checks"][0]["verdict"], "BELOW-EXPECTATION");
}

TEST(Bound, SpecCeilingBeatenFails) {
  json doc = planted_run();
  doc["context"]["boundbench"]["options"]["host_peak_bytes_per_s"] = 200e9;  // --host-peak-bw
  for (auto& e : doc["benchmarks"])
    if (e["name"] == "bandwidth/triad/fp64/host") e["min_s"] = 3e-3, e["median_s"] = 3.2e-3;
  const Ceilings c = ceilings_of(doc, "host");
  ASSERT_TRUE(c.dram_bytes_per_s);
  EXPECT_EQ(c.dram_bytes_per_s->source, "spec");
  const json& e = find(doc, "bandwidth/triad/fp64/host");
  const CaseBound b = case_bound(entry_work(e), c);
  const Check k = bound_check("bandwidth", "triad/fp64/host", e, b, 0.05);
  EXPECT_EQ(k.kind, CheckKind::law);
  EXPECT_EQ(k.verdict, Verdict::fail);  // 8e8 B / 200e9 = 4 ms > 3 ms / 0.95
}

TEST(Bound, CeilingsFromAnEarlierRun) {
  // A filtered run measured no ceiling: --ceilings takes the earlier run's, saying so.
  json earlier = planted_run(1, "earlier");
  json doc = planted_run();
  doc["figures"] = json::object();
  doc["benchmarks"].erase(4);  // no overhead case either
  add_bounds(doc, 0.05);
  EXPECT_TRUE(find(doc, "bandwidth/triad/fp64/host")["bound"].is_null());
  add_bounds(doc, 0.05, &earlier);
  const json& b = find(doc, "bandwidth/triad/fp64/host")["bound"];
  EXPECT_EQ(b["limiter"], "dram");
  EXPECT_NEAR(b["time_s"].get<double>(), 10e-3, 1e-12);
  EXPECT_NE(b["basis"].get<std::string>().find("(from earlier)"), std::string::npos) << b;
}

// A collectives run over MPI at p = 2: the all_reduce series peaked at 10 GB/s busbw and fits
// α = 1 us; all_gather peaked at 8 GB/s and fits α = 0.5 us. The link of "mpi/p2" is the best
// busbw, 10 GB/s, and the smallest α, 0.5 us.
json collectives_run() {
  json doc = {{"context", {{"boundbench", {{"schema_version", 2}, {"label", "coll"}}}}},
              {"benchmarks", json::array()},
              {"checks", json::array()}};
  doc["figures"]["collectives"]["mpi"]["p2"] = {
      {"ranks", 2},
      {"series",
       {{"all_reduce/fp32/sum/out-of-place",
         {{"peak_busbw_bytes_per_s", 10e9}, {"peak_at_bytes", 67108864}, {"alpha_s", 1e-6}}},
        {"all_gather/fp32/out-of-place",
         {{"peak_busbw_bytes_per_s", 8e9}, {"peak_at_bytes", 1048576}, {"alpha_s", 0.5e-6}}}}}};
  doc["figures"]["collectives"]["mpi"]["p1"] = {
      {"ranks", 1},
      {"series", {{"broadcast/fp32/out-of-place", {{"peak_busbw_bytes_per_s", 1e16}}}}}};
  auto coll = [](const std::string& op, int ranks, double n, double median_s) {
    json e = entry(
        "collectives",
        op + "/fp32/" + std::to_string(int64_t(n)) + "B/mpi-p" + std::to_string(ranks), n, 0,
        median_s,
        {{"collective", op}, {"ranks", ranks}, {"bytes", n}, {"transport", "mpi"}, {"sweep", true}},
        "dram", "fp32");
    e.erase("memory_level");  // as the collectives write their entries
    return e;
  };
  auto& b = doc["benchmarks"];
  // 64 MiB all_reduce, ring at p = 2: 2(p−1)/p·n = n = 67,108,864 bytes on the wire per rank, at
  // 10 GB/s 6.7108864 ms; latency 2(p−1) = 2 messages × 0.5 us = 1 us. Measured 8 ms: 83.886%.
  b.push_back(coll("all_reduce", 2, 67108864, 8e-3));
  // 8 B all_reduce: wire 8 B / 10 GB/s = 0.8 ns; latency 1 us; measured 2 us: 50%, latency-bound.
  b.push_back(coll("all_reduce", 2, 8, 2e-6));
  // 1 MiB all_gather (n = the gathered output): (p−1)/p·n = 524,288 bytes, 52.4288 us at 10 GB/s;
  // latency p−1 = 1 message, 0.5 us. Measured 65.536 us: 80%.
  b.push_back(coll("all_gather", 2, 1048576, 65.536e-6));
  // One rank: nothing crosses a link, no bound.
  b.push_back(coll("broadcast", 1, 1048576, 1e-6));
  return doc;
}

TEST(Bound, CollectivesAreBoundByTheLinkOrItsLatency) {
  const theory::LinkWork ar4 = theory::link_work(theory::Collective::all_reduce, 4, 1000);
  EXPECT_DOUBLE_EQ(ar4.wire_bytes_per_rank, 1500);  // 2·3/4·1000
  EXPECT_DOUBLE_EQ(ar4.messages, 6);                // 2(p−1)
  const theory::LinkWork bc4 = theory::link_work(theory::Collective::broadcast, 4, 1000);
  EXPECT_DOUBLE_EQ(bc4.wire_bytes_per_rank, 1000);  // pipeline: n
  EXPECT_DOUBLE_EQ(bc4.messages, 3);                // p−1
  EXPECT_DOUBLE_EQ(theory::link_work(theory::Collective::send_recv, 2, 64).messages, 1);
  EXPECT_DOUBLE_EQ(theory::link_work(theory::Collective::all_reduce, 1, 64).wire_bytes_per_rank, 0);

  json doc = collectives_run();
  const Ceilings c = ceilings_of(doc, "host");
  ASSERT_TRUE(c.link_bytes_per_s.contains("mpi/p2"));
  EXPECT_EQ(c.link_bytes_per_s.at("mpi/p2").value, 10e9);
  EXPECT_EQ(c.link_bytes_per_s.at("mpi/p2").source, "measured");
  EXPECT_EQ(c.link_alpha_s.at("mpi/p2").value, 0.5e-6);
  EXPECT_TRUE(ceilings_of(doc, "cuda").link_bytes_per_s.empty());  // nccl's would be cuda's

  add_bounds(doc, 0.05);
  const json& big = find(doc, "collectives/all_reduce/fp32/67108864B/mpi-p2")["bound"];
  EXPECT_EQ(big["limiter"], "link");
  EXPECT_NEAR(big["time_s"].get<double>(), 6.7108864e-3, 1e-15);
  EXPECT_NEAR(big["fraction"].get<double>(), 6.7108864 / 8, 1e-12);
  EXPECT_EQ(big["runner_up"]["resource"], "latency/link");
  EXPECT_NEAR(big["runner_up"]["time_s"].get<double>(), 1e-6, 1e-18);
  EXPECT_EQ(big["speed_of_light"], "memory-bound");

  const json& small = find(doc, "collectives/all_reduce/fp32/8B/mpi-p2")["bound"];
  EXPECT_EQ(small["limiter"], "latency/link");
  EXPECT_NEAR(small["fraction"].get<double>(), 0.5, 1e-12);
  EXPECT_NEAR(small["runner_up"]["time_s"].get<double>(), 0.8e-9, 1e-20);
  EXPECT_EQ(small["speed_of_light"], "latency-bound");

  const json& gather = find(doc, "collectives/all_gather/fp32/1048576B/mpi-p2")["bound"];
  EXPECT_EQ(gather["limiter"], "link");
  EXPECT_NEAR(gather["time_s"].get<double>(), 52.4288e-6, 1e-18);
  EXPECT_NEAR(gather["fraction"].get<double>(), 0.8, 1e-12);

  EXPECT_TRUE(find(doc, "collectives/broadcast/fp32/1048576B/mpi-p1")["bound"].is_null());
  EXPECT_EQ(doc["checks"].size(), 0u);  // a ceiling made of the run's own points judges nothing
}

TEST(Bound, StrategiesStepsAreBoundByTheirLink) {
  // A data-parallel step at p = 2 with 524,288 fp32 parameters: one ring all-reduce of n =
  // 2,097,152 bytes per step, 2(p−1)/p·n = 2,097,152 bytes on the wire per rank; over the run's
  // all-reduce link of 2 GB/s (1/β) 1.048576 ms. Measured 2 ms: 52.4288%.
  const double wire =
      theory::link_work(theory::Collective::all_reduce, 2, 524288 * 4.0).wire_bytes_per_rank;
  EXPECT_DOUBLE_EQ(wire, 2097152);
  json doc = {{"context", {{"boundbench", {{"schema_version", 2}, {"label", "strategies"}}}}},
              {"benchmarks", json::array()},
              {"checks", json::array()}};
  doc["figures"]["strategies"]["links"]["all_reduce"] = {{"alpha_s", 1e-5},
                                                         {"link_bytes_per_s", 2e9}};
  json step = entry("strategies", "data/n2/acc1/synthetic", 2 * 2097152, 1e9, 2e-3,
                    {{"ranks", 2}, {"link", "all_reduce"}, {"link_wire_bytes_per_rank", wire}},
                    "dram", "fp32");
  step.erase("memory_level");
  doc["benchmarks"].push_back(step);
  // One rank: no link declared, no bound.
  doc["benchmarks"].push_back(
      entry("strategies", "data/n1/acc1/synthetic", 2097152, 1e9, 1e-3, {{"ranks", 1}}));
  add_bounds(doc, 0.05);
  const json& b = find(doc, "strategies/data/n2/acc1/synthetic")["bound"];
  EXPECT_EQ(b["limiter"], "link");
  EXPECT_NEAR(b["time_s"].get<double>(), 1.048576e-3, 1e-15);
  EXPECT_NEAR(b["fraction"].get<double>(), 0.524288, 1e-12);
  EXPECT_EQ(b["source"], "measured");
  EXPECT_TRUE(find(doc, "strategies/data/n1/acc1/synthetic")["bound"].is_null());
}

// A synthetic GPU run (no GPU here): a device of 2 TB/s DRAM and 50 TFLOP/s fp32 from the peak
// table, and the launch overhead case (one thread writes one int) whose fastest sample is 2 us.
json gpu_run() {
  json doc = {{"context",
               {{"boundbench",
                 {{"schema_version", 2},
                  {"label", "gpu"},
                  {"options", {{"device", 0}}},
                  {"gpus",
                   {{"devices",
                     {{{"name", "planted GPU"},
                       {"sm_count", 100},
                       {"sm_clock_hz", 2e9},
                       {"peak_dram_bytes_per_s", 2e12},
                       {"peak_cuda_core_flop_per_s", {{"fp32", 50e12}}}}}}}}}}}},
              {"benchmarks", json::array()},
              {"checks", json::array()}};
  auto gpu = [](const std::string& suite, const std::string& name, double bytes, double flop,
                double median_s) {
    json e = entry(suite, name, bytes, flop, median_s, {{"threads", 256}}, "dram", "fp32");
    e["backend"] = "cuda";
    return e;
  };
  auto& b = doc["benchmarks"];
  json launch = gpu("harness", "overhead/cuda", 4, 0, 2.5e-6);
  launch["min_s"] = 2e-6;
  b.push_back(launch);
  // 8 KiB copied: 8192 B / 2 TB/s = 4.096 ns at most from DRAM, but one launch is 2 us; measured
  // 2.5 us: 80% of the overhead bound.
  b.push_back(gpu("bandwidth", "copy/fp32/cuda/tiny", 8192, 0, 2.5e-6));
  // 1 GB STREAM: 0.5 ms at 2 TB/s, far above a launch; measured 0.625 ms: 80%.
  b.push_back(gpu("bandwidth", "copy/fp32/cuda", 1e9, 0, 0.625e-3));
  return doc;
}

TEST(Bound, GpuLaunchOverheadBoundsTinyKernels) {
  json doc = gpu_run();
  const Ceilings c = ceilings_of(doc, "cuda");
  ASSERT_TRUE(c.launch_s);
  EXPECT_EQ(c.launch_s->value, 2e-6);
  EXPECT_EQ(c.launch_s->source, "measured");
  ASSERT_TRUE(c.dram_bytes_per_s);
  EXPECT_EQ(c.dram_bytes_per_s->source, "spec");
  add_bounds(doc, 0.05);
  const json& launch = find(doc, "harness/overhead/cuda")["bound"];
  EXPECT_EQ(launch["limiter"], "overhead");
  EXPECT_NEAR(launch["fraction"].get<double>(), 0.8, 1e-12);
  EXPECT_EQ(launch["speed_of_light"], "overhead-bound");
  const json& tiny = find(doc, "bandwidth/copy/fp32/cuda/tiny")["bound"];
  EXPECT_EQ(tiny["limiter"], "overhead");
  EXPECT_NEAR(tiny["time_s"].get<double>(), 2e-6, 1e-18);
  EXPECT_NEAR(tiny["fraction"].get<double>(), 0.8, 1e-12);
  EXPECT_EQ(tiny["runner_up"]["resource"], "dram");
  EXPECT_NEAR(tiny["runner_up"]["time_s"].get<double>(), 4.096e-9, 1e-21);
  EXPECT_EQ(tiny["speed_of_light"], "overhead-bound");
  const json& stream = find(doc, "bandwidth/copy/fp32/cuda")["bound"];
  EXPECT_EQ(stream["limiter"], "dram");
  EXPECT_NEAR(stream["fraction"].get<double>(), 0.8, 1e-12);
  EXPECT_EQ(stream["runner_up"]["resource"], "overhead");
}

TEST(Project, GpuToGpuWithMeasuredBandwidthAndLaunches) {
  // A: the planted GPU (2 TB/s spec, 100 SMs x 2 GHz); its STREAM best measured 1.6 TB/s. B: 1
  // TB/s spec, 50 SMs x 2 GHz, STREAM best 0.6 TB/s, a launch of 4 us. The 1 GB copy (no flop:
  // γ = 1) scales with the measured bandwidths: 0.625 ms × 1.6 / 0.6 = 1.6667 ms (with the specs,
  // 0.625 ms × 2 / 1 = 1.25 ms). The tiny copy, launch-bound on A at 80% (2 us of 2.5 us), takes
  // B's launch at that fraction: 4 us / 0.8 = 5 us (Habitat would give 2.5 us × 1.6 / 0.6).
  json a = gpu_run();
  json b = gpu_run();
  b["context"]["boundbench"]["label"] = "gpu-b";
  json& dev = b["context"]["boundbench"]["gpus"]["devices"][0];
  dev["sm_count"] = 50, dev["peak_dram_bytes_per_s"] = 1e12;
  a["figures"]["bandwidth"]["cuda"]["stream_best"] = {{"case", "copy"}, {"bytes_per_s", 1.6e12}};
  b["figures"]["bandwidth"]["cuda"]["stream_best"] = {{"case", "copy"}, {"bytes_per_s", 0.6e12}};
  b["benchmarks"][0]["min_s"] = 4e-6, b["benchmarks"][0]["median_s"] = 5e-6;
  auto predicted = [](const Projection& p, const std::string& name) {
    for (const auto& c : p.cases)
      if (c.name == name) return c;
    throw std::out_of_range(name);
  };
  const Projection p = project_to_run(a, b);
  const ProjectedCase copy = predicted(p, "bandwidth/copy/fp32/cuda");
  EXPECT_NEAR(copy.predicted_s, 0.625e-3 * 1.6 / 0.6, 1e-15);
  EXPECT_NE(copy.method.find("measured bandwidth"), std::string::npos) << copy.method;
  const ProjectedCase tiny = predicted(p, "bandwidth/copy/fp32/cuda/tiny");
  EXPECT_EQ(tiny.limiter, "overhead");
  EXPECT_NEAR(tiny.predicted_s, 5e-6, 1e-18);
  // A kernel that declares no work (a spin of fixed length): not projected, with the reason.
  ASSERT_EQ(p.not_projected.size(), 0u);
  json spin = a["benchmarks"][2];
  spin["name"] = "occupancy/waves/full", spin["bytes"] = 0, spin["flop"] = 0;
  a["benchmarks"].push_back(spin);
  const Projection with_spin = project_to_run(a, b);
  ASSERT_EQ(with_spin.not_projected.size(), 1u);
  EXPECT_EQ(with_spin.not_projected[0].first, "occupancy/waves/full");
  EXPECT_NE(with_spin.not_projected[0].second.find("no bytes and no flop"), std::string::npos);
  b["figures"]["bandwidth"]["cuda"].erase("stream_best");
  const ProjectedCase spec = predicted(project_to_run(a, b), "bandwidth/copy/fp32/cuda");
  EXPECT_NEAR(spec.predicted_s, 0.625e-3 * 2, 1e-15);
  EXPECT_NE(spec.method.find("spec bandwidth"), std::string::npos) << spec.method;
}

TEST(Bound, HabitatScaling) {
  // Pure memory (γ = 1): time scales with the bandwidth ratio alone.
  EXPECT_DOUBLE_EQ(theory::habitat_scaled_time_s(1e-3, 2e12, 4e12, 1, 7, 1.0), 0.5e-3);
  // γ = 1/2, both ratios 1/2: 1 ms × 0.5^0.5 × 0.5^0.5 = 0.5 ms.
  EXPECT_DOUBLE_EQ(theory::habitat_scaled_time_s(1e-3, 2e12, 4e12, 1, 2, 0.5), 0.5e-3);
  // Work that differs on B: pure memory follows the bytes, pure compute the flop; γ = 1/2 with 4x
  // the bytes and the same flop: √4 = 2. A zero side (no flop declared) leaves its ratio at 1.
  EXPECT_DOUBLE_EQ(theory::habitat_work_ratio(1e6, 2e6, 10, 10, 1.0), 2.0);
  EXPECT_DOUBLE_EQ(theory::habitat_work_ratio(1e6, 1e6, 80, 40, 0.0), 0.5);
  EXPECT_DOUBLE_EQ(theory::habitat_work_ratio(1e6, 4e6, 10, 10, 0.5), 2.0);
  EXPECT_DOUBLE_EQ(theory::habitat_work_ratio(1e6, 3e6, 0, 40, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(theory::habitat_gamma(0, 10), 1.0);
  EXPECT_DOUBLE_EQ(theory::habitat_gamma(2.5, 10), 0.75);
  EXPECT_DOUBLE_EQ(theory::habitat_gamma(20, 10), 0.0);
  EXPECT_DOUBLE_EQ(theory::projected_time_s(4e-3, 0.8), 5e-3);
  EXPECT_TRUE(theory::below_speed_of_light(0.59, 0.3));
  EXPECT_FALSE(theory::below_speed_of_light(0.61, 0.3));
}

TEST(Project, KeepsTheFractionOfTheBoundOnTheTarget) {
  // B: DRAM twice as fast. STREAM at 80% of 10 ms on A: on B the bound is 5 ms, at 80% 6.25 ms.
  json a = planted_run(1, "a"), b = planted_run(2, "b");
  for (auto& e : b["benchmarks"])
    if (e["name"] == "bandwidth/triad/fp64/host") e["median_s"] = 6.5e-3;
  const Projection p = project_to_run(a, b);
  const ProjectedCase* stream = nullptr;
  for (const auto& c : p.cases)
    if (c.name == "bandwidth/triad/fp64/host") stream = &c;
  ASSERT_NE(stream, nullptr);
  EXPECT_NEAR(stream->predicted_s, 6.25e-3, 1e-12);
  EXPECT_EQ(stream->limiter, "dram");
  ASSERT_TRUE(stream->measured_s);
  // Errors: STREAM |6.25/6.5 − 1| = 3.8%; the chase, at 50 ns on B, 3.2768 ms / (6.5536/7) =
  // 3.5 ms against B's 7 ms: 50%; the other three 0 (B measured them as A): median 0 over 5.
  EXPECT_EQ(p.error_cases, 5u);
  EXPECT_NEAR(p.median_abs_error, 0.0, 1e-12);
  const json j = to_json(p);
  EXPECT_TRUE(j["cases"][0].contains("interval"));
}

TEST(Project, BadInputIsOneLine) {
  json a = planted_run();
  EXPECT_THROW(project_to_device(a, "no-such-gpu"), std::invalid_argument);
  EXPECT_THROW(project_to_device(a, "H100-SXM"), std::invalid_argument);  // no CUDA case
  for (auto& e : a["benchmarks"]) e["samples"] = 0;                       // a run without samples
  EXPECT_THROW(project_to_run(a, planted_run()), std::invalid_argument);
}

}  // namespace
}  // namespace bb
