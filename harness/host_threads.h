// Host worker threads: OpenMP, each thread pinned to one CPU of the process's affinity mask.
#pragma once

#include <string>

namespace bb {

// Pins every OpenMP thread to its own CPU (thread i → i-th allowed CPU). libgomp reuses its
// threads, so later parallel regions keep the pinning. Returns a one-line description, e.g.
// "2 OpenMP threads pinned to CPUs 0,1", or why pinning was not possible.
std::string pin_openmp_threads();

int openmp_threads();

}  // namespace bb
