// The CUDA arithmetic-intensity sweep (mixbench-style, as the host one): every element loaded
// once, put through k = 1 … 1024 dependent FMAs on the CUDA cores and stored in place, for fp64,
// fp32, fp16 and bf16; low k is bound by DRAM bandwidth, high k by the FMA units. Beside it, the
// GEMM ceilings: cuBLAS at n = 8192 per precision (tensor cores where the precision has them).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "base/cuda_check.h"
#include "harness/gpu.h"
#include "kernels/intensity.h"
#include "reference/intensity.h"
#include "reference/random.h"
#include "suites/bandwidth/bandwidth_suite.h"
#include "suites/common/parallel.h"
#include "theory/gemm.h"
#include "theory/intensity.h"

namespace bb::suites {
namespace {

using kernels::FmaType;
using kernels::GemmPrecision;
using reference::StorageFormat;
using theory::Precision;

constexpr int kThreads = 256;
constexpr double kComputeFlop = 1e10;  // above k = 64, each sample does about this many flop
constexpr std::size_t kCheckedElements = std::size_t{1} << 14;
constexpr std::size_t kCheckedEndElements = 256;  // at each end of the array, besides the spread
constexpr std::uint64_t kChainSeed = 5;

constexpr int kGemmN = 8192;
constexpr std::size_t kGemmCheckedEntries = 1024;  // the 4 corners and 1020 spread entries
constexpr std::uint64_t kGemmSeedA = 31, kGemmSeedB = 32, kGemmSeedEntries = 33;

// ---- The FMA chain ---------------------------------------------------------------------------

struct ChainType {
  const char* name;
  FmaType type;
  StorageFormat storage;
  Precision precision;
  reference::ChainCoefficients coefficients;
  bool in_quick;  // quick runs: fp64 (scalar path) and fp16 (paired path), every other k
};

constexpr ChainType kChainTypes[] = {
    {"fp64", FmaType::fp64, StorageFormat::fp64, Precision::fp64, reference::kChainCoefficients,
     true},
    {"fp32", FmaType::fp32, StorageFormat::fp32, Precision::fp32, reference::kChainCoefficients,
     false},
    {"fp16", FmaType::fp16, StorageFormat::fp16, Precision::fp16, reference::kChainCoefficientsFp16,
     true},
    {"bf16", FmaType::bf16, StorageFormat::bf16, Precision::bf16, reference::kChainCoefficientsBf16,
     false},
};

// Element i's input: positive, non-uniform, with outliers at 2^±12, scaled so that the chain
// does not stall within 1024 steps (reference/intensity.h), rounded to the type.
double chain_input(const ChainType& t, std::size_t i) {
  return reference::round_to_storage(
      t.storage, t.coefficients.input_scale * reference::positive_test_value(kChainSeed, i));
}

// What k steps of the GPU's fma leave of x, in the type's own arithmetic.
double chain_reference(const ChainType& t, double x, int k) {
  const double a = t.coefficients.a, b = t.coefficients.b;
  switch (t.type) {
    case FmaType::fp64: return reference::fma_chain(x, k, a, b);
    case FmaType::fp32:
      return reference::fma_chain(static_cast<float>(x), k, static_cast<float>(a),
                                  static_cast<float>(b));
    case FmaType::fp16: return reference::fma_chain_rounded(x, k, a, b, reference::kFp16);
    case FmaType::bf16: return reference::fma_chain_rounded(x, k, a, b, reference::kBf16);
  }
  throw std::invalid_argument("chain_reference: unknown type");
}

// Both ends of the array (the tail of the grid-stride loop), and kCheckedElements spread over all
// of it (every ILP slot), with offsets 0 … 96 (both lanes of a pair).
std::vector<std::size_t> chain_checked_indices(std::size_t n) {
  std::vector<std::size_t> idx;
  for (std::size_t d = 0; d < std::min(n, kCheckedEndElements); ++d) {
    idx.push_back(d);
    idx.push_back(n - 1 - d);
  }
  for (std::size_t j = 0; j < kCheckedElements; ++j) {
    const std::size_t i = j * (n / kCheckedElements) + j % 97;
    if (i < n) idx.push_back(i);
  }
  std::sort(idx.begin(), idx.end());
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
  return idx;
}

class FmaChainCuda final : public Instance {
 public:
  FmaChainCuda(const GpuDevice& gpu, const ChainType& t, std::size_t n, int k)
      : t_(t),
        n_(n),
        k_(k),
        blocks_(full_wave_blocks(gpu, kThreads)),
        bytes_(n * reference::storage_bytes(t.storage)),
        x_(bytes_) {
    // Every byte 0x3C is a positive normal number in each format (fp64 ≈ 1e-18, fp32 and bf16
    // ≈ 0.0115, fp16 ≈ 1.06): samples taken before validate() see ordinary numbers.
    x_.fill_bytes(0x3C);
  }

