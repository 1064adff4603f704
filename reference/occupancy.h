// CPU references for the occupancy suite's kernels: the same arithmetic in the same order, so
// results are bit-exact (explicit fmaf; sums of small integers are exact in fp32).
#pragma once

#include <cmath>

namespace bb::reference {

// Divergence kernel: lane l runs path l % paths, `iters` FMAs x = x·0.9999 + 1e-4·(path + 1).
inline float divergence_lane(int lane, int paths, int iters) {
  float x = 1.0f + static_cast<float>(lane) * 1e-3f;
  const int path = lane % paths;
  const float c = 1e-4f * static_cast<float>(path + 1);
  for (int i = 0; i < iters; ++i) x = std::fmaf(x, 0.9999f, c);
  return x;
}

// Spill kernel: 64 accumulators a_j = tid·0.001 + j; each round a_j += (a_{j+1} − a_j)·0.5 as one
// FMA (the last moves toward the first's value from before the round); the result is their sum.
inline float spill_thread(int tid, int rounds) {
  float acc[64];
  const float seed = static_cast<float>(tid) * 1e-3f;
  for (int j = 0; j < 64; ++j) acc[j] = seed + static_cast<float>(j);
  for (int r = 0; r < rounds; ++r) {
    const float first = acc[0];
    for (int j = 0; j < 63; ++j) acc[j] = std::fmaf(acc[j + 1] - acc[j], 0.5f, acc[j]);
    acc[63] = std::fmaf(first - acc[63], 0.5f, acc[63]);
  }
  float sum = 0;
  for (int j = 0; j < 64; ++j) sum += acc[j];
  return sum;
}

// Shared-memory word j holds (7j mod 13).
inline float bank_word(int j) { return static_cast<float>((j * 7) % 13); }

// Bank-conflict kernel: four interleaved partial sums of words (lane·stride + i) mod 1024.
inline float bank_lane(int lane, int stride_words, int iters) {
  float a[4] = {0, 0, 0, 0};
  const int base = lane * stride_words;
  for (int i = 0; i < iters; i += 4)
    for (int u = 0; u < 4; ++u) a[u] += bank_word((base + i + u) & 1023);
  return (a[0] + a[1]) + (a[2] + a[3]);
}

}  // namespace bb::reference
