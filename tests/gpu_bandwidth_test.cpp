// GPU tests of the memory-hierarchy kernels (read sweep, strided read, pointer chase) against
// host-computed expectations. Each test skips, with the reason, when no GPU is usable.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "harness/gpu.h"
#include "kernels/hierarchy.h"
#include "reference/chase.h"
#include "tests/gpu_test_support.h"

namespace bb {
namespace {

class GpuHierarchyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    status_ = query_gpus();
    if (!status_.usable) GTEST_SKIP() << "no usable GPU: " << status_.reason;
  }
  GpuStatus status_;
};

std::vector<float> small_ints(std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>((i * 7 + 3) % 5);
  return v;
}

TEST_F(GpuHierarchyTest, ReadSumsEachBlocksChunkPassesTimes) {
  const std::size_t bulk = gpu_test::bulk(std::size_t{1} << 20, std::size_t{1} << 14);
  for (std::size_t n16 : {std::size_t{1}, std::size_t{1000}, bulk}) {
    for (int blocks : {1, 7, 132}) {
      const std::vector<float> x = small_ints(4 * n16);
      DeviceBuffer dx(16 * n16), dout(static_cast<std::size_t>(blocks) * 8);
      dx.upload(x.data(), 16 * n16);
      dout.fill_bytes(0xFF);
      kernels::read_cuda(dx.get(), n16, 3, dout.as<double>(), blocks, 256, nullptr);
      std::vector<double> got(static_cast<std::size_t>(blocks)), want(got.size(), 0.0);
      dout.download(got.data(), got.size() * 8);
      const std::size_t chunk = (n16 + got.size() - 1) / got.size();
      for (std::size_t i = 0; i < 4 * n16; ++i) want[i / 4 / chunk] += 3.0 * x[i];
      EXPECT_EQ(got, want) << "n16=" << n16 << " blocks=" << blocks;
    }
  }
}

// The kernel reads rounds of 8 x 320 accesses (each warp 8 consecutive groups of 32), the last
// round's loads past the end predicated off: sizes with a partial last round, with whole rounds
// only (7680 = 3 x 2560) and with a partial first round only (200 < 2560), every access read by
// block (i mod 2560) / 512.
TEST_F(GpuHierarchyTest, StridedReadSumsEveryStrideth) {
  for (std::size_t n : {std::size_t{100003}, std::size_t{7680}, std::size_t{200}}) {
    const std::vector<float> x = small_ints(n);
    DeviceBuffer dx(x.size() * 4), dout(5 * 8);
    dx.upload(x.data(), x.size() * 4);
    for (std::size_t stride : {1, 3, 8, 32}) {
      const std::size_t accesses = x.size() / stride;
      dout.fill_bytes(0xFF);
      kernels::strided_read_cuda(dx.as<float>(), accesses, stride, dout.as<double>(), 5, 64,
                                 nullptr);
      std::vector<double> got(5), want(5, 0.0);
      dout.download(got.data(), 5 * 8);
      // Rounds of 64 threads x 8 loads per block (kernels/hierarchy.h).
      for (std::size_t i = 0; i < accesses; ++i) want[i % (5 * 64 * 8) / (64 * 8)] += x[i * stride];
      EXPECT_EQ(got, want) << "n " << n << " stride " << stride;
    }
  }
}

TEST_F(GpuHierarchyTest, ChaseWalksOnFromWhereItStopped) {
  const reference::RandomCycle cycle(5000, 17);
  const std::vector<std::uint32_t> table = reference::chase_table(cycle, 16);
  DeviceBuffer next(table.size() * 4), pos(4);
  next.upload(table.data(), table.size() * 4);
  const std::uint32_t zero = 0;
  pos.upload(&zero, 4);
  const std::uint64_t k = cycle.position(0);
  std::uint64_t walked = 0;
  for (std::uint64_t steps : {1u, 10u, 4999u, 12345u}) {
    kernels::chase_cuda(next.as<std::uint32_t>(), steps, pos.as<std::uint32_t>(), nullptr);
    walked += steps;
    std::uint32_t p = 0;
    pos.download(&p, 4);
    EXPECT_EQ(p, cycle.at((k + walked) % 5000) * 16) << "after " << walked << " steps";
  }
}

TEST_F(GpuHierarchyTest, RefusesBadArguments) {
  DeviceBuffer x(64), out(64);
  EXPECT_THROW(kernels::read_cuda(x.get(), 4, 0, out.as<double>(), 1, 32, nullptr),
               std::invalid_argument);
  EXPECT_THROW(kernels::read_cuda(x.as<char>() + 4, 2, 1, out.as<double>(), 1, 32, nullptr),
               std::invalid_argument);
  EXPECT_THROW(kernels::read_cuda(x.get(), 4, 1, out.as<double>(), 1, 100, nullptr),
               std::invalid_argument);
  EXPECT_THROW(kernels::strided_read_cuda(x.as<float>(), 4, 0, out.as<double>(), 1, 32, nullptr),
               std::invalid_argument);
  EXPECT_THROW(kernels::strided_read_cuda(x.as<float>(), 4, 1, out.as<double>(), 1, 16, nullptr),
               std::invalid_argument);
}

}  // namespace
}  // namespace bb
