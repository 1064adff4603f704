// A step's compute on one rank: `synthetic`, a wait of the declared duration (flop / the declared
// rate) that holds no core, so that schedule laws can be checked with more ranks than cores; or
// `gemm`, the host GEMM kernel on the layer's shapes with one thread. Each call returns the
// seconds it took, and the synthetic wait keeps its error (taken − declared) for the report.
// With a DeviceCompute (--engine nccl: compute_device.h) both run on the GPU instead.
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "suites/strategies/strategies_plan.h"

namespace bb::strategies {

class DeviceCompute;

// The steady clock in seconds: what the compute and the steps time themselves with.
inline double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

class Compute {
 public:
  // `largest`: the shapes whose buffers the GEMMs need at most (gemm only). `on_gpu`: run the
  // compute on this process's GPU (make_device_compute) instead of the host.
  Compute(bool synthetic, double synthetic_flop_per_s, const std::vector<GemmShape>& largest,
          bool on_gpu = false);
  // The forward (or backward: dA and dB of each) GEMMs of `gemms`; returns the seconds taken.
  double forward(const std::vector<GemmShape>& gemms);
  double backward(const std::vector<GemmShape>& gemms);
  // A synthetic wait of `seconds` (no GEMM); returns the seconds taken.
  double wait(double seconds);

  bool synthetic() const { return synthetic_; }
  // GEMM: the share of a core this rank's compute had since the last call (its thread's CPU time
  // over the wall time; 1 when it ran alone on a core), and restarts the count. Synthetic, GPU: 1.
  double take_core_share();
  // The synthetic waits so far: the largest and mean overshoot (s).
  double max_overshoot_s() const { return max_overshoot_s_; }
  double mean_overshoot_s() const { return waits_ ? overshoot_sum_s_ / waits_ : 0; }

 private:
  // The GEMMs `gemms` (m×n from k each) on the GPU or the host; returns the seconds taken.
  double run(const std::vector<GemmShape>& gemms);
  bool synthetic_;
  double rate_;
  std::vector<float> a_, b_, c_;
  double cpu_s_ = 0, wall_s_ = 0;  // GEMM compute since take_core_share()
  int waits_ = 0;
  double max_overshoot_s_ = 0, overshoot_sum_s_ = 0;
  std::shared_ptr<DeviceCompute> device_;  // null: on the host
};

}  // namespace bb::strategies