  // Fresh inputs (the samples chain the array in place), one run, and a bit-exact comparison of
  // the checked elements. Poisoning is implicit: an element the kernel skips keeps its input,
  // which differs from the chained value for k ≥ 1.
  Comparison validate() override {
    const std::size_t element_bytes = reference::storage_bytes(t_.storage);
    std::vector<unsigned char> host(bytes_);
    parallel_for(n_, [&](std::size_t i) {
      reference::store(t_.storage, chain_input(t_, i), host.data() + i * element_bytes);
    });
    x_.upload(host.data(), bytes_);
    run(nullptr);
    x_.download(host.data(), bytes_);
    const std::vector<std::size_t> idx = chain_checked_indices(n_);
    std::vector<double> out(idx.size()), ref(idx.size());
    parallel_for(idx.size(), [&](std::size_t j) {
      out[j] = reference::load(t_.storage, host.data() + idx[j] * element_bytes);
      ref[j] = chain_reference(t_, chain_input(t_, idx[j]), k_);
    });
    return compare<double, double>(out, ref, Tolerance{0, 0});
  }

  void run(gpu_stream s) override {
    const reference::ChainCoefficients& c = t_.coefficients;
    kernels::fma_chain_cuda(t_.type, x_.get(), n_, k_, c.a, c.b, blocks_, kThreads, s);
  }

