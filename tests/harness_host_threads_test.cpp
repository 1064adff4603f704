// OpenMP pinning: each thread on its own CPU for the run, and the caller's CPUs given back after
// (before, the caller stayed on CPU 0: a second run pinned both threads to CPU 0, and the threads
// and processes it started afterwards, the collectives' ranks, shared one core).
#include "harness/host_threads.h"

#include <gtest/gtest.h>
#include <pthread.h>

#include <string>

namespace bb {
namespace {

cpu_set_t caller_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(pthread_getaffinity_np(pthread_self(), sizeof set, &set), 0);
  return set;
}

TEST(OpenmpPinning, PinsTheCallerForTheRunAndGivesItsCpusBack) {
  const cpu_set_t before = caller_cpus();
  {
    OpenmpPinning pinning;
    if (pinning.description().find("pinned to CPUs") == std::string::npos)
      GTEST_SKIP() << pinning.description();
    const cpu_set_t during = caller_cpus();
    EXPECT_EQ(CPU_COUNT(&during), 1) << pinning.description();
  }
  const cpu_set_t after = caller_cpus();
  EXPECT_TRUE(CPU_EQUAL(&before, &after))
      << CPU_COUNT(&before) << " CPUs before, " << CPU_COUNT(&after) << " after";
}

TEST(OpenmpPinning, ASecondRunSpreadsTheThreadsAsTheFirstDid) {
  std::string first, second;
  { first = OpenmpPinning().description(); }
  { second = OpenmpPinning().description(); }
  EXPECT_EQ(first, second);
}

}  // namespace
}  // namespace bb
