// Tests for the training-step formulas of theory/parallelism.h (the `strategies` suite's
// predictions): hand-worked values and the inputs they refuse.
#include <gtest/gtest.h>

#include <algorithm>
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

TEST(GradientBuckets, FullBucketsThenTheRemainder) {
  EXPECT_EQ(gradient_buckets_bytes(2.5 * 0x1p18, 4, 0x1p20),
            (std::vector<double>{0x1p20, 0x1p20, 0x1p19}));
  EXPECT_EQ(gradient_buckets_bytes(0x1p19, 4, 0x1p20), (std::vector<double>{0x1p20, 0x1p20}));
  EXPECT_THROW(gradient_buckets_bytes(1000, 4, 0), std::invalid_argument);
}

TEST(OverlappedAllReduce, TheBackwardHidesAllButTheLastBucketWhenItIsLongEnough) {
  // Four equal buckets ready every 2 ms of an 8 ms backward, all-reduces of 1 ms: each finishes
  // before the next bucket is ready; only the last one's 1 ms sticks out.
  constexpr double kNs = 1e-9;
  EXPECT_NEAR(
      overlapped_all_reduce_tail_s({2e-3, 4e-3, 6e-3, 8e-3}, {1e-3, 1e-3, 1e-3, 1e-3}, 8e-3), 1e-3,
      kNs);
  // All-reduces of 3 ms: they queue from the first bucket on, 2 + 4·3 = 14 ms, 6 ms past the
  // backward = max(0, 3·3 − 6) + 3, the closed form for equal buckets.
  const double a = 3e-3, t_b = 8e-3, buckets = 4;
  EXPECT_NEAR(overlapped_all_reduce_tail_s({2e-3, 4e-3, 6e-3, 8e-3}, {a, a, a, a}, t_b),
              std::max(0.0, (buckets - 1) * a - (buckets - 1) / buckets * t_b) + a, kNs);
  EXPECT_NEAR(overlapped_all_reduce_tail_s({2e-3, 4e-3, 6e-3, 8e-3}, {a, a, a, a}, t_b), 6e-3, kNs);
  // Unequal: a long first all-reduce delays the short later ones (1 + 5 = 6, then 6.5, 7 ≤ 8:
  // the last starts when ready at 8 and ends at 8.5).
  EXPECT_NEAR(
      overlapped_all_reduce_tail_s({1e-3, 2e-3, 4e-3, 8e-3}, {5e-3, 0.5e-3, 0.5e-3, 0.5e-3}, 8e-3),
      0.5e-3, kNs);
  // One bucket: nothing to overlap, the whole all-reduce after the backward (the plain step).
  EXPECT_NEAR(overlapped_all_reduce_tail_s({8e-3}, {3e-3}, 8e-3), 3e-3, kNs);
  EXPECT_DOUBLE_EQ(overlapped_all_reduce_tail_s({}, {}, 8e-3), 0);
  EXPECT_THROW(overlapped_all_reduce_tail_s({1e-3}, {}, 8e-3), std::invalid_argument);
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

TEST(InterleavedPipeline, StepBubbleAndSends) {
  // p = 4, m = 8, v = 2, a device's t_f = 1 and t_b = 2 (chunks 0.5 and 1): (16+3)·3/2 = 28.5;
  // busy 8·3 = 24, bubble 4.5 = 3/16 of it = (p−1)/(v·m).
  EXPECT_DOUBLE_EQ(interleaved_pipeline_step_s(4, 8, 2, 1, 2), 28.5);
  EXPECT_DOUBLE_EQ((28.5 - 24) / 24, interleaved_bubble_ratio(4, 8, 2));
  // The p·v − 1 = 7 chunk boundaries, down and back, sends of 0.5: + 7.
  EXPECT_DOUBLE_EQ(interleaved_pipeline_step_s(4, 8, 2, 1, 2, 0.5), 35.5);
  // One chunk per device: the 1F1B step.
  EXPECT_DOUBLE_EQ(interleaved_pipeline_step_s(4, 8, 1, 1, 2, 0.5),
                   pipeline_step_s(4, 8, 1, 2, 0.5));
  EXPECT_THROW(interleaved_pipeline_step_s(4, 8, 0, 1, 2), std::invalid_argument);
}

TEST(InterleavedPipeline, PeakChunkActivations) {
  // Warm-up 2(p−d−1) + (v−1)p forwards, plus one: p = 4, v = 2: 11, 9, 7, 5.
  const std::vector<int> want{11, 9, 7, 5};
  for (int d = 0; d < 4; ++d) {
    EXPECT_EQ(interleaved_peak_activations(4, 8, 2, d), want[static_cast<std::size_t>(d)]);
    EXPECT_EQ(pipeline_peak_activations(PipelineSchedule::interleaved_1f1b, 4, 16, d, 2),
              want[static_cast<std::size_t>(d)]);
    // m = p: every forward is warm-up, m·v held.
    EXPECT_EQ(interleaved_peak_activations(4, 4, 2, d), 8);
  }
  EXPECT_THROW(interleaved_peak_activations(4, 8, 2, 4), std::invalid_argument);
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