 private:
  ChainType t_;
  std::size_t n_;
  int k_;
  int blocks_;
  std::size_t bytes_;
  DeviceBuffer x_;
};

Case chain_case(const ChainType& t, int k, bool in_quick) {
  Case c{std::string("intensity/") + t.name + "/cuda/k" + std::to_string(k), Backend::cuda,
         [t, k](const CaseContext& ctx) {
           const GpuDevice& gpu = *ctx.gpu;
           const std::size_t element_bytes = reference::storage_bytes(t.storage);
           // One array, read and written in place, spanning at least 8x the L2 alone:
           // stream_elements sizes each of 3 arrays to span `multiple` x the cache together, so 3 x
           // 8 here. Rounded up to 2^20 elements (so even, as the paired types need).
           const std::size_t n_dram = stream_elements(gpu.l2_bytes, 3 * kCudaCacheMultiple,
                                                      element_bytes, kCudaMinElements);
           const std::size_t n_full = intensity_elements(n_dram, k, kComputeFlop, true);
           // As the device affords its n k FMAs (even, as the paired types need).
           const std::size_t n =
               std::max<std::size_t>(affordable_elements(&gpu, n_full * k) / k / 2 * 2, 2);
           Declared d;
           // Each element is read once and written once; each FMA is 2 flop (fp16/bf16: per lane).
           // Smaller arrays above the ridge are compute-bound wherever their bytes come from.
           d.work = work_of(theory::fma_chain_work(static_cast<double>(n),
                                                   static_cast<double>(element_bytes), k),
                            t.precision, n_full == n_dram ? "dram" : "hierarchy");
           d.work.cuda_cores_only = true;  // FMA chains: the CUDA-core peak bounds them
           d.params = {
               {"dtype", t.name},
               {"fma_per_element", k},
               {"elements", n},
               {"element_bytes", element_bytes},
               {"intensity_flop_per_byte", 2.0 * k / (2.0 * static_cast<double>(element_bytes))},
               // The CUDA-core peak: the chain never touches the tensor cores.
               {"peak_flop_per_s",
                gpu.peak_cuda_core_flop_per_s[static_cast<std::size_t>(t.precision)]},
               {"peak_bytes_per_s", gpu.peak_dram_bytes_per_s},
               {"blocks", full_wave_blocks(gpu, kThreads)},
               {"threads_per_block", kThreads}};
           d.host_memory_bytes = d.gpu_memory_bytes = n * element_bytes;  // with the staging copy
           return d;
         },
         [t, k](const CaseContext& ctx, Declared& d) -> std::unique_ptr<Instance> {
           const auto n = d.params.at("elements").get<std::size_t>();
           const std::size_t element_bytes = reference::storage_bytes(t.storage);
           check_host_memory(ctx.host, n * element_bytes);  // validate()'s staging copy
           check_gpu_memory(*ctx.gpu, n * element_bytes);
           return std::make_unique<FmaChainCuda>(*ctx.gpu, t, n, k);
         },
         nullptr};
  c.in_quick = in_quick;
  // A type's points sampled in the same rounds: the ceilings and the points per round.
  c.pairing_group = std::string("intensity/") + t.name;
  return c;
}

// ---- The GEMM ceilings -----------------------------------------------------------------------

struct GemmType {
  const char* name;
  GemmPrecision precision;
  StorageFormat input;  // tf32 reads fp32 data
  StorageFormat output;
  Precision peak_precision;  // whose peak bounds it: GpuDevice::peak_flop_per_s (tensor if any)
  bool in_quick;             // quick runs: fp64 and fp16
};

constexpr GemmType kGemmTypes[] = {
    {"fp64", GemmPrecision::fp64, StorageFormat::fp64, StorageFormat::fp64, Precision::fp64, true},
    {"fp32", GemmPrecision::fp32, StorageFormat::fp32, StorageFormat::fp32, Precision::fp32, false},
    {"tf32", GemmPrecision::tf32, StorageFormat::fp32, StorageFormat::fp32, Precision::tf32, false},
    {"fp16", GemmPrecision::fp16, StorageFormat::fp16, StorageFormat::fp16, Precision::fp16, true},
    {"bf16", GemmPrecision::bf16, StorageFormat::bf16, StorageFormat::bf16, Precision::bf16, false},
};

// Input entry `index` (column-major: A(i, k) at i + k·n): uniform in [-1, 1), rounded to the
// input type, so that the value the GPU reads is exactly this double.
double gemm_input(StorageFormat f, std::uint64_t seed, std::size_t index) {
  return reference::round_to_storage(f, 2 * reference::uniform01(seed, index) - 1);
}

// The four corners and spread entries (i, j), the same on every run.
std::vector<std::pair<int, int>> gemm_checked_entries(int n) {
  std::vector<std::pair<int, int>> e = {{0, 0}, {n - 1, 0}, {0, n - 1}, {n - 1, n - 1}};
  const auto un = static_cast<std::uint64_t>(n);
  for (std::uint64_t m = 0; e.size() < kGemmCheckedEntries; ++m) {
    const std::uint64_t r = reference::splitmix64(kGemmSeedEntries * 0x9E3779B97F4A7C15ull + m);
    e.emplace_back(static_cast<int>(r % un), static_cast<int>((r >> 32) % un));
  }
  return e;
}

class GemmCuda final : public Instance {
 public:
  GemmCuda(const GemmType& t, int n)
      : t_(t),
        n_(n),
        entries_(static_cast<std::size_t>(n) * static_cast<std::size_t>(n)),
        a_(entries_ * reference::storage_bytes(t.input)),
        b_(entries_ * reference::storage_bytes(t.input)),
        c_(entries_ * reference::storage_bytes(t.output)) {
    upload_input(a_, kGemmSeedA);
    upload_input(b_, kGemmSeedB);
  }

  Comparison validate() override {
    c_.fill_bytes(0xFF);  // NaN in every format: an entry cuBLAS does not write fails
    kernels::gemm_cuda(t_.precision, n_, a_.get(), b_.get(), c_.get(), cublas_, nullptr);
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    // compare() takes one tolerance, but each entry has its own bound β_ij. So both sides are
    // divided by β_ij and atol = 1: the check is |ĉ_ij − c_ij| ≤ β_ij entry by entry (the
    // division adds a relative 2^-53), NaN still fails, and the reported max abs error is the
    // worst error as a fraction of its bound. The scaled references differ from entry to entry
    // (not a trivial reference). What it catches at n = 8192: an unwritten entry, a transposed
    // operand, a wrong data type or layout, a dropped k-block (128 of the 8192 terms: every
    // precision fails, bf16 on the fewest entries). What it cannot: one dropped term under fp32
    // accumulation, since the worst-case bound K·u·Σ|a||b| ≈ 8192·2^-23·2048 ≈ 2 exceeds a
    // single product (≈ 0.25). At n = 256, as in the GPU test, the bound is 1024x smaller (K and
    // Σ both 32x) and a dropped term fails (tests/reference_intensity_test.cpp).
    std::vector<double> out, ref;
    for (const auto& [i, j] : gemm_checked_entries(n_)) {
      const reference::GemmEntry e = reference_entry(i, j);
      const double bound = std::max(e.bound, std::numeric_limits<double>::min());
      out.push_back(gpu_entry(i, j) / bound);
      ref.push_back(e.value / bound);
    }
    return compare<double, double>(out, ref, Tolerance{1, 0});
  }

