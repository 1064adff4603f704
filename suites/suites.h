// Every suite boundbench knows, built on each call (no global registry).
#pragma once

#include <vector>

#include "harness/case.h"

namespace bb::suites {

std::vector<Suite> all_suites();

// Case lists per suite and backend. The *_cuda_cases lists come from CUDA builds only;
// cuda_absent.cpp gives empty lists when boundbench is built without CUDA.
std::vector<Case> stream_host_cases();
std::vector<Case> stream_cuda_cases();
std::vector<Case> harness_host_cases();
std::vector<Case> occupancy_cuda_cases();
std::vector<Case> occupancy_host_cases();

}  // namespace bb::suites
