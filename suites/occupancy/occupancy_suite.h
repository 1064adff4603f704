// The occupancy suite's shared constants and its checks over all measured cases.
#pragma once

#include <cstdint>
#include <vector>

#include "harness/case.h"
#include "kernels/occupancy.h"

namespace bb::suites {

inline constexpr std::uint64_t kWavesSpinNs = 50'000;  // each block of the waves cases
inline constexpr int kDivergenceIters = 4096;          // dependent FMAs per path
inline constexpr int kBankIters = 4000;                // shared-memory words read per thread

// Most blocks that ran on one SM at the same time, from the blocks' own %smid and start/end
// %globaltimer records (a block ending at the instant another starts does not overlap it).
int max_co_resident(const std::vector<kernels::BlockRecord>& records);

// Waves: measured waves round(t(N) / t(one full wave)) == ceil(N / blocks per wave) for every N.
// Divergence: time linear in the number of paths (R² ≥ 0.95, positive slope). Bank conflicts: time
// linear in the conflict ways (R² ≥ 0.95), and the padded stride (33) within 25% of stride 1.
std::vector<Check> occupancy_suite_checks(const std::vector<CaseResult>& results);

}  // namespace bb::suites
