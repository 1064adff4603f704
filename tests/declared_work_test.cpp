// Every case boundbench lists declares the work that theory/ gives for its params. Each case is
// declared (no allocation, no device call) for a nominal host and a nominal H200-like GPU, and its
// Work is recomputed from the params alone with the family's theory function: a case whose params
// and Work disagree (e.g. fp32 STREAM bytes counted with sizeof(double)) fails here. CUDA builds
// cover the CUDA cases too, with or without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "harness/case.h"
#include "harness/gpu.h"
#include "harness/host_info.h"
#include "kernels/attention.h"
#include "kernels/gemm_precision.h"
#include "kernels/occupancy.h"
#include "suites/occupancy/occupancy_suite.h"
#include "suites/suites.h"
#include "theory/attention.h"
#include "theory/block_quant.h"
#include "theory/formats.h"
#include "theory/gemm.h"
#include "theory/hierarchy.h"
#include "theory/intensity.h"
#include "theory/occupancy.h"
#include "theory/peaks.h"
#include "theory/quant.h"
#include "theory/stream.h"
#include "theory/summation.h"
#include "theory/work.h"

namespace bb {
namespace {

using nlohmann::json;
using theory::Precision;
using theory::WorkCount;

// A 32-core host with a 32 MiB last-level cache (the size `list` assumes without hardware).
HostInfo nominal_host() {
  HostInfo h;
  h.cpu_model = "nominal";
  h.logical_cpus = 64;
  h.physical_cores = 32;
  h.caches = {{1, "Data", std::uint64_t{48} << 10, 2},
              {2, "Unified", std::uint64_t{2} << 20, 2},
              {3, "Unified", std::uint64_t{32} << 20, 64}};
  h.isa = {"avx2", "fma"};
  h.memory_bytes = std::uint64_t{256} << 30;
  h.cpu_clock_hz = 3e9;
  return h;
}

// An H200 as the CUDA runtime describes it: sm_90, 132 SMs, 50 MiB of L2, 141 GB of HBM3e.
GpuDevice nominal_gpu() {
  GpuDevice g;
  g.name = "nominal H200";
  g.cc_major = 9;
  g.cc_minor = 0;
  g.sm_count = 132;
  g.sm_clock_hz = 1.98e9;
  g.memory_clock_hz = 3.2e9;
  g.bus_width_bits = 6144;
  g.memory_bytes = std::uint64_t{141} * 1000 * 1000 * 1000;
  g.l2_bytes = std::uint64_t{50} << 20;
  g.shared_memory_per_sm_bytes = 228 << 10;
  g.registers_per_sm = 65536;
  g.max_threads_per_sm = 2048;
  g.max_blocks_per_sm = 32;
  fill_gpu_peaks(g);
  return g;
}

// What a case should declare, from its params: the counts, and the precision where the params
// name the data type.
struct Expected {
  WorkCount count;
  std::optional<Precision> precision;
};

double number(const json& params, const char* key) { return params.at(key).get<double>(); }
std::string text(const json& params, const char* key) { return params.at(key).get<std::string>(); }

// Bytes per element of a format named in the params ("fp64", "bf16", …).
double element_bytes(const std::string& format) {
  const auto f = theory::format_from_name(format);
  if (!f) throw std::invalid_argument("unknown format " + format);
  return theory::format_spec(*f).bits / 8;
}

Precision precision_of(const std::string& dtype) {
  const auto p = theory::precision_from_name(dtype);
  if (!p) throw std::invalid_argument("unknown precision " + dtype);
  return *p;
}

// The name's field `i` ("strided/fp64/host/s8": 1 is "fp64").
std::string field(const std::string& name, std::size_t i) {
  std::size_t begin = 0;
  for (std::size_t k = 0; k < i; ++k) begin = name.find('/', begin) + 1;
  return name.substr(begin, name.find('/', begin) - begin);
}

bool starts(const std::string& name, std::string_view prefix) { return name.starts_with(prefix); }

Expected stream(const json& p) {
  const auto k = theory::find_stream_kernel(text(p, "kernel"));
  if (!k) throw std::invalid_argument("unknown STREAM kernel");
  return {theory::stream_work(*k, number(p, "elements"), element_bytes(text(p, "dtype"))),
          precision_of(text(p, "dtype"))};
}

Expected attention(const Case& c, const json& p) {
  const std::string kernel = text(p, "kernel");
  const theory::AttentionShape s{number(p, "batch"),
                                 number(p, "heads"),
                                 number(p, "kv_heads"),
                                 number(p, "n"),
                                 number(p, "d"),
                                 p.at("causal").get<bool>(),
                                 element_bytes(text(p, "dtype"))};
  const Precision precision = precision_of(text(p, "dtype"));
  const bool host = c.backend == Backend::host;
  // The device memory the GPU cases predict (and check), from the same functions.
  if (!host) {
    const theory::NaiveAttentionLayout& l = kernels::kCudaNaiveLayout;
    EXPECT_DOUBLE_EQ(number(p, "predicted_extra_bytes"),
                     kernel == "naive" ? theory::naive_extra_bytes(s, l) : 0)
        << c.name;
    EXPECT_DOUBLE_EQ(number(p, "predicted_io_bytes"),
                     theory::attention_io_bytes(s, kernel == "decode" ? 1 : s.n, 4))
        << c.name;
  } else {
    EXPECT_DOUBLE_EQ(
        number(p, "extra_bytes"),
        kernel == "naive" ? theory::naive_extra_bytes(s, kernels::kHostNaiveLayout) : 0)
        << c.name;
  }
  if (kernel == "naive")
    return {theory::naive_attention_work(
                s, host ? kernels::kHostNaiveLayout : kernels::kCudaNaiveLayout),
            precision};
  if (kernel == "tiled" || kernel == "fused") {
    // The law's bytes are the compulsory ones; the K/V re-reads per query block are reported.
    EXPECT_DOUBLE_EQ(
        number(p, "tiled_bytes"),
        theory::tiled_attention_work(
            s, static_cast<double>(host ? kernels::kHostBlockRows : kernels::kFusedBlockRows), 4)
            .bytes())
        << c.name;
    return {theory::compulsory_attention_work(s, 4), precision};
  }
  if (kernel == "decode") return {theory::decode_work(s, 4), precision};
  throw std::invalid_argument("unknown attention kernel " + kernel);
}

// Block quantization, from the params: the element format sets the code storage (E2M1 packs two
// codes per byte, every other element one per byte, FP6 included), the scheme whether there is a
// tensor amax pass (fp8 per tensor, NVFP4), and a per-tensor scheme has no block scales.
Expected block_quant(const json& p) {
  const std::string scheme = text(p, "scheme");
  const bool per_tensor = scheme.find("per-tensor") != std::string::npos;
  const bool tensor_pass = per_tensor || starts(scheme, "nvfp4");
  const int code_bits =
      theory::format_spec(*theory::format_from_name(text(p, "format"))).bits == 4 ? 4 : 8;
  return {theory::block_quant_work(number(p, "elements"), code_bits,
                                   per_tensor ? 0 : number(p, "block_elements"), tensor_pass),
          Precision::fp32};
}

// The GEMM precision cases: the mode names its input storage and output (kernels/gemm_precision.h).
Expected gemm_mode(const json& p) {
  for (const kernels::GemmModeSpec& m : kernels::kGemmModes)
    if (text(p, "gemm_mode") == m.name)
      return {theory::gemm_work(number(p, "m"), number(p, "n"), number(p, "k"),
                                static_cast<double>(reference::gemm_storage_bytes(m.input)),
                                m.fp64_output ? 8 : 4),
              std::nullopt};
  throw std::invalid_argument("unknown GEMM mode " + text(p, "gemm_mode"));
}

Expected no_work() { return {WorkCount{}, std::nullopt}; }

// The theory of each family, by suite and case name. No rule: the test fails for that case.
std::optional<Expected> expected_work(const std::string& suite, const Case& c, const json& p) {
  const std::string& name = c.name;
  if (suite == "bandwidth") {
    if (theory::find_stream_kernel(field(name, 0))) return stream(p);
    // Host STREAM with non-temporal stores ("triad-nt/…"): the same kernel's bytes.
    const std::string first = field(name, 0);
    if (first.ends_with("-nt") && theory::find_stream_kernel(first.substr(0, first.size() - 3)))
      return stream(p);
    if (starts(name, "read-sweep/"))  // host: fp64 elements; CUDA: floats
      return Expected{theory::read_work(number(p, "working_set_bytes"),
                                        c.backend == Backend::host ? 8 : 4, number(p, "passes")),
                      c.backend == Backend::host ? Precision::fp64 : Precision::fp32};
    if (starts(name, "latency-sweep/")) return no_work();
    if (starts(name, "strided/")) {
      const double bytes = element_bytes(field(name, 1));
      EXPECT_DOUBLE_EQ(number(p, "accesses"),
                       std::floor(number(p, "array_bytes") / bytes / number(p, "stride_elements")))
          << name;
      // Host strides past a line read the array in passes, one per line of the step.
      const std::uint64_t passes = p.value("passes", std::uint64_t{1});
      if (c.backend == Backend::host) {
        // fp64 (8 B) on 64-byte lines, by hand: stride 8 one pass, 16 two, 32 four.
        const std::map<std::uint64_t, std::uint64_t> fp64_passes = {{1, 1}, {2, 1},  {4, 1},
                                                                    {8, 1}, {16, 2}, {32, 4}};
        const auto stride = p.at("stride_elements").get<std::uint64_t>();
        if (bytes == 8 && number(p, "sector_bytes") == 64 && fp64_passes.contains(stride)) {
          EXPECT_EQ(passes, fp64_passes.at(stride)) << name;
        }
        EXPECT_DOUBLE_EQ(
            static_cast<double>(passes),
            std::max(1.0, number(p, "stride_elements") * bytes / number(p, "sector_bytes")))
            << name;
      }
      return Expected{theory::strided_read_work(p.at("accesses").get<std::uint64_t>() * passes,
                                                p.at("stride_elements").get<std::uint64_t>(),
                                                static_cast<std::uint64_t>(bytes),
                                                p.at("sector_bytes").get<std::uint64_t>()),
                      precision_of(field(name, 1))};
    }
    if (starts(name, "intensity/"))
      return Expected{theory::fma_chain_work(number(p, "elements"), element_bytes(text(p, "dtype")),
                                             number(p, "fma_per_element")),
                      precision_of(text(p, "dtype"))};
    if (starts(name, "gemm/"))
      return Expected{theory::gemm_work(number(p, "n"), number(p, "n"), number(p, "n"),
                                        number(p, "input_bytes"), number(p, "output_bytes")),
                      precision_of(text(p, "precision"))};
    if (starts(name, "copy-"))  // the pattern is floats
      return Expected{theory::link_copy_work(number(p, "bytes"), 4), std::nullopt};
  }
  if (suite == "precision") {
    if (starts(name, "convert/"))
      return Expected{theory::conversion_work(number(p, "elements"), element_bytes(text(p, "from")),
                                              element_bytes(text(p, "to"))),
                      std::nullopt};
    if (starts(name, "convert-all/"))
      return Expected{theory::conversion_sweep_work(number(p, "inputs")), std::nullopt};
    if (starts(name, "summation/"))
      return Expected{theory::summation_work(
                          number(p, "n"), element_bytes(text(p, "dtype")),
                          theory::summation_flop_per_element(text(p, "algorithm") == "kahan")),
                      precision_of(text(p, "dtype"))};
    if (starts(name, "quantize/int8/"))
      return Expected{theory::int_quant_work(number(p, "elements"), p.at("bits").get<int>(),
                                             p.contains("passes") ? p.at("passes").get<int>() : 2),
                      std::nullopt};
    if (starts(name, "quantize/")) return block_quant(p);
    if (starts(name, "gemm/")) return gemm_mode(p);
  }
  if (suite == "occupancy") {
    for (const char* none : {"residency/", "waves/", "latency/dram", "host/latency"})
      if (starts(name, none)) return no_work();
    const auto threads = [&] { return number(p, "blocks") * number(p, "threads_per_block"); };
    if (starts(name, "divergence/"))
      return Expected{theory::divergence_work(threads(), number(p, "iters")), Precision::fp32};
    if (starts(name, "bank_conflicts/"))
      return Expected{theory::bank_conflict_work(threads(), number(p, "iters")), Precision::fp32};
    if (starts(name, "spills/"))  // the kernel's block size is fixed (its __launch_bounds__)
      return Expected{
          theory::spill_work(number(p, "blocks") * kernels::kSpillThreads, number(p, "rounds")),
          Precision::fp32};
    if (starts(name, "latency_hiding/"))  // one wave of 16-byte loads over 1 GiB
      return Expected{theory::read_work(number(p, "loads_16b") * 16, 16, 1), Precision::fp32};
    if (starts(name, "host/read"))
      return Expected{theory::read_work(number(p, "elements") * 8, 8, 1), Precision::fp64};
  }
  if (suite == "attention") return attention(c, p);
  if (suite == "harness" && name == "overhead/host") return stream(p);
  // The launch overhead kernel: one thread writes one int.
  if (suite == "harness" && name == "overhead/cuda")
    return Expected{WorkCount{0, sizeof(int), 0, 0}, std::nullopt};
  return std::nullopt;
}

void expect_declared(const std::string& suite, const Case& c, const HostInfo& host,
                     const GpuDevice& gpu) {
  const std::string where = suite + "/" + c.name;
  ASSERT_TRUE(c.declare) << where << ": no declaration";
  ASSERT_TRUE(c.prepare) << where << ": no preparation";
  const CaseContext ctx{host, c.backend == Backend::cuda ? &gpu : nullptr, false};
  const Declared d = c.declare(ctx);
  const std::optional<Expected> want = expected_work(suite, c, d.params);
  ASSERT_TRUE(want) << where << ": no theory for this case in declared_work_test.cpp";
  const WorkCount got = count_of(d.work);
  EXPECT_DOUBLE_EQ(got.bytes_read, want->count.bytes_read) << where << " " << d.params.dump();
  EXPECT_DOUBLE_EQ(got.bytes_written, want->count.bytes_written) << where << " " << d.params.dump();
  EXPECT_DOUBLE_EQ(got.flop, want->count.flop) << where << " " << d.params.dump();
  EXPECT_DOUBLE_EQ(got.elements, want->count.elements) << where << " " << d.params.dump();
  if (want->precision) {
    EXPECT_EQ(theory::precision_name(d.work.precision), theory::precision_name(*want->precision))
        << where;
  }
}

TEST(DeclaredWork, EveryCaseDeclaresTheTheoryOfItsParams) {
  const HostInfo host = nominal_host();
  const GpuDevice gpu = nominal_gpu();
  std::size_t host_cases = 0, cuda_cases = 0;
  for (const Suite& s : suites::all_suites({&host, &gpu, false}))
    for (const Case& c : s.cases) {
      expect_declared(s.name, c, host, gpu);
      ++(c.backend == Backend::cuda ? cuda_cases : host_cases);
    }
  EXPECT_GT(host_cases, 100u);
  RecordProperty("host_cases", static_cast<int>(host_cases));
  RecordProperty("cuda_cases", static_cast<int>(cuda_cases));
  std::printf("declarations checked: %zu host cases, %zu CUDA cases\n", host_cases, cuda_cases);
}

// Hand-worked declared Work for one representative case of each family, the numbers written out:
// the test above proves the cases agree with theory/, this one that theory/ is right (a wrong
// formula there passes the test above and fails here). Attention: the naive pass and decode's
// reads (the fused pass's bytes are left to theory_work_test). 2^25 = 33554432, 2^28 = 268435456.
struct HandWorked {
  const char* suite;
  const char* name;
  double bytes_read, bytes_written, flop;
};
constexpr HandWorked kHandWorked[] = {
    // STREAM, N = 2^25 fp64: copy c = a, 8N read, 8N written, no flop.
    {"bandwidth", "copy/fp64/host", 268435456, 268435456, 0},
    // triad a = b + s·c: b, c read (16N = 2^29), a written (8N), 2 flop per element (2N = 2^26).
    {"bandwidth", "triad/fp64/host", 536870912, 268435456, 67108864},
    // dot Σ a·b: 16N read, nothing written, 2N flop.
    {"bandwidth", "dot/fp64/host", 536870912, 0, 67108864},
    // nstream a += b + s·c: a, b, c read (24N), a written (8N), 3N flop.
    {"bandwidth", "nstream/fp64/host", 805306368, 268435456, 100663296},
    // read sweep: 4096 B (512 fp64) read 16384 times = 2^26 B, one add per element read (2^23).
    {"bandwidth", "read-sweep/host/4096", 67108864, 0, 8388608},
    // strided, 256 MiB of fp64 at stride 8 (64 B): 2^28/64 = 2^22 accesses, each a whole 64-byte
    // sector (2^28 B, not the 2^25 B of useful data), one add each.
    {"bandwidth", "strided/fp64/host/s8", 268435456, 0, 4194304},
    // FMA chain, fp32, N = 2^25, 8 FMA per element: 4N read, 4N written, 2·8·N = 2^29 flop.
    {"bandwidth", "intensity/fp32/host/k8", 134217728, 134217728, 536870912},
    // GEMM n = 8192 fp64 (CUDA): 2n³ = 2^40 flop; A, B read 2·8n² = 2^30 B, C written 8n² = 2^29.
    {"bandwidth", "gemm/fp64/cuda", 1073741824, 536870912, 1099511627776},
    // host -> device copy of 256 MiB: each byte crosses the link once, counted as read.
    {"bandwidth", "copy-h2d/pinned/cuda", 268435456, 0, 0},
    // conversion fp32 -> fp16, N = 2^25: 4N read, 2N written.
    {"precision", "convert/fp32-fp16/host", 134217728, 67108864, 0},
    // summation of n = 256 fp32: 1024 B read; recursive 1 add per element, Kahan 4 (y = x − c,
    // t = s + y, c = (t − s) − y: 4 flop).
    {"precision", "summation/recursive/fp32/host/n256", 1024, 0, 256},
    {"precision", "summation/kahan/fp32/host/n256", 1024, 0, 1024},
    // int8 per tensor, N = 2^24 fp32: two passes (amax, quantize) read 2·4N = 2^27, N codes
    // written.
    {"precision", "quantize/int8/per-tensor/symmetric/host", 134217728, 16777216, 0},
    // MXFP8, blocks of 32: one pass (4N = 2^26), N one-byte codes + N/32 E8M0 scales = 2^24 + 2^19.
    {"precision", "quantize/mxfp8-e4m3/block32/ocp-floor/host", 67108864, 17301504, 0},
    // MXFP4: codes packed two per byte, N/2 + N/32 = 2^23 + 2^19.
    {"precision", "quantize/mxfp4-e2m1/block32/round-up/host", 67108864, 8912896, 0},
    // NVFP4, blocks of 16: a tensor amax pass too (2·4N read); N/2 codes + N/16 E4M3 scales.
    {"precision", "quantize/nvfp4-e2m1/block16/host", 134217728, 9437184, 0},
    // GEMM m = n = k = 64 fp32: 2·64³ = 2^19 flop; A, B read 2·4·64² = 32768 B, C written 16384.
    {"precision", "gemm/fp32/host/mixed/k64", 32768, 16384, 524288},
    // 1056 blocks × 256 threads = 270336 threads: divergence 2·4096 flop each (FMAs) = 2214592512;
    // bank conflicts 4000 adds each = 1081344000; spills 2·64·256 = 32768 flop each = 8858370048.
    {"occupancy", "divergence/paths=1", 0, 0, 2214592512},
    {"occupancy", "bank_conflicts/stride=1", 0, 0, 1081344000},
    {"occupancy", "spills/uncapped", 0, 0, 8858370048},
    // Naive attention, B 1, H 4, n 256, d 64, fp32 host (P over S): per head read Q, K, V (3nd =
    // 49152 elements) and S, P (2n² = 131072), write S, P (2n²) and O (nd = 16384): reads
    // 4·4·180224 = 2883584 B, writes 4·4·147456 = 2359296 B; flop 4·B·H·n²·d = 4·4·65536·64 = 2^26.
    {"attention", "naive/fp32/host/d64/n256", 2883584, 2359296, 67108864},
    // Decode, B 8, H 32, H_kv 8, n 8192, d 128, bf16: reads K and V (2·8·8·8192·128·2 B = 2^28) and
    // q (8·32·128·2 = 65536 B), writes O in fp32 (8·32·128·4 = 131072 B); flop 4·B·H·n·d = 2^30.
    {"attention", "decode/bf16/cuda/gqa32x8/d128/n8192", 268500992, 131072, 1073741824},
    // Overhead triad, 256 fp64: 2·8·256 read, 8·256 written, 512 flop.
    {"harness", "overhead/host", 4096, 2048, 512},
    // The launch overhead kernel: 4 bytes written.
    {"harness", "overhead/cuda", 0, 4, 0},
};

TEST(DeclaredWork, HandWorkedRepresentatives) {
  const HostInfo host = nominal_host();
  const GpuDevice gpu = nominal_gpu();
  const auto suites = suites::all_suites({&host, &gpu, false});
  bool cuda_listed = false;
  for (const Suite& s : suites)
    for (const Case& c : s.cases) cuda_listed = cuda_listed || c.backend == Backend::cuda;
  for (const HandWorked& h : kHandWorked) {
    const Case* found = nullptr;
    for (const Suite& s : suites)
      for (const Case& c : s.cases)
        if (s.name == h.suite && c.name == h.name) found = &c;
    if (!found) {  // a build without CUDA lists no CUDA case; every other case must be there
      EXPECT_TRUE(!cuda_listed && std::string_view(h.name).find("host") == std::string_view::npos)
          << h.suite << "/" << h.name << " is not listed";
      continue;
    }
    const CaseContext ctx{host, found->backend == Backend::cuda ? &gpu : nullptr, false};
    const Declared d = found->declare(ctx);
    const WorkCount w = count_of(d.work);
    EXPECT_EQ(w.bytes_read, h.bytes_read) << h.name;
    EXPECT_EQ(w.bytes_written, h.bytes_written) << h.name;
    EXPECT_EQ(w.flop, h.flop) << h.name;
  }
}

// A functional simulator affords only the bulk: 2^18 elements plus the tail (n mod 4096).
TEST(AffordableElements, ShrinkOnlyTheBulkOnASimulator) {
  GpuDevice gpu = nominal_gpu();
  const std::size_t big = std::size_t{1} << 26;
  EXPECT_EQ(affordable_elements(nullptr, big), big);
  EXPECT_EQ(affordable_elements(&gpu, big + 3), big + 3);
  gpu.simulated = true;
  EXPECT_EQ(affordable_elements(&gpu, big), kSimulatedBulkElements);
  EXPECT_EQ(affordable_elements(&gpu, big + 3), kSimulatedBulkElements + 3);  // an odd tail stays
  EXPECT_EQ(affordable_elements(&gpu, 1000), 1000u);                          // small: as it is
  EXPECT_EQ(affordable_elements(&gpu, kSimulatedBulkElements + 7), kSimulatedBulkElements + 7);
}

// A timing simulator affords its own bulk, 2^21 elements (sized from its measured speed).
TEST(AffordableElements, TimingSimulatorHasItsOwnBulk) {
  GpuDevice gpu = nominal_gpu();
  gpu.simulated = gpu.simulated_timing = true;
  const std::size_t big = std::size_t{1} << 26;
  EXPECT_EQ(affordable_elements(&gpu, big), std::size_t{1} << 21);
  EXPECT_EQ(affordable_elements(&gpu, big + 5), (std::size_t{1} << 21) + 5);
  EXPECT_EQ(affordable_elements(&gpu, std::size_t{1} << 20), std::size_t{1} << 20);
  gpu.simulated_timing = false;  // functional: the smaller bulk
  EXPECT_EQ(affordable_elements(&gpu, std::size_t{1} << 20), kSimulatedBulkElements);
}

// On a simulated GPU every case still declares the theory of its params, at sizes the simulator
// affords (each CUDA case's declared bytes at most 64 bulk arrays of 8-byte elements: the full
// sizes are 2^25-2^26 elements and fail this), with unique names, and the cases that run cuBLAS
// or cuBLASLt device code say why they cannot run there (and only there).
TEST(DeclaredWork, OnASimulatedGpuOnlyTheBulkShrinks) {
  if (!query_gpus().built_with_cuda) GTEST_SKIP() << "built without CUDA: no CUDA case to declare";
  const HostInfo host = nominal_host();
  GpuDevice gpu = nominal_gpu();
  gpu.name = "GPGPU-Sim_v4.2.0 (nominal)";
  gpu.simulated = true;
  GpuDevice real = nominal_gpu();
  std::size_t cuda_cases = 0, cannot_run = 0;
  for (const Suite& s : suites::all_suites({&host, &gpu, false})) {
    std::set<std::string> names;
    for (const Case& c : s.cases) {
      EXPECT_TRUE(names.insert(c.name).second) << s.name << "/" << c.name << " twice";
      expect_declared(s.name, c, host, gpu);
      if (c.backend != Backend::cuda) continue;
      ++cuda_cases;
      const Declared d = c.declare({host, &gpu, false});
      const std::string why = cannot_run_reason(c, &gpu);
      EXPECT_EQ(cannot_run_reason(c, &real), "") << c.name;
      if (c.name.starts_with("gemm/")) {
        EXPECT_TRUE(why.starts_with("cannot run under the simulator: cuBLAS")) << c.name;
        EXPECT_THROW(prepare_case(c, {host, &gpu, false}), CaseSkipped) << c.name;
      }
      if (!why.empty()) {
        ++cannot_run;
        continue;
      }
      EXPECT_LE(d.work.bytes(), 64.0 * 8 * kSimulatedBulkElements) << s.name << "/" << c.name;
    }
  }
  EXPECT_GT(cuda_cases, cannot_run);
  std::printf("on a simulated GPU: %zu CUDA cases, %zu cannot run there\n", cuda_cases, cannot_run);
}

// The declaration is what the runner uses: prepare_case hands on the declared work and params.
TEST(DeclaredWork, PreparedCasesCarryTheirDeclaration) {
  const HostInfo host = nominal_host();
  Case c{"c", Backend::host,
         [](const CaseContext&) {
           Declared d;
           d.work = work_of(theory::stream_work(*theory::find_stream_kernel("copy"), 10, 8),
                            Precision::fp64);
           d.params = {{"elements", 10}};
           return d;
         },
         [](const CaseContext&, Declared& d) -> std::unique_ptr<Instance> {
           d.params["device_only"] = 1;
           return nullptr;
         },
         nullptr};
  const Prepared p = prepare_case(c, {host, nullptr, false});
  EXPECT_DOUBLE_EQ(p.work.bytes(), 160);
  EXPECT_EQ(p.params, (json{{"elements", 10}, {"device_only", 1}}));
}

}  // namespace
}  // namespace bb
