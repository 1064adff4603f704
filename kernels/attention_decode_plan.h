// Decode attention's split-KV plan (attention.cu's decode kernel): host arithmetic, apart so that
// it is tested without a GPU.
#pragma once

#include <algorithm>
#include <cstddef>

#include "reference/attention.h"
#include "theory/occupancy.h"

namespace bb::kernels {

inline constexpr int kDecodeMaxHeads = 4;    // query heads a block serves at most
inline constexpr int kDecodeMinChunk = 256;  // positions a split covers at least
// What a wave past the first costs the plan, as a share of the device's time: its blocks' prologue
// (the query loads) and epilogue (the warps' merge, the split's state). An estimate, not measured:
// it only ranks plans, so that one wave nearly full beats more waves barely fuller.
inline constexpr double kDecodeExtraWaveCost = 0.02;

struct DecodePlan {
  int heads_per_block;  // query heads a block serves: the largest of 4, 2, 1 dividing the group
  int slices;           // blocks along one group: group / heads_per_block
  int splits;           // chunks of the positions
  int chunk;            // positions per split (the last may be shorter)
};

// `slots`: blocks the device holds at once (SMs × resident blocks of the decode kernel); n ≥ 1
// (check_decode_dims), so one split at least is tried. The splits, at most ⌈n / kDecodeMinChunk⌉
// (so a chunk may be a little shorter than kDecodeMinChunk: n = 257 gives 2 of 129) and at most
// `slots`, that keep the device's slots busiest: the waves' fill (theory::wave_efficiency_fraction)
// less kDecodeExtraWaveCost per wave past the first, the fewest splits on a tie. An H200 (132
// slots) at B 8, H_kv 8 (64 rows of blocks): 2 splits, one wave 97% full; 46 slots: 2 splits, 3
// waves 93% full (1 split: 1.4 waves, 70%).
inline DecodePlan decode_plan(const reference::AttentionDims& s, long long slots) {
  const int group = static_cast<int>(s.heads / s.kv_heads), n = static_cast<int>(s.n);
  int per_block = kDecodeMaxHeads;
  while (group % per_block != 0) per_block /= 2;
  const int slices = group / per_block;
  const long long rows = static_cast<long long>(s.batch * s.kv_heads) * slices;
  slots = std::max(slots, 1LL);
  // More splits than slots gives every row a wave of its own or more: never better.
  const long long most = std::min<long long>((n + kDecodeMinChunk - 1) / kDecodeMinChunk, slots);
  long long splits = 1;
  double best = -1;
  for (long long sp = 1; sp <= most; ++sp) {
    const long long blocks = rows * sp;
    const double score =
        theory::wave_efficiency_fraction(blocks, slots, 1) -
        kDecodeExtraWaveCost * static_cast<double>(theory::waves(blocks, slots, 1) - 1);
    if (score > best) best = score, splits = sp;
  }
  const int chunk = static_cast<int>((n + splits - 1) / splits);
  return {per_block, slices, (n + chunk - 1) / chunk, chunk};
}

}  // namespace bb::kernels
