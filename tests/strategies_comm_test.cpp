// What the strategies' NCCL engine decides without a GPU (suites/strategies/comm_plan.h): the
// all-to-all's packed shares, the communicator each message takes, the GPU each process drives
// and where the steps' buffers land in the device region.
#include "suites/strategies/comm_plan.h"

#include <gtest/gtest.h>

#include <array>
#include <deque>
#include <stdexcept>

#include "suites/strategies/strategies_plan.h"

namespace bb::strategies {
namespace {

TEST(PackShares, OffsetsArePrefixSumsInRankOrder) {
  const PackedShares s = pack_shares({3, 0, 5, 2}, 4);
  EXPECT_EQ(s.offsets, (std::vector<std::size_t>{0, 3, 3, 8}));
  EXPECT_EQ(s.counts, (std::vector<std::size_t>{3, 0, 5, 2}));
  EXPECT_EQ(s.total, 10u);
}

TEST(PackShares, RefusesCountsThatAreNotOnePerRankOrNegative) {
  EXPECT_THROW(pack_shares({1, 2}, 3), std::invalid_argument);
  EXPECT_THROW(pack_shares({1, 2, 3}, 2), std::invalid_argument);
  EXPECT_THROW(pack_shares({1, -1}, 2), std::invalid_argument);
  EXPECT_THROW(pack_shares({}, 0), std::invalid_argument);
}

TEST(Direction, BothEndsOfAMessageAgreeAndTheTwoWaysDiffer) {
  for (int a = 0; a < 5; ++a)
    for (int b = 0; b < 5; ++b) {
      if (a == b) continue;
      // The sender asks direction(me, to), the receiver direction(from, me): the same pair, so
      // they agree; a reply goes the other way, on the other communicator.
      EXPECT_NE(direction(a, b), direction(b, a)) << a << " " << b;
    }
  EXPECT_EQ(direction(0, 1), Direction::up);    // an activation forward
  EXPECT_EQ(direction(1, 0), Direction::down);  // its gradient back
  EXPECT_EQ(direction(3, 0), Direction::down);  // the last stage to the first
}

TEST(GpuForProcess, LocalRankPicksTheGpuElseTheWorldRank) {
  EXPECT_EQ(gpu_for_process(3, 11, 8, 8), 3);
  EXPECT_EQ(gpu_for_process(-1, 5, 1, 8), 5);
  EXPECT_EQ(gpu_for_process(-1, 9, 1, 8), 1);
  EXPECT_EQ(gpu_for_process(0, 0, 1, 1), 0);
}

TEST(GpuForProcess, RefusesMoreProcessesThanGpusOnANode) {
  EXPECT_THROW(gpu_for_process(0, 0, 2, 1), std::invalid_argument);
  EXPECT_THROW(gpu_for_process(0, 0, 1, 0), std::invalid_argument);
}

TEST(DeviceMirror, DisjointHostBuffersGetDisjointAlignedRanges) {
  DeviceMirror m(1 << 20);
  const std::size_t a = m.offset(0x1000, 400), b = m.offset(0x9000, 1000);
  EXPECT_EQ(a % 256, 0u);
  EXPECT_EQ(b % 256, 0u);
  EXPECT_TRUE(a + 400 <= b || b + 1000 <= a);
  EXPECT_EQ(m.ranges(), 2u);
}

TEST(DeviceMirror, APartOfAMappedBufferMapsInsideItAtTheSameDistance) {
  DeviceMirror m(1 << 20);
  const std::size_t whole = m.offset(0x10000, 4096);
  EXPECT_EQ(m.offset(0x10000 + 1024, 512), whole + 1024);  // a bucket of the gradients
  EXPECT_EQ(m.offset(0x10000 + 3584, 512), whole + 3584);  // the last bucket, to the end
  EXPECT_EQ(m.offset(0x10000, 4096), whole);               // the same buffer again
  EXPECT_EQ(m.ranges(), 1u);
}

TEST(DeviceMirror, ARangeReachingPastAMappedOneGetsItsOwn) {
  DeviceMirror m(1 << 20);
  const std::size_t small = m.offset(0x20000, 1024);
  const std::size_t grown = m.offset(0x20000, 4096);  // a larger call on the same pointer
  EXPECT_EQ(m.ranges(), 2u);
  EXPECT_TRUE(grown >= small + 1024);
  EXPECT_EQ(m.offset(0x20000 + 2048, 1024), grown + 2048);  // newest first
  EXPECT_EQ(m.offset(0x20000 + 1020, 8), grown + 1020);     // straddles the small one's end
}

TEST(DeviceMirror, SaysSoWhenTheRegionIsSpent) {
  DeviceMirror m(4096);
  m.offset(0x1000, 3000);
  EXPECT_THROW(m.offset(0x8000, 2000), std::runtime_error);
  EXPECT_EQ(m.offset(0x9000, 1024), 3072u);  // 3000 rounded up to 256, then 1024: just fits
  EXPECT_LE(m.used_bytes(), 4096u);
}

// A pipeline step's point-to-point traffic under NCCL's rules, worst case: each communicator of a
// rank runs its operations one after another in the order posted (one stream each), and a send
// ends only together with its matching receive (no buffering). The host of each stage runs the
// steps' loop (strategies_steps.cpp): a forward receives from the stage before (and waits), then
// sends to the stage after (posted, not waited for); a backward the other way; at the end it
// waits for its sends. Returns whether every stage finishes; `by_direction`: a message takes its
// direction's communicator (comm_plan.h), else every message the one communicator.
struct P2p {
  bool send;
  int peer;
};

bool pipeline_step_finishes(theory::PipelineSchedule schedule, int p, int m, bool by_direction) {
  std::vector<std::vector<P2p>> program(static_cast<std::size_t>(p));  // host order
  for (int s = 0; s < p; ++s)
    for (const PipelineOp& op : pipeline_ops(schedule, p, m, s)) {
      const int from = op.forward ? s - 1 : s + 1, to = op.forward ? s + 1 : s - 1;
      if (from >= 0 && from < p) program[std::size_t(s)].push_back({false, from});
      if (to >= 0 && to < p) program[std::size_t(s)].push_back({true, to});
    }
  const auto comm = [&](int from, int to) {
    return by_direction && direction(from, to) == Direction::down ? 1 : 0;
  };
  // streams[s][c]: stage s's operations posted on communicator c, not yet ended.
  std::vector<std::array<std::deque<P2p>, 2>> streams(static_cast<std::size_t>(p));
  std::vector<std::size_t> next(static_cast<std::size_t>(p), 0);
  std::vector<int> waiting_on(static_cast<std::size_t>(p), -1);  // the receive's communicator
  for (bool progress = true; progress;) {
    progress = false;
    for (int s = 0; s < p; ++s) {  // each host posts until it must wait for a receive
      auto& w = waiting_on[std::size_t(s)];
      if (w >= 0 && !streams[std::size_t(s)][std::size_t(w)].empty()) continue;
      w = -1;
      while (next[std::size_t(s)] < program[std::size_t(s)].size()) {
        const P2p op = program[std::size_t(s)][next[std::size_t(s)]++];
        const int c = op.send ? comm(s, op.peer) : comm(op.peer, s);
        streams[std::size_t(s)][std::size_t(c)].push_back(op);
        progress = true;
        if (!op.send) {
          w = c;
          break;
        }
      }
    }
    for (int s = 0; s < p; ++s)  // a send at the head of its stream meets its receive's
      for (int c = 0; c < 2; ++c) {
        auto& mine = streams[std::size_t(s)][std::size_t(c)];
        if (mine.empty() || !mine.front().send) continue;
        auto& theirs = streams[std::size_t(mine.front().peer)][std::size_t(c)];
        if (theirs.empty() || theirs.front().send || theirs.front().peer != s) continue;
        mine.pop_front();
        theirs.pop_front();
        progress = true;
      }
  }
  for (int s = 0; s < p; ++s)  // every host at its end, every stream drained (complete_sends)
    if (next[std::size_t(s)] < program[std::size_t(s)].size() ||
        !streams[std::size_t(s)][0].empty() || !streams[std::size_t(s)][1].empty())
      return false;
  return true;
}

TEST(PipelineOverNccl, OneCommunicatorDeadlocks1F1BTheTwoDirectionsDoNot) {
  using theory::PipelineSchedule;
  // 1F1B's steady state sends forward, then waits for a gradient from the same neighbour, whose
  // stream sends that gradient before it receives the next activation.
  EXPECT_FALSE(pipeline_step_finishes(PipelineSchedule::one_f_one_b, 2, 2, false));
  EXPECT_FALSE(pipeline_step_finishes(PipelineSchedule::one_f_one_b, 4, 8, false));
  EXPECT_TRUE(pipeline_step_finishes(PipelineSchedule::gpipe, 4, 8, false));  // no reply midway
  for (PipelineSchedule schedule : {PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b})
    for (int p : {2, 3, 4, 8})
      for (int m : {p, p + 1, 2 * p, 16})
        EXPECT_TRUE(pipeline_step_finishes(schedule, p, m, true))
            << schedule_name(schedule) << " p=" << p << " m=" << m;
}

}  // namespace
}  // namespace bb::strategies
