// Every suite boundbench knows, built on each call (no global registry).
#pragma once

#include <vector>

#include "harness/case.h"

namespace bb::suites {

// The machine the case lists are built for: sweeps span its caches (4 KiB up to a multiple of the
// last-level cache or L2), and --quick runs take fewer points. Null host or GPU: nominal sizes
// (32 MiB LLC, 50 MiB L2), as `list` shows without hardware.
struct SuiteTarget {
  const HostInfo* host = nullptr;
  const GpuDevice* gpu = nullptr;
  bool quick = false;
};

std::vector<Suite> all_suites(const SuiteTarget& target = {});

// Case lists per suite and backend. The *_cuda_cases lists come from CUDA builds only;
// cuda_absent.cpp gives empty lists when boundbench is built without CUDA.
std::vector<Case> stream_host_cases();
std::vector<Case> stream_cuda_cases();
std::vector<Case> harness_host_cases();
std::vector<Case> occupancy_cuda_cases();
std::vector<Case> occupancy_host_cases();

}  // namespace bb::suites