  void run(gpu_stream s) override {
    kernels::gemm_cuda(t_.precision, n_, a_.get(), b_.get(), c_.get(), cublas_, s);
  }

 private:
  void upload_input(DeviceBuffer& d, std::uint64_t seed) {
    const std::size_t element_bytes = reference::storage_bytes(t_.input);
    std::vector<unsigned char> host(entries_ * element_bytes);
    parallel_for(entries_, [&](std::size_t i) {
      reference::store(t_.input, gemm_input(t_.input, seed, i), host.data() + i * element_bytes);
    });
    d.upload(host.data(), host.size());
  }

  reference::GemmEntry reference_entry(int i, int j) const {
    const auto n = static_cast<std::size_t>(n_);
    std::vector<double> a_row(n), b_col(n);
    for (std::size_t k = 0; k < n; ++k) {
      a_row[k] = gemm_input(t_.input, kGemmSeedA, static_cast<std::size_t>(i) + k * n);
      b_col[k] = gemm_input(t_.input, kGemmSeedB, k + static_cast<std::size_t>(j) * n);
    }
    const kernels::GemmRoundoffs u = kernels::gemm_roundoffs(t_.precision);
    return reference::gemm_entry_reference(a_row, b_col, u.input, u.accumulate, u.output);
  }

  double gpu_entry(int i, int j) const {
    const std::size_t element_bytes = reference::storage_bytes(t_.output);
    const std::size_t index = static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * n_;
    unsigned char bytes[8] = {};
    check_cuda(cudaMemcpy(bytes, c_.as<unsigned char>() + index * element_bytes, element_bytes,
                          cudaMemcpyDeviceToHost),
               "cudaMemcpy D2H (one entry of C)");
    return reference::load(t_.output, bytes);
  }

  GemmType t_;
  int n_;
  std::size_t entries_;
  DeviceBuffer a_, b_, c_;
  kernels::CublasHandle cublas_;
};

Case gemm_case(const GemmType& t) {
  const double n = kGemmN;
  const auto input_bytes = static_cast<double>(reference::storage_bytes(t.input));
  const auto output_bytes = static_cast<double>(reference::storage_bytes(t.output));
  Case c{std::string("gemm/") + t.name + "/cuda", Backend::cuda,
         [t, n, input_bytes, output_bytes](const CaseContext& ctx) {
           Declared d;
           // C = A·B, n×n: n³ multiply-adds (2n³ flop); A and B read and C written at least once.
           d.work =
               work_of(theory::gemm_work(n, n, n, input_bytes, output_bytes), t.peak_precision);
           d.params = {{"precision", t.name},
                       {"n", kGemmN},
                       {"flop", d.work.flop},
                       {"peak_flop_per_s", ctx.gpu->peak_flop_per_s(t.peak_precision)},
                       {"input_bytes", reference::storage_bytes(t.input)},
                       {"output_bytes", reference::storage_bytes(t.output)}};
           return d;
         },
         [t, n, input_bytes, output_bytes](const CaseContext& ctx,
                                           Declared&) -> std::unique_ptr<Instance> {
           check_host_memory(ctx.host, static_cast<std::uint64_t>(n * n * input_bytes));
           check_gpu_memory(*ctx.gpu,
                            static_cast<std::uint64_t>(n * n * (2 * input_bytes + output_bytes)));
           return std::make_unique<GemmCuda>(t, kGemmN);
         },
         nullptr};
  c.in_quick = t.in_quick;
  c.simulator_cannot_run = sass_only_reason("cuBLAS");
  return c;
}

}  // namespace

std::vector<Case> intensity_cuda_cases() {
  std::vector<Case> cases;
  // Quick runs take every other k (1, 4, 16, …, 1024) of fp64 and fp16: both sides of the ridge.
  for (const ChainType& t : kChainTypes)
    for (int k = 1, i = 0; k <= 1024; k *= 2, ++i)
      cases.push_back(chain_case(t, k, t.in_quick && i % 2 == 0));
  for (const GemmType& t : kGemmTypes) cases.push_back(gemm_case(t));
  return cases;
}

}  // namespace bb::suites
