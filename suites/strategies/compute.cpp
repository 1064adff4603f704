#include "suites/strategies/compute.h"

#include <omp.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <stdexcept>

#include "kernels/gemm_precision.h"
#include "suites/strategies/compute_device.h"

namespace bb::strategies {
namespace {

// The GEMMs a forward shape's backward runs: dA = dC·Bᵀ (m×k from n) and dB = Aᵀ·dC (k×n from m).
std::vector<GemmShape> backward_only(const std::vector<GemmShape>& gemms) {
  std::vector<GemmShape> all;
  for (const GemmShape& g : gemms) {
    all.push_back({g.m, g.k, g.n});
    all.push_back({g.k, g.n, g.m});
  }
  return all;
}

// The forward GEMMs and their backward's.
std::vector<GemmShape> with_backward(const std::vector<GemmShape>& gemms) {
  std::vector<GemmShape> all = gemms;
  for (const GemmShape& g : backward_only(gemms)) all.push_back(g);
  return all;
}

double thread_cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// A host wait that holds no core: clock_nanosleep to now + `seconds`.
void sleep_for(double seconds) {
  timespec deadline{};
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  const double whole = std::floor(seconds);
  deadline.tv_sec += static_cast<time_t>(whole);
  deadline.tv_nsec += static_cast<long>(std::llround((seconds - whole) * 1e9));
  if (deadline.tv_nsec >= 1000000000L) {
    deadline.tv_sec += 1;
    deadline.tv_nsec -= 1000000000L;
  }
  int rc = 0;
  while ((rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nullptr)) == EINTR) {
  }
  if (rc != 0) throw std::runtime_error("clock_nanosleep failed");
}

}  // namespace

double Compute::take_core_share() {
  const double share = wall_s_ > 0 ? cpu_s_ / wall_s_ : 1;
  cpu_s_ = wall_s_ = 0;
  return share;
}

Compute::Compute(bool synthetic, double synthetic_flop_per_s, const std::vector<GemmShape>& largest,
                 bool on_gpu)
    : synthetic_(synthetic), rate_(synthetic_flop_per_s) {
  if (on_gpu)
    device_ = make_device_compute(synthetic_ ? std::vector<GemmShape>{} : with_backward(largest));
  if (synthetic_ || device_) return;
  omp_set_num_threads(1);  // one thread per rank: the ranks are the parallelism
  std::size_t a = 1, b = 1, c = 1;
  for (const GemmShape& g : with_backward(largest)) {
    a = std::max(a, std::size_t(g.m) * std::size_t(g.k));
    b = std::max(b, std::size_t(g.k) * std::size_t(g.n));
    c = std::max(c, std::size_t(g.m) * std::size_t(g.n));
  }
  // Small values whose sums stay far from overflow; the results are not checked (the GEMM kernel
  // has its own tests): here it is the work that counts.
  a_.assign(a, 0.5f);
  b_.assign(b, 0.25f);
  c_.assign(c, 0.0f);
}

double Compute::wait(double seconds) {
  const double start = now_s();
  if (device_) {
    device_->wait(seconds);
  } else {
    sleep_for(seconds);
  }
  const double taken = now_s() - start;
  ++waits_;
  max_overshoot_s_ = std::max(max_overshoot_s_, taken - seconds);
  overshoot_sum_s_ += taken - seconds;
  return taken;
}

double Compute::forward(const std::vector<GemmShape>& gemms) {
  return synthetic_ ? wait(forward_flop(gemms) / rate_) : run(gemms);
}

double Compute::backward(const std::vector<GemmShape>& gemms) {
  return synthetic_ ? wait(backward_flop(gemms) / rate_) : run(backward_only(gemms));
}

double Compute::run(const std::vector<GemmShape>& gemms) {
  if (device_) {
    // Timed on the host clock around the call (which returns once the GPU is done).
    const double start = now_s();
    device_->gemms(gemms);
    return now_s() - start;
  }
  const double start = now_s(), cpu_start = thread_cpu_s();
  for (const GemmShape& g : gemms) {
    if (std::size_t(g.m) * std::size_t(g.k) > a_.size() ||
        std::size_t(g.k) * std::size_t(g.n) > b_.size() ||
        std::size_t(g.m) * std::size_t(g.n) > c_.size())
      throw std::logic_error("strategies: a GEMM larger than the buffers planned");
    kernels::gemm_fp32_host(a_.data(), b_.data(), c_.data(), g.m, g.n, g.k);
  }
  const double taken = now_s() - start;
  cpu_s_ += thread_cpu_s() - cpu_start;
  wall_s_ += taken;
  return taken;
}

}  // namespace bb::strategies
