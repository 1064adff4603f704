// Planted violations: test-only cases that break a law on purpose, measured for real through the
// harness (never in the product's case list). Each must FAIL — never INCONCLUSIVE — on an idle
// machine and while a CPU-bound process is pinned to a core (ctest planted.loaded runs this
// binary under tests/with_competitor.sh):
//   (a) a copy that moves half the bytes it declares beats the roofline;
//   (b) attention-like work that grows as n^3 where the law says n^2;
//   (c) a collective whose bus factor is wrong (all_gather's bytes counted as all_reduce's):
//       busbw beyond the link;
//   (d) one wrong element in a result.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "harness/runner.h"
#include "suites/attention/attention_suite.h"
#include "suites/collectives/collectives_checks.h"

namespace bb {
namespace {

// A scratch directory for one run's results file, removed afterwards.
struct Scratch {
  std::filesystem::path dir;
  Scratch() {
    char tmpl[] = "/tmp/bb_planted_XXXXXX";
    if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    dir = tmpl;
  }
  ~Scratch() { std::filesystem::remove_all(dir); }
};

// Runs `suite` through the harness's runner, host only, and returns its checks from the results.
struct Ran {
  RunOutcome outcome;
  nlohmann::json doc;
};
Ran run_suite(const Suite& suite, std::optional<double> host_peak_bytes_per_s = {}) {
  Scratch scratch;
  RunOptions opts;
  opts.rule = StoppingRule::quick();
  opts.quick = true;
  opts.backend = Backend::host;
  opts.host_peak_bytes_per_s = host_peak_bytes_per_s;
  opts.out_path = (scratch.dir / "r.json").string();
  Environment env{query_host(), GpuStatus{}};
  env.gpus.reason = "test: host only";
  const std::vector<Suite> suites = {suite};
  Ran r;
  r.outcome = run_cases(select_cases(suites, opts, env), opts, env);
  std::ifstream in(opts.out_path);
  r.doc = nlohmann::json::parse(in);
  return r;
}

const nlohmann::json* find_check(const nlohmann::json& doc, const std::string& suffix) {
  for (const auto& c : doc["checks"]) {
    const std::string name = c["name"];
    if (name.size() >= suffix.size() && name.ends_with(suffix)) return &c;
  }
  return nullptr;
}

// ---- (a) the roofline: a copy that moves half the bytes it declares ----

constexpr std::size_t kCopyDoubles = std::size_t{1} << 22;  // 32 MiB per array

class Copy final : public Instance {
 public:
  explicit Copy(std::size_t moved) : moved_(moved), src_(kCopyDoubles), dst_(kCopyDoubles) {
    for (std::size_t i = 0; i < kCopyDoubles; ++i) src_[i] = static_cast<double>(i);
  }
  Comparison validate() override {
    std::fill(dst_.begin(), dst_.end(), std::nan(""));
    run(nullptr);
    const std::vector<double> ref(src_.begin(), src_.begin() + static_cast<std::ptrdiff_t>(moved_));
    return compare<double, double>(std::span<const double>(dst_.data(), moved_), ref,
                                   Tolerance{0, 0});
  }
  void run(gpu_stream) override { std::memcpy(dst_.data(), src_.data(), moved_ * sizeof(double)); }

