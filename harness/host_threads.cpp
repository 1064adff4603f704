#include "harness/host_threads.h"

#include <omp.h>
#include <pthread.h>

#include <vector>

namespace bb {

int openmp_threads() { return omp_get_max_threads(); }

OpenmpPinning::OpenmpPinning() {
  CPU_ZERO(&caller_);
  have_caller_ = pthread_getaffinity_np(pthread_self(), sizeof caller_, &caller_) == 0;
  if (!have_caller_) {
    description_ = "threads not pinned: no affinity";
    return;
  }
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &caller_)) cpus.push_back(c);
  const int threads = omp_get_max_threads();
  int failures = 0;
#pragma omp parallel num_threads(threads) reduction(+ : failures)
  {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpus[static_cast<std::size_t>(omp_get_thread_num()) % cpus.size()], &one);
    failures += pthread_setaffinity_np(pthread_self(), sizeof one, &one) != 0;
  }
  std::string list;
  for (int t = 0; t < threads; ++t)
    list += (t ? "," : "") + std::to_string(cpus[static_cast<std::size_t>(t) % cpus.size()]);
  description_ = failures
                     ? std::to_string(threads) + " OpenMP threads, not pinned (refused by the OS)"
                     : std::to_string(threads) + " OpenMP threads pinned to CPUs " + list;
}

OpenmpPinning::~OpenmpPinning() {
  if (!have_caller_) return;
#pragma omp parallel num_threads(omp_get_max_threads())
  pthread_setaffinity_np(pthread_self(), sizeof caller_, &caller_);
}

}  // namespace bb
