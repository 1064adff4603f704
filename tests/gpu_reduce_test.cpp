// GPU tests of the fp32 sums (kernels/reduce.cu): integer-valued data (every partial sum exact)
// give the exact sum at every size, including sizes that leave threads idle; random-sign data stay
// within the tree's γ_h bound and CUB's any-order bound. Skip without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "base/cuda_check.h"
#include "harness/gpu.h"
#include "kernels/reduce.h"
#include "reference/summation.h"
#include "suites/precision/precision_suite.h"
#include "tests/gpu_test_support.h"
#include "theory/summation.h"

namespace bb {
namespace {

class GpuReduce : public ::testing::Test {
 protected:
  void SetUp() override {
    const GpuStatus st = query_gpus();
    if (!st.usable) GTEST_SKIP() << "no usable GPU: " << st.reason;
  }
};

std::pair<float, float> gpu_sums(const std::vector<float>& x) {
  const std::size_t n = x.size();
  DeviceBuffer dx(n * 4), partials(kernels::kReduceMaxBlocks * 4), out(8);
  const std::size_t temp_bytes = std::max<std::size_t>(kernels::cub_reduce_temp_bytes(n), 1);
  DeviceBuffer temp(temp_bytes);
  dx.upload(x.data(), n * 4);
  out.fill_bytes(0xFF);
  kernels::reduce_tree_cuda(dx.as<float>(), n, partials.as<float>(), out.as<float>(), nullptr);
  kernels::reduce_cub_cuda(dx.as<float>(), n, temp.get(), temp_bytes, out.as<float>() + 1, nullptr);
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  float r[2];
  out.download(r, 8);
  return {r[0], r[1]};
}

TEST_F(GpuReduce, IntegerDataSumExactly) {
  // The largest puts more than 4 values in each lane (past 2^20: the non-tree path).
  for (std::size_t n : {4ul, 1020ul, 1024ul, 4100ul, 262144ul, 1000004ul,
                        gpu_test::bulk(1ul << 22, (1ul << 20) + 4096)}) {
    std::vector<float> x(n);
    double exact = 0;
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = static_cast<float>(static_cast<int>(i % 7) - 3);  // |partial sums| < 2^24
      exact += x[i];
    }
    const auto [tree, cub] = gpu_sums(x);
    EXPECT_EQ(tree, exact) << n;
    EXPECT_EQ(cub, exact) << n;
  }
}

TEST_F(GpuReduce, RandomSignDataWithinBounds) {
  for (std::size_t n : {256ul, 65536ul, 1ul << 20, gpu_test::bulk(1ul << 24, 1ul << 21)}) {
    const std::vector<float> x = suites::summation_data(3, n);
    const reference::ExactSum e = reference::exact_sum<float>(x);
    const double abs_sum = static_cast<double>(e.abs_sum), exact = static_cast<double>(e.sum);
    const auto [tree, cub] = gpu_sums(x);
    const double slack = theory::gamma_n(static_cast<double>(n), 0x1p-64) * abs_sum;
    EXPECT_LE(std::fabs(tree - exact),
              theory::tree_sum_bound(kernels::reduce_tree_height(n), 0x1p-24, abs_sum) + slack)
        << n;
    EXPECT_LE(std::fabs(cub - exact),
              theory::recursive_sum_bound(static_cast<double>(n), 0x1p-24, abs_sum) + slack)
        << n;
  }
}

}  // namespace
}  // namespace bb
