// The host attention kernels (kernels/attention.h), naive and tiled, against the fp64 reference
// (reference/attention.h) at every sequence length around the tiles (32 query rows, 64 keys), odd
// head dimensions, MHA/MQA/GQA, causal or not, misaligned arrays and 1-3 OpenMP threads; the
// output and the naive kernel's score matrix poisoned first. attention_test.cpp holds them on
// larger shapes and on NaN/inf inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernels/attention.h"
#include "reference/attention.h"
#include "tests/host_kernel_testing.h"

namespace bb {
namespace {

using host_test::GuardedArray;
using host_test::within;
using reference::AttentionDims;

// The attention suite's fp32 tolerance (suites/attention/attention_host.cpp).
constexpr Tolerance kFp32Tolerance{1e-5, 1e-5};

void expect_attention_matches(const AttentionDims& s, bool naive, std::size_t offset, int threads) {
  GuardedArray<float> q(s.q_elements(), offset, NAN), k(s.kv_elements(), offset + 1, NAN),
      v(s.kv_elements(), offset + 2, NAN), o(s.q_elements(), offset + 3, NAN),
      scores(naive ? s.batch * s.heads * s.n * s.n : 0, offset, NAN);
  for (std::size_t i = 0; i < s.q_elements(); ++i) q[i] = reference::attention_test_value(1, i);
  for (std::size_t i = 0; i < s.kv_elements(); ++i) {
    k[i] = reference::attention_test_value(2, i);
    v[i] = reference::attention_test_value(3, i);
  }
  if (naive)
    kernels::attention_naive_host(s, q.data(), k.data(), v.data(), scores.data(), o.data());
  else
    kernels::attention_tiled_host(s, q.data(), k.data(), v.data(), o.data());

  std::vector<double> ref(s.q_elements());
  for (std::size_t b = 0; b < s.batch; ++b)
    for (std::size_t h = 0; h < s.heads; ++h)
      for (std::size_t i = 0; i < s.n; ++i)
        reference::attention_row_fp64(s, q.data(), k.data(), v.data(), b, h, i,
                                      ref.data() + s.q_row(b, h, i));
  const std::string at = host_test::where(s.n, offset, threads) + (naive ? " naive" : " tiled") +
                         " B " + std::to_string(s.batch) + " H " + std::to_string(s.heads) +
                         " H_kv " + std::to_string(s.kv_heads) + " d " + std::to_string(s.d) +
                         (s.causal ? " causal" : "");
  EXPECT_TRUE(within(o.span(), ref, kFp32Tolerance)) << at;
  EXPECT_TRUE(q.guards_intact() && k.guards_intact() && v.guards_intact() && o.guards_intact() &&
              scores.guards_intact())
      << at;
  // The naive kernel leaves P in `scores`: every entry written, 0 where masked, rows summing to 1.
  for (std::size_t r = 0; naive && r < s.batch * s.heads * s.n; ++r) {
    const std::size_t keys = s.keys_seen(r % s.n);
    double sum = 0;
    for (std::size_t j = 0; j < s.n; ++j) {
      const float p = scores[r * s.n + j];
      ASSERT_TRUE(j < keys ? p >= 0 && p <= 1 : p == 0) << at << " P row " << r << " key " << j;
      sum += p;
    }
    ASSERT_NEAR(sum, 1.0, 1e-5) << at << " P row " << r;
  }
}

TEST(AttentionHostKernel, BothMatchTheReferenceAroundTheTilesAtOffsetsAndThreads) {
  struct Heads {
    std::size_t batch, heads, kv_heads;
  };
  for (int threads : host_test::kThreadCounts) {
    const host_test::OmpThreads scope(threads);
    for (std::size_t n : {1, 2, 3, 7, 31, 32, 33, 63, 64, 65})
      for (std::size_t d : {1, 3, 17})
        for (const Heads& g : {Heads{1, 1, 1}, Heads{2, 3, 1}, Heads{1, 4, 2}})
          for (bool causal : {false, true})
            for (bool naive : {true, false})
              for (std::size_t offset : {0, 1})
                expect_attention_matches({g.batch, g.heads, g.kv_heads, n, d, causal}, naive,
                                         offset, threads);
  }
}

}  // namespace
}  // namespace bb
