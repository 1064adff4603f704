// A streaming read of n doubles, x[i] = i mod 7, by all OpenMP threads `passes` times per sample:
// the host read sweep's points (bandwidth) and the host's side of Little's law (occupancy).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "harness/case.h"
#include "kernels/hierarchy.h"
#include "kernels/stream.h"
#include "suites/common/host_buffer.h"

namespace bb::suites {

// x[i] = i mod 7 (small integers: every partial sum is exact, so any order gives the same total)
// on the OpenMP threads, split statically as the read kernels split it.
inline void fill_mod7(double* x, std::size_t n) {
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<double>(i % 7);
}

// Σ (i mod 7) over [0, m): 21 per full period plus the partial one. Exact in fp64.
inline double mod7_sum(std::size_t m) {
  const std::size_t r = m % 7;
  return static_cast<double>(m / 7 * 21 + r * (r - 1) / 2);
}

class HostRead final : public Instance {
 public:
  // `capacity`: the elements to allocate, at least n (a sweep's largest point: host_buffer.h's pool
  // then hands one array from point to point; only where one NUMA node makes first touch moot).
  HostRead(std::size_t n, int passes, std::size_t capacity = 0)
      : n_(n), passes_(passes), x_(allocate_host<double>(std::max(n, capacity))) {
    // The same static split as the kernel: each thread first-touches the part it will read.
    kernels::fill_value_host(x_.get(), n_, 0.0);
    fill_mod7(x_.get(), n_);
  }
  Comparison validate() override {
    const std::vector<double> out = {kernels::read_host(x_.get(), n_ / 3, 1),
                                     kernels::read_host(x_.get(), n_, passes_)};
    const std::vector<double> ref = {mod7_sum(n_ / 3), passes_ * mod7_sum(n_)};
    return compare<double, double>(out, ref, Tolerance{0, 0});
  }
  void run(gpu_stream) override { sink_ += kernels::read_host(x_.get(), n_, passes_); }

 private:
  std::size_t n_;
  int passes_;
  HostArray<double> x_;
  double sink_ = 0;
};

}  // namespace bb::suites
