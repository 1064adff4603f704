// The host STREAM kernels (kernels/stream.h) against reference/stream.h at small, odd sizes,
// misaligned arrays and 1-3 OpenMP threads: each op's written array within stream_rtol, the arrays
// it only reads untouched, nothing written outside [0, n); the dot product within its Higham
// bound; the fills bit-exact.
#include <gtest/gtest.h>

#include <stdexcept>

#include <cmath>
#include <limits>
#include <vector>

#include "kernels/stream.h"
#include "reference/random.h"
#include "reference/stream.h"
#include "tests/host_kernel_testing.h"

namespace bb {
namespace {

using host_test::GuardedArray;
using host_test::within;
using theory::StreamOp;

template <class T>
constexpr T poison() {
  return std::numeric_limits<T>::quiet_NaN();
}

template <class T>
constexpr const char* dtype() {
  return sizeof(T) == 8 ? "fp64" : "fp32";
}

// Positive values with outliers at 2^±12 (the premise of stream_rtol: no cancellation).
template <class T>
void fill_positive(GuardedArray<T>& x, std::uint64_t seed) {
  for (std::size_t i = 0; i < x.span().size(); ++i)
    x[i] = static_cast<T>(reference::positive_test_value(seed, i));
}

template <class T>
void expect_ops_match(std::size_t n, std::size_t offset, int threads, bool non_temporal = false) {
  const T s = T(0.4);
  for (StreamOp op :
       {StreamOp::copy, StreamOp::mul, StreamOp::add, StreamOp::triad, StreamOp::nstream}) {
    // Three different misalignments: a at `offset`, b and c one and two elements further.
    GuardedArray<T> a(n, offset, poison<T>()), b(n, offset + 1, poison<T>()),
        c(n, offset + 2, poison<T>());
    fill_positive(a, 1), fill_positive(b, 2), fill_positive(c, 3);
    const std::vector<T> a0(a.span().begin(), a.span().end()), b0(b.span().begin(), b.span().end()),
        c0(c.span().begin(), c.span().end());
    const std::vector<T> expected = reference::stream_expected<T>(op, a0, b0, c0, s);
    const reference::StreamArray w = reference::written_array(op);
    GuardedArray<T>& out = w == reference::StreamArray::a   ? a
                           : w == reference::StreamArray::b ? b
                                                            : c;
    if (op != StreamOp::nstream) out.poison();  // nstream reads what it writes
    if (non_temporal)
      kernels::stream_host_nt(op, a.data(), b.data(), c.data(), s, n);
    else
      kernels::stream_host(op, a.data(), b.data(), c.data(), s, n);

    const std::string at = host_test::where(n, offset, threads) + " " + dtype<T>() + " " +
                           std::string(theory::stream_kernel(op).name) +
                           (non_temporal ? " non-temporal" : "");
    EXPECT_TRUE(within(out.span(), expected, {0.0, reference::stream_rtol<T>()})) << at;
    // The arrays the op only reads, bit for bit as they were.
    const std::pair<GuardedArray<T>*, const std::vector<T>*> inputs[] = {
        {&a, &a0}, {&b, &b0}, {&c, &c0}};
    for (const auto& [x, x0] : inputs)
      if (x != &out) {
        EXPECT_TRUE(within(x->span(), *x0, {0.0, 0.0})) << "input of " << at;
      }
    EXPECT_TRUE(a.guards_intact() && b.guards_intact() && c.guards_intact()) << at;
  }
}

TEST(StreamHostKernel, EveryOpMatchesTheReferenceAtOddSizesOffsetsAndThreads) {
  for (int threads : host_test::kThreadCounts) {
    const host_test::OmpThreads scope(threads);
    for (std::size_t n : host_test::kOddSizes)
      for (std::size_t offset : host_test::kOffsets) {
        expect_ops_match<double>(n, offset, threads);
        expect_ops_match<float>(n, offset, threads);
      }
  }
}

// Streaming stores: a scalar head up to the vector alignment, whole vectors, a scalar tail; the
// odd sizes and offsets put every split (and none) in each thread's share.
TEST(StreamHostKernel, NonTemporalStoresMatchTheReferenceAtOddSizesOffsetsAndThreads) {
  for (int threads : host_test::kThreadCounts) {
    const host_test::OmpThreads scope(threads);
    for (std::size_t n : host_test::kOddSizes)
      for (std::size_t offset : host_test::kOffsets) {
        expect_ops_match<double>(n, offset, threads, true);
        expect_ops_match<float>(n, offset, threads, true);
      }
  }
}

template <class T>
void expect_dot_within_bound(std::size_t n, std::size_t offset, int threads) {
  GuardedArray<T> a(n, offset, poison<T>()), b(n, offset + 2, poison<T>());
  fill_positive(a, 4), fill_positive(b, 5);
  for (std::size_t i = 0; i < n; i += 3) b[i] = -b[i];  // cancellation: the bound still holds
  const reference::DotReference ref =
      reference::dot<T>(std::span<const T>(a.data(), n), std::span<const T>(b.data(), n));
  const double got = static_cast<double>(kernels::dot_host(a.data(), b.data(), n));
  const double atol =
      reference::dot_abs_tolerance<T>(kernels::dot_host_depth(n, threads), ref.abs_sum);
  const double want = static_cast<double>(ref.value);
  EXPECT_TRUE(within(std::vector{got}, std::vector{want}, {atol, 0.0}))
      << host_test::where(n, offset, threads) << " " << dtype<T>() << " atol " << atol;
}

TEST(StreamHostKernel, DotWithinItsBoundAtOddSizesOffsetsAndThreads) {
  for (int threads : host_test::kThreadCounts) {
    const host_test::OmpThreads scope(threads);
    for (std::size_t n : host_test::kOddSizes)
      for (std::size_t offset : host_test::kOffsets) {
        expect_dot_within_bound<double>(n, offset, threads);
        expect_dot_within_bound<float>(n, offset, threads);
      }
  }
}

template <class T>
void expect_fills_exact(std::size_t n, std::size_t offset, int threads) {
  GuardedArray<T> x(n, offset, poison<T>());
  kernels::fill_random_host(x.data(), n, 7);
  std::vector<T> want(n);
  for (std::size_t i = 0; i < n; ++i)
    want[i] = static_cast<T>(reference::positive_test_value(7, i));
  const std::string at = host_test::where(n, offset, threads) + " " + dtype<T>();
  EXPECT_TRUE(within(x.span(), want, {0.0, 0.0})) << "fill_random " << at;
  EXPECT_TRUE(x.guards_intact()) << "fill_random " << at;
  x.poison();
  kernels::fill_value_host(x.data(), n, T(-0.3));
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(x[i], T(-0.3)) << "fill_value " << at << " i " << i;
  EXPECT_TRUE(x.guards_intact()) << "fill_value " << at;
}

TEST(StreamHostKernel, FillsAreExactAtOddSizesOffsetsAndThreads) {
  for (int threads : host_test::kThreadCounts) {
    const host_test::OmpThreads scope(threads);
    for (std::size_t n : host_test::kOddSizes)
      for (std::size_t offset : host_test::kOffsets) {
        expect_fills_exact<double>(n, offset, threads);
        expect_fills_exact<float>(n, offset, threads);
      }
  }
}

}  // namespace
}  // namespace bb
