// The GEMM precision matrix on the GPU: per cuBLAS / cuBLASLt mode (kernels/gemm_precision.h),
// error cases at 128×128 over K = 64 … 16384, on data with a nonzero mean and on zero-mean data,
// against the exact product of the same rounded inputs
// (reference/gemm.h), and one throughput case at 8192³ whose TFLOP/s the suite's checks hold
// against the peak of its precision and against fp32 (the speed-up). A mode this device or library
// cannot run is a SKIP with the library's reason.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/cuda_check.h"
#include "harness/gpu.h"
#include "kernels/gemm_precision.h"
#include "reference/gemm.h"
#include "reference/random.h"
#include "suites/common/memory_guards.h"
#include "suites/precision/precision_suite.h"
#include "theory/gemm.h"

namespace bb::suites {
namespace {

using kernels::GemmModeSpec;

constexpr int kErrorM = 128, kErrorN = 128;  // 16384 entries per K: a stable median
constexpr int kThroughputN = 8192;
constexpr std::size_t kSampledRows = 16, kSampledCols = 16;  // throughput case: 256 checked entries
constexpr std::uint64_t kSeedA = 51, kSeedB = 52, kSeedPick = 53;

// Rows (or columns) whose entries are checked: all of them, or the first, the last and a spread.
std::vector<int> picked(int count, std::size_t want, std::uint64_t salt) {
  std::vector<int> idx;
  if (static_cast<std::size_t>(count) <= want) {
    for (int i = 0; i < count; ++i) idx.push_back(i);
    return idx;
  }
  idx = {0, count - 1};
  for (std::uint64_t t = 0; idx.size() < want; ++t) {
    const auto i = static_cast<int>(
        reference::splitmix64(kSeedPick * 0x9E3779B97F4A7C15ull + salt * 1000003 + t) %
        static_cast<std::uint64_t>(count));
    if (std::find(idx.begin(), idx.end(), i) == idx.end()) idx.push_back(i);
  }
  std::sort(idx.begin(), idx.end());
  return idx;
}

reference::RoundedMatrix make_input(const GemmModeSpec& spec, reference::GemmData data,
                                    std::uint64_t seed, std::size_t count) {
  std::vector<double> x(count);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < count; ++i) x[i] = reference::gemm_test_value(data, seed, i);
  return reference::round_matrix(spec.input, x);
}

// The T (an entry of C as the library wrote it) at p.
template <class T>
double value_at(const unsigned char* p) {
  T v = 0;
  std::memcpy(&v, p, sizeof v);
  return v;
}

class GemmCuda final : public Instance {
 public:
  GemmCuda(const GemmModeSpec& spec, reference::GemmData data, int m, int n, int k,
           std::size_t rows, std::size_t cols)
      : spec_(spec),
        m_(m),
        n_(n),
        k_(k),
        a_(make_input(spec, data, kSeedA,
                      static_cast<std::size_t>(m) * static_cast<std::size_t>(k))),
        b_(make_input(spec, data, kSeedB,
                      static_cast<std::size_t>(k) * static_cast<std::size_t>(n))),
        da_(a_.bytes.size()),
        db_(b_.bytes.size()),
        dc_(static_cast<std::size_t>(m) * static_cast<std::size_t>(n) * output_bytes()),
        rows_(picked(m, rows, 1)),
        cols_(picked(n, cols, 2)) {
    da_.upload(a_.bytes.data(), a_.bytes.size());
    db_.upload(b_.bytes.data(), b_.bytes.size());
    a_.bytes = {}, b_.bytes = {};  // on the device now; the values stay for the reference
    if (spec.input == reference::GemmStorage::e4m3)
      runner_.set_fp8_descales(1 / a_.scale, 1 / b_.scale);
    if (const auto why = runner_.unsupported(spec.mode, m, n, k, da_.get(), db_.get(), dc_.get()))
      throw CaseSkipped(*why);
  }

  Comparison validate() override {
    dc_.fill_bytes(0xFF);  // NaN in fp32 and fp64: an entry the library does not write fails
    runner_.run(spec_.mode, m_, n_, k_, da_.get(), db_.get(), dc_.get(), nullptr);
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    // The checked columns (contiguous in column-major C), then the checked rows of them.
    const std::size_t R = rows_.size(), S = cols_.size(), um = static_cast<std::size_t>(m_),
                      uk = static_cast<std::size_t>(k_), w = output_bytes();
    std::vector<unsigned char> column(um * w);
    std::vector<double> c(R * S);
    for (std::size_t s = 0; s < S; ++s) {
      check_cuda(cudaMemcpy(column.data(),
                            dc_.as<unsigned char>() + static_cast<std::size_t>(cols_[s]) * um * w,
                            column.size(), cudaMemcpyDeviceToHost),
                 "cudaMemcpy D2H (a column of C)");
      for (std::size_t r = 0; r < R; ++r) {
        const unsigned char* p = column.data() + static_cast<std::size_t>(rows_[r]) * w;
        c[r + s * R] = spec_.fp64_output ? value_at<double>(p) : value_at<float>(p);
      }
    }
    if (!exact_) {
      std::vector<double> a_rows(R * uk), b_cols(uk * S);
      for (std::size_t r = 0; r < R; ++r)
        std::copy_n(a_.values.begin() + static_cast<std::ptrdiff_t>(rows_[r] * uk), uk,
                    a_rows.begin() + static_cast<std::ptrdiff_t>(r * uk));
      for (std::size_t s = 0; s < S; ++s)
        std::copy_n(b_.values.begin() + static_cast<std::ptrdiff_t>(cols_[s] * uk), uk,
                    b_cols.begin() + static_cast<std::ptrdiff_t>(s * uk));
      exact_ = reference::gemm_exact(a_rows, b_cols, static_cast<int>(R), static_cast<int>(S), k_);
    }
    report_ = gemm_error_report(c, *exact_, spec_.model);
    return report_.comparison;
  }

