// Host worker threads: OpenMP, each thread pinned to one CPU of the caller's affinity mask.
#pragma once

#include <sched.h>

#include <string>

namespace bb {

// Pins every OpenMP thread to its own CPU (thread i → i-th CPU the caller may run on) for the
// object's lifetime; libgomp reuses its threads, so later parallel regions keep the pinning.
// The calling thread is OpenMP's thread 0: it is pinned too, and the destructor gives every
// thread back the caller's mask, so that what the caller does afterwards (threads, processes it
// starts, a second pinning) is not confined to CPU 0.
class OpenmpPinning {
 public:
  OpenmpPinning();
  ~OpenmpPinning();
  OpenmpPinning(const OpenmpPinning&) = delete;
  OpenmpPinning& operator=(const OpenmpPinning&) = delete;
  // "2 OpenMP threads pinned to CPUs 0,1", or why pinning was not possible.
  const std::string& description() const { return description_; }

 private:
  cpu_set_t caller_{};
  bool have_caller_ = false;
  std::string description_;
};

int openmp_threads();

}  // namespace bb
