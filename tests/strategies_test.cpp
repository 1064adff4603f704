// The strategies suite's plan (suites/strategies/strategies_plan.h), without processes: the
// pipeline schedules and the activations they hold, the layer's GEMMs against theory's flop, the
// router's loads, and the options refused before any step runs.
#include "suites/strategies/strategies_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
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

TEST(PipelineOps, InterleavedRunsEveryChunkOfEveryMicroBatchOnce) {
  for (int v : {2, 3})
    for (int m : {4, 8})
      for (int stage = 0; stage < 4; ++stage) {
        const auto ops = pipeline_ops(PipelineSchedule::interleaved_1f1b, 4, m, stage, v);
        ASSERT_EQ(ops.size(), std::size_t(2 * m * v));
        std::vector<int> forward_at(std::size_t(m * v), -1), backward_at(std::size_t(m * v), -1);
        for (int i = 0; i < int(ops.size()); ++i) {
          const PipelineOp& op = ops[std::size_t(i)];
          ASSERT_TRUE(op.chunk >= 0 && op.chunk < v && op.micro_batch >= 0 && op.micro_batch < m);
          auto& at = op.forward ? forward_at : backward_at;
          EXPECT_EQ(at[std::size_t(op.chunk * m + op.micro_batch)], -1);
          at[std::size_t(op.chunk * m + op.micro_batch)] = i;
        }
        for (int k = 0; k < m * v; ++k)
          EXPECT_LT(forward_at[std::size_t(k)], backward_at[std::size_t(k)]);
        EXPECT_EQ(peak_held(ops), theory::pipeline_peak_activations(
                                      PipelineSchedule::interleaved_1f1b, 4, m, stage, v));
      }
}

// Runs every stage's operations as the suite does (a forward waits for the model's previous
// stage, a backward for the next, sends instant), each forward `forward` long and each backward
// `backward`; returns the step's length, or -1 when the stages wait for each other for ever.
double simulated_step(PipelineSchedule schedule, int p, int m, int v, double forward,
                      double backward) {
  std::vector<std::vector<PipelineOp>> ops;
  for (int s = 0; s < p; ++s) ops.push_back(pipeline_ops(schedule, p, m, s, v));
  const int model_stages = p * v;
  // Done times per (forward?, model stage, micro-batch); -1 not yet.
  std::vector<double> done(std::size_t(2 * model_stages * m), -1);
  const auto at = [&](bool f, int model_stage, int mb) -> double& {
    return done[std::size_t(((f ? 0 : 1) * model_stages + model_stage) * m + mb)];
  };
  std::vector<std::size_t> next(std::size_t(p), 0);
  std::vector<double> clock(std::size_t(p), 0);
  for (bool progress = true; progress;) {
    progress = false;
    for (int s = 0; s < p; ++s)
      while (next[std::size_t(s)] < ops[std::size_t(s)].size()) {
        const PipelineOp& op = ops[std::size_t(s)][next[std::size_t(s)]];
        const int ms = op.chunk * p + s;
        double ready = 0;
        if (op.forward && ms > 0) ready = at(true, ms - 1, op.micro_batch);
        if (!op.forward)
          ready = ms < model_stages - 1 ? at(false, ms + 1, op.micro_batch)
                                        : at(true, ms, op.micro_batch);
        if (ready < 0) break;
        double& c = clock[std::size_t(s)];
        c = std::max(c, ready) + (op.forward ? forward : backward);
        at(op.forward, ms, op.micro_batch) = c;
        ++next[std::size_t(s)];
        progress = true;
      }
  }
  for (int s = 0; s < p; ++s)
    if (next[std::size_t(s)] < ops[std::size_t(s)].size()) return -1;
  return *std::max_element(clock.begin(), clock.end());
}

TEST(PipelineOps, SimulatedStepIsTheFormula) {
  // Chunk forward 1, backward 2: a stage's t_f = v, t_b = 2v per micro-batch.
  for (int p : {2, 3, 4})
    for (int mult : {1, 2, 3}) {
      const int m = p * mult;
      EXPECT_DOUBLE_EQ(simulated_step(PipelineSchedule::gpipe, p, m, 1, 1, 2),
                       theory::pipeline_step_s(p, m, 1, 2));
      EXPECT_DOUBLE_EQ(simulated_step(PipelineSchedule::one_f_one_b, p, m, 1, 1, 2),
                       theory::pipeline_step_s(p, m, 1, 2));
      for (int v : {2, 3, 4})
        EXPECT_DOUBLE_EQ(simulated_step(PipelineSchedule::interleaved_1f1b, p, m, v, 1, 2),
                         theory::interleaved_pipeline_step_s(p, m, v, v * 1.0, v * 2.0))
            << "p " << p << " m " << m << " v " << v;
    }
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
  o.schedules = {"interleaved"};
  o.micro_batches = {8};
  EXPECT_NO_THROW(check_options(o, 4));
  o.micro_batches = {6};
  EXPECT_THROW(check_options(o, 4), std::invalid_argument);  // m not a multiple of p
  o.micro_batches = {8};
  o.chunks = 1;
  EXPECT_THROW(check_options(o, 4), std::invalid_argument);  // v >= 2
  o.chunks = 3;
  EXPECT_THROW(check_options(o, 4), std::invalid_argument);  // 3 does not divide b*s = 64
  o.chunks = 2;
  o.schedules = {"gpipe"};
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
  b.chunks = 4;
  EXPECT_NE(canonical(a), canonical(b));
  b = a;
  b.overlap = true;
  EXPECT_NE(canonical(a), canonical(b));
}

}  // namespace
}  // namespace bb::strategies
