// The occupancy suite's shared constants and its checks over all measured cases.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/case.h"
#include "kernels/occupancy.h"

namespace bb::suites {

// The waves and residency spin, the DRAM chase and its table: harness/simulated_timing.h (a timing
// simulator takes its own).
inline constexpr int kDivergenceIters = 4096;  // dependent FMAs per path
inline constexpr int kBankIters = 4000;        // shared-memory words read per thread
inline constexpr int kSpillRounds = 256;       // rounds over the 64 accumulators
inline constexpr std::size_t kLatencyN16 = std::size_t{1} << 26;  // 16-byte loads: 1 GiB read
inline constexpr int kLatencyThreads = 128;                       // 4 warps per block

// A law of the occupancy suite on two counts: PASS when they agree exactly, FAIL otherwise
// (harness/checks.h point_check).
Check observed_check(const std::string& name, const std::string& law, double predicted,
                     double measured, const std::string& detail);

// Most blocks that ran on one SM at the same time, from the blocks' own %smid and start/end
// %globaltimer records (a block ending at the instant another starts does not overlap it).
int max_co_resident(const std::vector<kernels::BlockRecord>& records);

// Latency hiding: the fewest warps per SM reaching 90% of the best streaming bandwidth lies within
// a factor 2 of Little's law, BW x latency / (SMs x bytes in flight per warp). Spills: capping
// registers (__launch_bounds__(256, 8)) makes the kernel spill where the uncapped one does not;
// the slowdown is reported.
// Waves: measured waves round(t(N) / t(one full wave)) == ceil(N / blocks per wave) for every N.
// Divergence: time linear in the number of paths (R² ≥ 0.95, positive slope). Bank conflicts: time
// linear in the conflict ways (R² ≥ 0.95), and the padded stride (33) within 25% of stride 1.
std::vector<Check> occupancy_suite_checks(const std::vector<CaseResult>& results);

}  // namespace bb::suites
