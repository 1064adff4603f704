#include "harness/host_threads.h"

#include <omp.h>
#include <pthread.h>
#include <sched.h>

#include <vector>

namespace bb {

int openmp_threads() { return omp_get_max_threads(); }

std::string pin_openmp_threads() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return "threads not pinned: no affinity";
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
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
  if (failures) return std::to_string(threads) + " OpenMP threads, not pinned (refused by the OS)";
  return std::to_string(threads) + " OpenMP threads pinned to CPUs " + list;
}

}  // namespace bb