 private:
  std::size_t moved_;
  std::vector<double> src_, dst_;
};

// Declares a copy of kCopyDoubles doubles (read + write); moves `moved` of them.
Case copy_case(const std::string& name, std::size_t moved) {
  return {name, Backend::host,
          [](const CaseContext&) {
            Declared d;
            d.work.bytes_read = d.work.bytes_written = kCopyDoubles * sizeof(double);
            d.work.precision = theory::Precision::fp64;
            d.params = {{"doubles", kCopyDoubles}};
            return d;
          },
          [moved](const CaseContext&, Declared&) -> std::unique_ptr<Instance> {
            return std::make_unique<Copy>(moved);
          },
          nullptr};
}

TEST(Planted, HalfTheDeclaredBytesBeatsTheRoofline) {
  // The bound: this machine's own copy bandwidth, measured first by the honest case (its fastest
  // sample), with a quarter more for a copy that ran in a slow spell.
  const Ran honest =
      run_suite({"planted", "honest copy", {copy_case("copy/honest", kCopyDoubles)}});
  const auto& entry = honest.doc["benchmarks"][0];
  const double best_bytes_per_s = entry["bytes"].get<double>() / entry["min_s"].get<double>();
  const Ran planted = run_suite({"planted",
                                 "a copy moving half of what it declares",
                                 {copy_case("copy/half", kCopyDoubles / 2)}},
                                1.25 * best_bytes_per_s);
  const nlohmann::json* k = find_check(planted.doc, "copy/half/roofline");
  ASSERT_NE(k, nullptr) << planted.doc["checks"].dump(1);
  EXPECT_EQ((*k)["verdict"], "FAIL") << (*k)["reason"];
  EXPECT_TRUE(planted.outcome.failed());
}

// ---- (b) n^3 where the law says n^2 ----

class Cubic final : public Instance {
 public:
  explicit Cubic(std::size_t n) : n_(n), a_(2 * n, 1.0), b_(2 * n), out_(n) {
    for (std::size_t m = 0; m < b_.size(); ++m) b_[m] = static_cast<double>(m);
  }
  // Row i: n · Σ_{k<w} (k + i) = n (w(w − 1)/2 + w i), exact in doubles.
  Comparison validate() override {
    std::fill(out_.begin(), out_.end(), std::nan(""));
    run(nullptr);
    std::vector<double> ref(n_);
    const double w = static_cast<double>(work()), n = static_cast<double>(n_);
    for (std::size_t i = 0; i < n_; ++i)
      ref[i] = n * (w * (w - 1) / 2 + w * static_cast<double>(i));
    return compare<double, double>(out_, ref, Tolerance{0, 0});
  }
  // n^2 rows of n/16 multiply-adds: n^3/16 (each row's operands shifted by i and j, so that no row
  // is the same computation as another).
  void run(gpu_stream) override {
    for (std::size_t i = 0; i < n_; ++i) {
      double row = 0;
      for (std::size_t j = 0; j < n_; ++j) {
        double s = 0;
        for (std::size_t k = 0; k < work(); ++k) s += a_[k + j] * b_[k + i];
        row += s;
      }
      out_[i] = row;
    }
  }