  void run(gpu_stream stream) override {
    runner_.run(spec_.mode, m_, n_, k_, da_.get(), db_.get(), dc_.get(), stream);
  }
  nlohmann::json observations() override { return report_.observations; }

  double a_scale() const { return a_.scale; }
  double b_scale() const { return b_.scale; }
  std::size_t checked_entries() const { return rows_.size() * cols_.size(); }

 private:
  std::size_t output_bytes() const { return spec_.fp64_output ? 8 : 4; }

  GemmModeSpec spec_;
  int m_, n_, k_;
  reference::RoundedMatrix a_, b_;
  DeviceBuffer da_, db_, dc_;
  std::vector<int> rows_, cols_;
  kernels::GemmRunner runner_;
  std::optional<reference::GemmExact> exact_;
  GemmErrorReport report_;
};

Case cuda_case(const GemmModeSpec& spec, reference::GemmData data, int m, int n, int k,
               bool throughput, bool in_quick) {
  const std::string data_name = reference::gemm_data_name(data);
  const std::string name =
      std::string("gemm/") + spec.name + "/cuda/" +
      (throughput ? "throughput/n" + std::to_string(m) : data_name + "/k" + std::to_string(k));
  const double in_bytes = static_cast<double>(reference::gemm_storage_bytes(spec.input));
  const double out_bytes = spec.fp64_output ? 8 : 4;
  Case c{
      name, Backend::cuda,
      [spec, data_name, m, n, k, throughput, in_bytes, out_bytes](const CaseContext& ctx) {
        Declared d;
        // C = A·B: m·n·k multiply-adds; A and B read and C written at least once.
        d.work = work_of(theory::gemm_work(m, n, k, in_bytes, out_bytes), spec.peak);
        d.params = {{"gemm_mode", spec.name},
                    {"library", spec.library},
                    {"model", spec.model_source},
                    {"accumulation_rounding", spec.model.truncates ? "toward zero" : "nearest"},
                    {"data", data_name},
                    {"m", m},
                    {"n", n},
                    {"k", k},
                    {"throughput", throughput},
                    {"peak_precision", std::string(theory::precision_name(spec.peak))},
                    {"peak_flop_per_s", ctx.gpu->peak_flop_per_s(spec.peak)}};
        return d;
      },
      [spec, data, m, n, k, throughput, in_bytes, out_bytes](
          const CaseContext& ctx, Declared& d) -> std::unique_ptr<Instance> {
        const GpuDevice& gpu = *ctx.gpu;
        // Before the inputs are made (8192² values take seconds): a mode this device lacks.
        if (auto why = kernels::gemm_device_unsupported(spec.mode, gpu.cc_major, gpu.cc_minor, k))
          throw CaseSkipped(*why);
        const double dm = m, dn = n, dk = k;
        // Host: the inputs as doubles while they are made, their values and their bytes.
        check_host_memory(ctx.host,
                          static_cast<std::uint64_t>((dm * dk + dk * dn) * (16 + in_bytes)));
        check_gpu_memory(
            gpu, static_cast<std::uint64_t>((dm * dk + dk * dn) * in_bytes + dm * dn * out_bytes) +
                     (std::uint64_t{32} << 20));  // + cuBLAS workspace
        auto instance = std::make_unique<GemmCuda>(
            spec, data, m, n, k, throughput ? kSampledRows : static_cast<std::size_t>(m),
            throughput ? kSampledCols : static_cast<std::size_t>(n));
        // What the instance made: its sampled entries and the inputs' scales.
        d.params["checked_entries"] = instance->checked_entries();
        d.params["a_scale"] = instance->a_scale();
        d.params["b_scale"] = instance->b_scale();
        return instance;
      },
      nullptr};
  c.sweep_point = !throughput;
  c.in_quick = in_quick;
  c.simulator_cannot_run =
      sass_only_reason(std::string(spec.library).starts_with("cublasLt") ? "cuBLASLt" : "cuBLAS");
  return c;
}

}  // namespace

std::vector<Case> gemm_cuda_cases() {
  std::vector<Case> cases;
  for (const GemmModeSpec& spec : kernels::kGemmModes) {
    // Both data sets: a nonzero mean (typical activations; a truncating accumulator's errors then
    // add up) and zero mean (where the probabilistic law holds for every mode).
    for (reference::GemmData data : {reference::GemmData::mixed, reference::GemmData::zero_mean})
      for (int k = 64, i = 0; k <= 16384; k *= 4, ++i)  // 64, 256, …, 16384; quick: 64, 1024, 16384
        cases.push_back(cuda_case(spec, data, kErrorM, kErrorN, k, false, i % 2 == 0));
    cases.push_back(cuda_case(spec, reference::GemmData::mixed, kThroughputN, kThroughputN,
                              kThroughputN, true, true));
  }
  return cases;
}

}  // namespace bb::suites
