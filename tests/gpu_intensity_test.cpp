// GPU tests of the CUDA FMA chain and the cuBLAS GEMM ceiling (kernels/intensity.h) against the
// CPU references (reference/intensity.h). Tests that launch skip, with the reason, when no GPU is
// usable; the argument checks run everywhere (they throw before touching the GPU).
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/compare.h"
#include "harness/gpu.h"
#include "kernels/intensity.h"
#include "reference/intensity.h"
#include "reference/random.h"
#include "tests/gpu_test_support.h"

namespace bb {
namespace {

using kernels::FmaType;
using kernels::GemmPrecision;
using reference::StorageFormat;

class GpuIntensity : public ::testing::Test {
 protected:
  void SetUp() override {
    status_ = query_gpus();
    if (!status_.usable) GTEST_SKIP() << "no usable GPU: " << status_.reason;
  }
  const GpuDevice& gpu() const { return status_.devices.at(0); }
  GpuStatus status_;
};

struct ChainType {
  FmaType type;
  StorageFormat storage;
  reference::ChainCoefficients c;
};

constexpr ChainType kChainTypes[] = {
    {FmaType::fp64, StorageFormat::fp64, reference::kChainCoefficients},
    {FmaType::fp32, StorageFormat::fp32, reference::kChainCoefficients},
    {FmaType::fp16, StorageFormat::fp16, reference::kChainCoefficientsFp16},
    {FmaType::bf16, StorageFormat::bf16, reference::kChainCoefficientsBf16},
};

double chain_reference(const ChainType& t, double x, int k) {
  switch (t.type) {
    case FmaType::fp64: return reference::fma_chain(x, k, t.c.a, t.c.b);
    case FmaType::fp32:
      return reference::fma_chain(static_cast<float>(x), k, static_cast<float>(t.c.a),
                                  static_cast<float>(t.c.b));
    case FmaType::fp16: return reference::fma_chain_rounded(x, k, t.c.a, t.c.b, reference::kFp16);
    case FmaType::bf16: return reference::fma_chain_rounded(x, k, t.c.a, t.c.b, reference::kBf16);
  }
  return 0;
}

// Runs the chain once over n elements and compares every element bit-exactly.
Comparison run_chain(const ChainType& t, std::size_t n, int k, int blocks, int threads) {
  const std::size_t element_bytes = reference::storage_bytes(t.storage);
  std::vector<double> in(n), out(n), ref(n);
  std::vector<unsigned char> host(n * element_bytes);
  for (std::size_t i = 0; i < n; ++i) {
    in[i] = reference::round_to_storage(t.storage,
                                        t.c.input_scale * reference::positive_test_value(41, i));
    reference::store(t.storage, in[i], host.data() + i * element_bytes);
    ref[i] = chain_reference(t, in[i], k);
  }
  DeviceBuffer x(host.size());
  x.upload(host.data(), host.size());
  kernels::fma_chain_cuda(t.type, x.get(), n, k, t.c.a, t.c.b, blocks, threads, nullptr);
  x.download(host.data(), host.size());
  for (std::size_t i = 0; i < n; ++i)
    out[i] = reference::load(t.storage, host.data() + i * element_bytes);
  return compare<double, double>(out, ref, Tolerance{0, 0});
}

// Odd sizes (in elements, or in pairs for fp16/bf16) exercise the one-at-a-time tail after the
// 4-wide loop; small grids exercise the grid-stride loop; k = 0 is the identity.
TEST_F(GpuIntensity, FmaChainMatchesReferenceBitExactly) {
  struct Shape {
    int blocks, threads;
  };
  const Shape shapes[] = {{3, 64}, {gpu().sm_count * 8, 256}};
  for (const ChainType& t : kChainTypes) {
    const bool paired = t.type == FmaType::fp16 || t.type == FmaType::bf16;
    const std::size_t m = paired ? 2 : 1;
    for (std::size_t count : {std::size_t{1}, std::size_t{7}, std::size_t{4 * 3 * 64 * 2 + 5},
                              gpu_test::bulk(100003, (std::size_t{1} << 14) + 3)})
      for (int k : {0, 1, 33})
        for (const Shape& s : shapes) {
          const Comparison c = run_chain(t, count * m, k, s.blocks, s.threads);
          // Every element checked, none off by a bit (one element alone is a trivial reference
          // for compare(), so ok() is not the criterion here).
          EXPECT_TRUE(c.mismatches == 0 && c.checked == count * m)
              << "type " << static_cast<int>(t.type) << " n=" << count * m << " k=" << k << " grid "
              << s.blocks << "x" << s.threads << ": " << c.describe();
        }
  }
}

TEST(FmaChainCudaArguments, BadArgumentsThrowBeforeLaunching) {
  alignas(16) unsigned char bytes[64] = {};
  const double a = reference::kChainCoefficients.a, b = reference::kChainCoefficients.b;
  EXPECT_THROW(kernels::fma_chain_cuda(FmaType::fp32, bytes, 4, -1, a, b, 1, 32, nullptr),
               std::invalid_argument);
  EXPECT_THROW(kernels::fma_chain_cuda(FmaType::fp16, bytes, 3, 1, a, b, 1, 32, nullptr),
               std::invalid_argument);
  EXPECT_THROW(
      kernels::fma_chain_cuda(FmaType::bf16, bytes, 5, 1, 1 - 0x1p-7, 0x1p-9, 1, 32, nullptr),
      std::invalid_argument);
  EXPECT_THROW(kernels::fma_chain_cuda(FmaType::fp64, bytes + 4, 4, 1, a, b, 1, 32, nullptr),
               std::invalid_argument);
  EXPECT_THROW(kernels::fma_chain_cuda(FmaType::fp16, bytes + 2, 4, 1, a, b, 1, 32, nullptr),
               std::invalid_argument);
  EXPECT_THROW(kernels::fma_chain_cuda(FmaType::fp64, nullptr, 4, 1, a, b, 1, 32, nullptr),
               std::invalid_argument);
  EXPECT_THROW(kernels::fma_chain_cuda(FmaType::fp64, bytes, 4, 1, a, b, 0, 32, nullptr),
               std::invalid_argument);
  EXPECT_THROW(kernels::fma_chain_cuda(FmaType::fp64, bytes, 4, 1, a, b, 1, 2048, nullptr),
               std::invalid_argument);
  // Coefficients not exact in the type: 0.1 in fp32 and fp16, 1 − 2^-10 in bf16 (8 bits).
  EXPECT_THROW(kernels::fma_chain_cuda(FmaType::fp32, bytes, 4, 1, 0.1, b, 1, 32, nullptr),
               std::invalid_argument);
  EXPECT_THROW(kernels::fma_chain_cuda(FmaType::fp16, bytes, 4, 1, a, 0.1, 1, 32, nullptr),
               std::invalid_argument);
  EXPECT_THROW(kernels::fma_chain_cuda(FmaType::bf16, bytes, 4, 1, a, 0x1p-9, 1, 32, nullptr),
               std::invalid_argument);
}

struct GemmType {
  GemmPrecision precision;
  StorageFormat input, output;
};

constexpr GemmType kGemmTypes[] = {
    {GemmPrecision::fp64, StorageFormat::fp64, StorageFormat::fp64},
    {GemmPrecision::fp32, StorageFormat::fp32, StorageFormat::fp32},
    {GemmPrecision::tf32, StorageFormat::fp32, StorageFormat::fp32},
    {GemmPrecision::fp16, StorageFormat::fp16, StorageFormat::fp16},
    {GemmPrecision::bf16, StorageFormat::bf16, StorageFormat::bf16},
};

// Column-major n×n matrix, uniform in [-1, 1) rounded to the format.
std::vector<double> random_matrix(StorageFormat f, int n, std::uint64_t seed) {
  std::vector<double> m(static_cast<std::size_t>(n) * n);
  for (std::size_t i = 0; i < m.size(); ++i)
    m[i] = reference::round_to_storage(f, 2 * reference::uniform01(seed, i) - 1);
  return m;
}

DeviceBuffer upload(StorageFormat f, const std::vector<double>& m) {
  const std::size_t element_bytes = reference::storage_bytes(f);
  std::vector<unsigned char> host(m.size() * element_bytes);
  for (std::size_t i = 0; i < m.size(); ++i)
    reference::store(f, m[i], host.data() + i * element_bytes);
  DeviceBuffer d(host.size());
  d.upload(host.data(), host.size());
  return d;
}

// Every entry of C = A·B within its bound, compared in units of the bound (as the suite does).
Comparison run_gemm(const GemmType& t, int n, kernels::CublasHandle& cublas) {
  const std::vector<double> a = random_matrix(t.input, n, 51), b = random_matrix(t.input, n, 52);
  DeviceBuffer da = upload(t.input, a), db = upload(t.input, b);
  const auto un = static_cast<std::size_t>(n);
  const std::size_t out_bytes = reference::storage_bytes(t.output);
  DeviceBuffer dc(un * un * out_bytes);
  dc.fill_bytes(0xFF);
  kernels::gemm_cuda(t.precision, n, da.get(), db.get(), dc.get(), cublas, nullptr);
  std::vector<unsigned char> c(dc.bytes());
  dc.download(c.data(), c.size());
  const kernels::GemmRoundoffs u = kernels::gemm_roundoffs(t.precision);
  std::vector<double> out, ref, a_row(un), b_col(un);
  for (std::size_t j = 0; j < un; ++j)
    for (std::size_t i = 0; i < un; ++i) {
      for (std::size_t k = 0; k < un; ++k) {
        a_row[k] = a[i + k * un];
        b_col[k] = b[k + j * un];
      }
      const reference::GemmEntry e =
          reference::gemm_entry_reference(a_row, b_col, u.input, u.accumulate, u.output);
      out.push_back(reference::load(t.output, c.data() + (i + j * un) * out_bytes) / e.bound);
      ref.push_back(e.value / e.bound);
    }
  return compare<double, double>(out, ref, Tolerance{1, 0});
}

TEST_F(GpuIntensity, GemmWithinItsErrorBoundEveryPrecision) {
  if (gpu().simulated) GTEST_SKIP() << gpu_test::kNoCublas;
  kernels::CublasHandle cublas;
  for (const GemmType& t : kGemmTypes)
    for (int n : {256, 97}) {
      const Comparison c = run_gemm(t, n, cublas);
      EXPECT_TRUE(c.ok()) << "precision " << static_cast<int>(t.precision) << " n=" << n
                          << " (errors in units of the bound): " << c.describe();
    }
}

TEST_F(GpuIntensity, GemmRejectsBadArguments) {
  if (gpu().simulated) GTEST_SKIP() << gpu_test::kNoCublas << " (cublasCreate fails)";
  kernels::CublasHandle cublas;
  DeviceBuffer m(64);
  EXPECT_THROW(
      kernels::gemm_cuda(GemmPrecision::fp32, 0, m.get(), m.get(), m.get(), cublas, nullptr),
      std::invalid_argument);
  EXPECT_THROW(
      kernels::gemm_cuda(GemmPrecision::fp32, 2, nullptr, m.get(), m.get(), cublas, nullptr),
      std::invalid_argument);
}

}  // namespace
}  // namespace bb