 private:
  std::size_t work() const { return n_ / 16; }
  std::size_t n_;
  std::vector<double> a_, b_, out_;
};

TEST(Planted, CubicTimeFailsTheSquareLaw) {
  Suite suite{"attention", "n^3 work in an attention sweep", {}, suites::attention_suite_checks};
  for (int k = 0; k <= 6; ++k) {
    const auto n = static_cast<std::size_t>(std::lround(256 * std::pow(2.0, k / 2.0)));
    Case c{"planted/n" + std::to_string(n), Backend::host,
           [n](const CaseContext&) {
             Declared d;
             // What the law counts (4 n^2 d flop at d = 64): the work declared grows as n^2.
             d.work.flop = 4.0 * static_cast<double>(n * n) * 64;
             d.params = {
                 {"sweep", true}, {"kernel", "planted"}, {"dtype", "fp64"}, {"d", 64}, {"n", n}};
             return d;
           },
           [n](const CaseContext&, Declared&) -> std::unique_ptr<Instance> {
             return std::make_unique<Cubic>(n);
           },
           nullptr};
    c.sweep_point = true;
    c.pairing_group = "sweep";  // as the product's sweeps: the exponent from per-round fits
    suite.cases.push_back(c);
  }
  const Ran r = run_suite(suite);
  const nlohmann::json* k = find_check(r.doc, "planted/fp64/d64/time-exponent");
  ASSERT_NE(k, nullptr) << r.doc["checks"].dump(1);
  EXPECT_EQ((*k)["verdict"], "FAIL") << (*k)["reason"];
  EXPECT_NE((*k)["reason"].get<std::string>().find("; paired:"), std::string::npos)
      << (*k)["reason"];
}

// ---- (c) a wrong bus factor ----

// Seconds per memcpy of `bytes`, the median of 15 samples of enough copies to take ~50 us.
double copy_time_s(char* dst, const char* src, std::size_t bytes) {
  using clock = std::chrono::steady_clock;
  const int reps = static_cast<int>(std::clamp<std::size_t>((1u << 20) / (bytes + 64), 1, 1 << 14));
  std::vector<double> t;
  for (int s = 0; s < 15; ++s) {
    const auto t0 = clock::now();
    for (int r = 0; r < reps; ++r) {
      std::memcpy(dst, src, bytes);
      asm volatile("" ::"r"(dst) : "memory");
    }
    t.push_back(std::chrono::duration<double>(clock::now() - t0).count() / reps);
  }
  std::nth_element(t.begin(), t.begin() + 7, t.end());
  return t[7];
}

TEST(Planted, AWrongBusFactorFailsTheLinkBound) {
  // Two "ranks" on one node whose link is memcpy: send_recv copies n bytes; the planted all_reduce
  // copies n/2 (an all_gather's bytes at p = 2) and is counted with all_reduce's bus factor (its
  // byte term 2(p-1)/p = 1, twice all_gather's): its busbw is twice the link. Sampled
  // interleaved, size by size, so a slow spell hits both.
  // Sizes within this core's L2 (source and destination at most 1 MiB): one link, one speed.
  const std::size_t max_bytes = std::size_t{1} << 19;
  // The destination half a page past the source modulo 4 KiB: two heap blocks allocated one after
  // the other sit 16 bytes apart modulo a page, and there this AMD EPYC's memcpy (rep movsb) ran
  // at 1.6 GB/s instead of 35-60 GB/s at every size, so the link's fit was as noisy as it was slow.
  std::vector<char> buffer(2 * max_bytes + 3 * 4096, 1);
  char* const src = buffer.data() + (4096 - reinterpret_cast<std::uintptr_t>(buffer.data()) % 4096);
  char* const dst = src + max_bytes + 4096 + 2048;
  std::vector<collectives::Point> pts;
  // Sizes a half octave apart (15 points): the fits' rank intervals tighten with the points, so
  // that a busy machine (two CI runs side by side: a link interval of [21, 64] GB/s from 8 points
  // of 7 samples) still leaves the planted factor of 2 outside the band.
  for (double x = 4096; x <= static_cast<double>(max_bytes) * 1.0001; x *= std::sqrt(2.0)) {
    const std::size_t n = static_cast<std::size_t>(std::lround(x / 128)) * 128;
    collectives::Point link, planted;
    link.transport = planted.transport = "mpi";
    link.ranks = planted.ranks = 2;
    link.sweep = planted.sweep = true;
    link.op = theory::Collective::send_recv;
    planted.op = theory::Collective::all_reduce;
    link.bytes = planted.bytes = static_cast<double>(n);
    link.time_s = copy_time_s(dst, src, n);
    planted.time_s = copy_time_s(dst, src, n / 2);
    pts.push_back(link), pts.push_back(planted);
  }
  const auto checks = collectives::collectives_checks(pts);
  const auto it = std::find_if(checks.begin(), checks.end(),
                               [](const Check& c) { return c.name == "mpi/p2/link-bound"; });
  ASSERT_NE(it, checks.end());
  EXPECT_EQ(it->verdict, Verdict::fail) << it->reason;
}

// ---- (d) one wrong element ----

class OneWrong final : public Instance {
 public:
  Comparison validate() override {
    std::vector<double> out(1000), ref(1000);
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = ref[i] = 1.0 + static_cast<double>(i);
    out[617] = std::nextafter(out[617], 1e9);  // one element one ulp off, at zero tolerance
    return compare<double, double>(out, ref, Tolerance{0, 0});
  }
  void run(gpu_stream) override {}
};

TEST(Planted, OneWrongElementFailsValidation) {
  const Ran r = run_suite({"planted",
                           "one wrong element",
                           {{"one-wrong", Backend::host,
                             [](const CaseContext&) {
                               Declared d;
                               d.params = {{"elements", 1000}};
                               return d;
                             },
                             [](const CaseContext&, Declared&) -> std::unique_ptr<Instance> {
                               return std::make_unique<OneWrong>();
                             },
                             nullptr}}});
  const nlohmann::json* k = find_check(r.doc, "one-wrong/validate");
  ASSERT_NE(k, nullptr) << r.doc["checks"].dump(1);
  EXPECT_EQ((*k)["verdict"], "FAIL") << (*k)["reason"];
  EXPECT_EQ((*k)["measured"], 1);
  EXPECT_TRUE(r.outcome.failed());
}

}  // namespace
}  // namespace bb
