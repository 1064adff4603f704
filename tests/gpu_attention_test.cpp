// GPU tests of the attention kernels on small shapes: naive (cuBLAS + softmax), fused (tensor
// cores, online softmax) and decode against the fp64 reference of the same rounded inputs, every
// output row checked; MHA, GQA, causal, ragged n, d = 64 and 128, bf16 and fp16; NaN propagation.
// Skip without a usable GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "base/cuda_check.h"
#include "harness/gpu.h"
#include "kernels/attention.h"
#include "kernels/intensity.h"
#include "reference/attention.h"
#include "reference/formats.h"

namespace bb {
namespace {

using kernels::AttentionDtype;
using reference::AttentionDims;

class GpuAttention : public ::testing::Test {
 protected:
  void SetUp() override {
    const GpuStatus st = query_gpus();
    if (!st.usable) GTEST_SKIP() << "no usable GPU: " << st.reason;
  }
};

struct Tensor {
  std::vector<std::uint16_t> codes;
  std::vector<float> values;
  DeviceBuffer device;
  Tensor(AttentionDtype t, std::size_t count, std::uint64_t seed) : codes(count), values(count) {
    const auto& f = theory::format_spec(t == AttentionDtype::bf16 ? theory::Format::bf16
                                                                  : theory::Format::fp16);
    for (std::size_t i = 0; i < count; ++i) {
      codes[i] = static_cast<std::uint16_t>(
          reference::encode(f, reference::attention_test_value(seed, i)));
      values[i] = static_cast<float>(reference::decode(f, codes[i]));
    }
    device = DeviceBuffer(count * 2);
    device.upload(codes.data(), count * 2);
  }
  void set(AttentionDtype t, std::size_t i, float x) {
    const auto& f = theory::format_spec(t == AttentionDtype::bf16 ? theory::Format::bf16
                                                                  : theory::Format::fp16);
    codes[i] = static_cast<std::uint16_t>(reference::encode(f, x));
    values[i] = x;
    device.upload(codes.data(), codes.size() * 2);
  }
};

// As the suite's tolerances (suites/attention/attention_cuda.cpp): bf16 3e-3, fp16 4e-4.
double tol(AttentionDtype t) { return t == AttentionDtype::bf16 ? 3e-3 : 4e-4; }

// Runs naive or fused and returns O (fp32).
std::vector<float> run(bool naive, AttentionDtype t, const AttentionDims& s, const Tensor& q,
                       const Tensor& k, const Tensor& v) {
  DeviceBuffer o(s.q_elements() * 4);
  o.fill_bytes(0xFF);
  if (naive) {
    DeviceBuffer scores(s.batch * s.heads * s.n * s.n * 4),
        probs(s.batch * s.heads * s.n * s.n * 2);
    scores.fill_bytes(0xFF), probs.fill_bytes(0xFF);
    kernels::CublasHandle handle;
    kernels::attention_naive_cuda(t, s, q.device.get(), k.device.get(), v.device.get(),
                                  scores.as<float>(), probs.get(), o.as<float>(), handle, nullptr);
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  } else {
    kernels::attention_fused_cuda(t, s, q.device.get(), k.device.get(), v.device.get(),
                                  o.as<float>(), nullptr);
  }
  std::vector<float> out(s.q_elements());
  o.download(out.data(), out.size() * 4);
  return out;
}

TEST_F(GpuAttention, NaiveAndFusedMatchTheReferenceOnEveryRow) {
  const AttentionDims shapes[] = {{1, 2, 2, 64, 64, false},
                                  {2, 4, 1, 200, 128, true},
                                  {1, 8, 2, 130, 64, true},
                                  {1, 1, 1, 1, 128, false},
                                  {1, 2, 2, 513, 128, false}};
  for (auto t : {AttentionDtype::bf16, AttentionDtype::fp16})
    for (const auto& s : shapes) {
      const Tensor q(t, s.q_elements(), 1), k(t, s.kv_elements(), 2), v(t, s.kv_elements(), 3);
      for (bool naive : {true, false}) {
        const auto o = run(naive, t, s, q, k, v);
        std::vector<double> ref(s.d);
        for (std::size_t b = 0; b < s.batch; ++b)
          for (std::size_t h = 0; h < s.heads; ++h)
            for (std::size_t i = 0; i < s.n; ++i) {
              reference::attention_row_fp64(s, q.values.data(), k.values.data(), v.values.data(), b,
                                            h, i, ref.data());
              for (std::size_t c = 0; c < s.d; ++c)
                ASSERT_NEAR(o[s.q_row(b, h, i) + c], ref[c], tol(t) * (1 + std::fabs(ref[c])))
                    << (naive ? "naive" : "fused") << " n=" << s.n << " d=" << s.d << " b" << b
                    << " h" << h << " row " << i << " col " << c;
            }
      }
    }
}

TEST_F(GpuAttention, NanPropagatesAsInTheReference) {
  const AttentionDims s{1, 1, 1, 100, 64, true};
  const auto t = AttentionDtype::bf16;
  Tensor q(t, s.q_elements(), 1), k(t, s.kv_elements(), 2), v(t, s.kv_elements(), 3);
  k.set(t, s.kv_row(0, 0, 40) + 3, std::nanf(""));  // rows >= 40 see it
  for (bool naive : {true, false}) {
    const auto o = run(naive, t, s, q, k, v);
    for (std::size_t i = 0; i < s.n; ++i)
      EXPECT_EQ(std::isnan(o[s.q_row(0, 0, i)]), i >= 40)
          << (naive ? "naive" : "fused") << " row " << i;
  }
}

TEST_F(GpuAttention, DecodeMatchesTheReference) {
  for (auto t : {AttentionDtype::bf16, AttentionDtype::fp16})
    for (std::size_t d : {64, 128}) {
      // One query per (batch, head) against n cached positions: the last row of a full sequence.
      const AttentionDims s{2, 8, 2, 1000, d, false};
      const Tensor q(t, s.batch * s.heads * d, 1), k(t, s.kv_elements(), 2),
          v(t, s.kv_elements(), 3);
      DeviceBuffer o(s.batch * s.heads * d * 4);
      o.fill_bytes(0xFF);
      kernels::attention_decode_cuda(t, s, q.device.get(), k.device.get(), v.device.get(),
                                     o.as<float>(), nullptr);
      std::vector<float> out(s.batch * s.heads * d);
      o.download(out.data(), out.size() * 4);
      // The reference: each (batch, head)'s query against all n cached positions.
      std::vector<double> ref(d);
      for (std::size_t b = 0; b < s.batch; ++b)
        for (std::size_t h = 0; h < s.heads; ++h) {
          reference::attention_query_fp64(s, q.values.data() + (b * s.heads + h) * d, s.n,
                                          k.values.data(), v.values.data(), b, h, ref.data());
          for (std::size_t c = 0; c < d; ++c)
            ASSERT_NEAR(out[(b * s.heads + h) * d + c], ref[c], 2e-3 * (1 + std::fabs(ref[c])))
                << "d=" << d << " b" << b << " h" << h << " col " << c;
        }
    }
}

// Decode's split-KV plan on shapes that take each path: a group of 8 served as two blocks of 4
// heads, groups of 3 and 2, MHA; one position, lengths that leave a part-filled warp iteration,
// several splits merged (4097 positions: 17 splits); a NaN in K reaches exactly its group's heads.
TEST_F(GpuAttention, DecodeCoversGroupsSplitsAndTails) {
  struct Shape {
    AttentionDtype t;
    AttentionDims s;
  };
  const Shape shapes[] = {{AttentionDtype::bf16, {1, 8, 1, 1, 128, false}},
                          {AttentionDtype::fp16, {1, 6, 2, 777, 64, false}},
                          {AttentionDtype::bf16, {2, 4, 2, 300, 128, false}},
                          {AttentionDtype::fp16, {1, 2, 2, 4097, 64, false}}};
  for (const auto& [t, s] : shapes)
    for (bool nan : {false, true}) {
      Tensor q(t, s.batch * s.heads * s.d, 1), k(t, s.kv_elements(), 2), v(t, s.kv_elements(), 3);
      const std::size_t group = s.heads / s.kv_heads, nan_b = s.batch - 1,
                        nan_kvh = s.kv_heads - 1;  // query heads nan_kvh·group … share it
      if (nan) k.set(t, s.kv_row(nan_b, nan_kvh * group, s.n / 2) + 1, std::nanf(""));
      DeviceBuffer o(s.batch * s.heads * s.d * 4);
      o.fill_bytes(0xFF);
      kernels::attention_decode_cuda(t, s, q.device.get(), k.device.get(), v.device.get(),
                                     o.as<float>(), nullptr);
      std::vector<float> out(s.batch * s.heads * s.d);
      o.download(out.data(), out.size() * 4);
      std::vector<double> ref(s.d);
      for (std::size_t b = 0; b < s.batch; ++b)
        for (std::size_t h = 0; h < s.heads; ++h) {
          const float* got = out.data() + (b * s.heads + h) * s.d;
          if (nan && b == nan_b && h / group == nan_kvh) {
            for (std::size_t c = 0; c < s.d; ++c)
              ASSERT_TRUE(std::isnan(got[c])) << "n=" << s.n << " b" << b << " h" << h;
            continue;
          }
          reference::attention_query_fp64(s, q.values.data() + (b * s.heads + h) * s.d, s.n,
                                          k.values.data(), v.values.data(), b, h, ref.data());
          for (std::size_t c = 0; c < s.d; ++c)
            ASSERT_NEAR(got[c], ref[c], 2e-3 * (1 + std::fabs(ref[c])))
                << "n=" << s.n << " d=" << s.d << " H=" << s.heads << " H_kv=" << s.kv_heads << " b"
                << b << " h" << h << " col " << c << (nan ? " (NaN elsewhere)" : "");
        }
    }
}

TEST(GpuAttentionArguments, RejectedBeforeAnyCudaCall) {
  const AttentionDims bad{1, 6, 4, 64, 64, false};
  EXPECT_THROW(kernels::attention_fused_cuda(AttentionDtype::bf16, bad, nullptr, nullptr, nullptr,
                                             nullptr, nullptr),
               std::invalid_argument);
  const AttentionDims wide{1, 1, 1, 64, 96, false};
  EXPECT_THROW(kernels::attention_fused_cuda(AttentionDtype::bf16, wide, nullptr, nullptr, nullptr,
                                             nullptr, nullptr),
               std::invalid_argument);
  EXPECT_FALSE(kernels::attention_fused_supported(96));
}

}  // namespace
}  // namespace bb
