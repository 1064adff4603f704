// Tests for the training-step formulas of theory/parallelism.h (the `strategies` suite's
// predictions): hand-worked values and the inputs they refuse.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "theory/collectives.h"
#include "theory/parallelism.h"

namespace bb::theory {
namespace {

TEST(DataParallelStep, AccumulationThenAllReduce) {
  // 4 micro-steps of 2 ms, then a 3 ms all-reduce.
  EXPECT_DOUBLE_EQ(data_parallel_step_s(4, 2e-3, 3e-3), 11e-3);
  EXPECT_DOUBLE_EQ(data_parallel_step_s(1, 2e-3, 0), 2e-3);
}

TEST(BucketedAllReduce, FullBucketsAndTheRemainder) {
  // 4 ranks, α = 10 µs, β = 1 ns/B: one all-reduce of n bytes = 6α + 1.5·n·β.
  const double alpha = 1e-5, beta = 1e-9;
  const double one_mib = 6 * alpha + 1.5 * 0x1p20 * beta;
  const double rest = 6 * alpha + 1.5 * 0x1p19 * beta;
  // 2.5 MiB of fp32 parameters in 1 MiB buckets: two full buckets and half a bucket.
  EXPECT_DOUBLE_EQ(bucketed_all_reduce_s(2.5 * 0x1p18, 4, 0x1p20, 4, alpha, beta),
                   2 * one_mib + rest);
  // A bucket larger than the gradients: one all-reduce, the unbucketed formula.
  EXPECT_DOUBLE_EQ(bucketed_all_reduce_s(1000, 4, 1e9, 4, alpha, beta),
                   gradient_all_reduce_s(1000, 4, 4, alpha, beta));
  EXPECT_THROW(bucketed_all_reduce_s(1000, 4, 0, 4, alpha, beta), std::invalid_argument);
}

TEST(PipelineStep, GpipeTimeAndItsBubble) {
  // p = 4, m = 8, t_f = 1, t_b = 2: (8+3)·3 = 33; busy 8·3 = 24; idle 9/33 = 3/11 = (p−1)/(m+p−1).
  EXPECT_DOUBLE_EQ(pipeline_step_s(4, 8, 1, 2), 33);
  EXPECT_DOUBLE_EQ(1 - 24.0 / pipeline_step_s(4, 8, 1, 2), pipeline_bubble_fraction(4, 8));
  // Three sends of 0.5 down and three back: + 3.
  EXPECT_DOUBLE_EQ(pipeline_step_s(4, 8, 1, 2, 0.5), 36);
  EXPECT_THROW(pipeline_step_s(0, 8, 1, 2), std::invalid_argument);
}

TEST(PipelinePeakActivations, GpipeHoldsEveryMicroBatch1F1BAtMostTheStagesLeft) {
  for (int s = 0; s < 4; ++s)
    EXPECT_EQ(pipeline_peak_activations(PipelineSchedule::gpipe, 4, 16, s), 16);
  const std::vector<int> one_f_one_b{4, 3, 2, 1};
  for (int s = 0; s < 4; ++s)
    EXPECT_EQ(pipeline_peak_activations(PipelineSchedule::one_f_one_b, 4, 16, s),
              one_f_one_b[static_cast<std::size_t>(s)]);
  // Fewer micro-batches than stages: min(m, p − stage).
  EXPECT_EQ(pipeline_peak_activations(PipelineSchedule::one_f_one_b, 4, 2, 0), 2);
  EXPECT_THROW(pipeline_peak_activations(PipelineSchedule::gpipe, 4, 16, 4), std::invalid_argument);
}

TEST(TensorParallelLayer, MegatronFlop) {
  // b = 2, s = 8, h = 64, t = 4: 24·2·8·64²/4 = 393216.
  EXPECT_DOUBLE_EQ(tensor_parallel_layer_forward_flop(2, 8, 64, 4), 393216);
  EXPECT_THROW(tensor_parallel_layer_forward_flop(2, 8, 64, 0), std::invalid_argument);
}

TEST(ExpertLoad, MaxOverMean) {
  const double uniform[] = {8, 8, 8, 8};
  EXPECT_DOUBLE_EQ(expert_load_imbalance(uniform, 4), 1);
  const double skewed[] = {16, 8, 4, 4};  // mean 8
  EXPECT_DOUBLE_EQ(expert_load_imbalance(skewed, 4), 2);
  const double none[] = {0, 0};
  EXPECT_THROW(expert_load_imbalance(none, 2), std::invalid_argument);
}

}  // namespace
}  // namespace bb::theory
