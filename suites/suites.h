// The suites' case lists, which all_suites() (suites/registry.h; suites.cpp) gathers.
#pragma once

#include <vector>

#include "harness/case.h"
#include "suites/registry.h"

namespace bb::suites {

// Case lists per suite and backend. The *_cuda_cases lists come from CUDA builds only;
// cuda_absent.cpp gives empty lists when boundbench is built without CUDA.
std::vector<Case> stream_host_cases();
std::vector<Case> stream_cuda_cases();
std::vector<Case> harness_host_cases();
std::vector<Case> harness_cuda_cases();
std::vector<Case> occupancy_cuda_cases();
std::vector<Case> occupancy_host_cases();

}  // namespace bb::suites
