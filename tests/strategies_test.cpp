// The strategies suite's plan (suites/strategies/strategies_plan.h), without processes: the
// pipeline schedules and the activations they hold, the layer's GEMMs against theory's flop, the
// router's loads, and the options refused before any step runs.
#include "suites/strategies/strategies_plan.h"

#include <gtest/gtest.h>

#include <numeric>
#include <stdexcept>

namespace bb::strategies {
namespace {

using theory::PipelineSchedule;

TEST(PipelineOps, EveryMicroBatchForwardThenBackwardOnce) {
  for (PipelineSchedule s : {PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b})
    for (int stage = 0; stage < 4; ++stage) {
      const auto ops = pipeline_ops(s, 4, 8, stage);
      ASSERT_EQ(ops.size(), 16u);
      std::vector<int> forward_at(8, -1), backward_at(8, -1);
      for (int i = 0; i < 16; ++i) {
        auto& at = ops[std::size_t(i)].forward ? forward_at : backward_at;
        EXPECT_EQ(at[std::size_t(ops[std::size_t(i)].micro_batch)], -1);
        at[std::size_t(ops[std::size_t(i)].micro_batch)] = i;
      }
      for (int m = 0; m < 8; ++m)
        EXPECT_LT(forward_at[std::size_t(m)], backward_at[std::size_t(m)]);
    }
}

TEST(PipelineOps, OneFOneBWarmsUpWithTheStagesLeft) {
  // Stage 1 of 4: two forwards, then F B alternately, then two backwards.
  const auto ops = pipeline_ops(PipelineSchedule::one_f_one_b, 4, 4, 1);
  const std::vector<bool> forward{true, true, true, false, true, false, false, false};
  ASSERT_EQ(ops.size(), forward.size());
  for (std::size_t i = 0; i < ops.size(); ++i) EXPECT_EQ(ops[i].forward, forward[i]) << i;
}

TEST(PipelineOps, PeakHeldIsTheLaw) {
  for (int m : {4, 8, 16})
    for (int stage = 0; stage < 4; ++stage)
      for (PipelineSchedule s : {PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b})
        EXPECT_EQ(peak_held(pipeline_ops(s, 4, m, stage)),
                  theory::pipeline_peak_activations(s, 4, m, stage));
}

TEST(TransformerLayer, FlopIsMegatrons) {
  for (int t : {1, 2, 4}) {
    const auto layer = transformer_layer(2, 16, 64, t);
    EXPECT_DOUBLE_EQ(forward_flop(layer.all()),
                     theory::tensor_parallel_layer_forward_flop(2, 16, 64, t));
    EXPECT_DOUBLE_EQ(backward_flop(layer.all()), 2 * forward_flop(layer.all()));
  }
  EXPECT_THROW(transformer_layer(2, 16, 64, 3), std::invalid_argument);
}

TEST(RouterLoads, UniformAndZipf) {
  EXPECT_EQ(router_loads(64, 2, 4, false), (std::vector<int>{32, 32, 32, 32}));
  EXPECT_EQ(router_loads(5, 1, 4, false), (std::vector<int>{2, 1, 1, 1}));
  // 128 in proportion to 1, 1/2, 1/3, 1/4: 61.44, 30.72, 20.48, 15.36; the floors sum to 126 and
  // the two largest remainders (0.72, 0.48) get one more each.
  const auto z = router_loads(64, 2, 4, true);
  EXPECT_EQ(std::accumulate(z.begin(), z.end(), 0), 128);
  EXPECT_EQ(z, (std::vector<int>{61, 31, 21, 15}));
}

TEST(ProportionalSplit, SumsToTheTotal) {
  EXPECT_EQ(proportional_split(64, {1, 1, 0.5}), (std::vector<int>{26, 25, 13}));
  EXPECT_EQ(proportional_split(3, {1, 1, 1, 1}), (std::vector<int>{1, 1, 1, 0}));
  EXPECT_THROW(proportional_split(3, {0, 0}), std::invalid_argument);
}

TEST(ScalingRanks, PowersOfTwoThenTheWorld) {
  EXPECT_EQ(scaling_ranks(1), (std::vector<int>{1}));
  EXPECT_EQ(scaling_ranks(4), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(scaling_ranks(6), (std::vector<int>{1, 2, 4, 6}));
}

TEST(WithRows, ShareOfTheWorkInRows) {
  const auto layer = transformer_layer(1, 64, 128, 1).all();
  EXPECT_DOUBLE_EQ(forward_flop(with_rows(layer, 16)), forward_flop(layer) / 4);
}

TEST(CheckOptions, RefusesWhatCannotRun) {
  Options o;
  settle_defaults(o);
  EXPECT_NO_THROW(check_options(o, 4));
  o.stages = 3;
  EXPECT_THROW(check_options(o, 4), std::invalid_argument);  // 3 does not divide 4
  o.stages = 0;
  o.micro_batches = {2};
  EXPECT_THROW(check_options(o, 4), std::invalid_argument);  // 1F1B with m < p
  o.schedules = {"gpipe"};
  EXPECT_NO_THROW(check_options(o, 4));
  o.overlap = true;
  EXPECT_NO_THROW(check_options(o, 4));  // 8 MiB of gradients in 1 MiB buckets
  o.bucket_bytes = 1024;
  EXPECT_THROW(check_options(o, 4), std::invalid_argument);  // 8192 buckets
  o.bucket_bytes = 0x1p20;
  o.overlap = false;
  o.strategies = {"zero"};
  EXPECT_THROW(check_options(o, 4), std::invalid_argument);
  o.strategies = {"tensor"};
  EXPECT_THROW(check_options(o, 3), std::invalid_argument);  // 3 does not divide h = 128
}

TEST(Canonical, DiffersWhenAnOptionDoes) {
  Options a, b;
  b.micro_batches = {4};
  EXPECT_NE(canonical(a), canonical(b));
  EXPECT_EQ(canonical(a), canonical(Options{}));
  b = a;
  b.overlap = true;
  EXPECT_NE(canonical(a), canonical(b));
}

}  // namespace
}  // namespace bb::strategies
