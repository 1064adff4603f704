// Sampling one prepared case, and the checks the harness makes of every case.
#pragma once

#include <optional>
#include <vector>

#include "harness/case.h"
#include "harness/gpu.h"

namespace bb {

// Host: steady clock around Instance::run, warm-up discarded, stopping rule applied.
Measurement measure_host(Instance& instance, const StoppingRule& rule);

// CUDA: events around the launch only, L2 flushed before every sample unless `hot`, SM clock read
// before and after.
Measurement measure_cuda(Instance& instance, const StoppingRule& rule, const GpuDevice& gpu,
                         bool hot);

// The bounds a case is held against on its backend.
struct Bounds {
  double bandwidth_bytes_per_s = 0;  // 0: unknown
  double peak_flop_per_s = 0;        // 0: unknown
  std::string bandwidth_source;      // where the bandwidth figure comes from
};

Bounds bounds_for(Backend backend, const Work& work, const GpuDevice* gpu, const HostInfo& host,
                  std::optional<double> host_peak_bytes_per_s);

// |out − ref| ≤ atol + rtol·|ref| over the whole output.
Check validation_check(const std::string& suite, const std::string& name, const Comparison& c);
// t_min ≥ max(flop/peak, bytes/BW) × (1 − tolerance); SKIP when neither bound is known.
Check roofline_check(const std::string& suite, const std::string& name, const Work& work,
                     const Bounds& bounds, const Summary& s, double tolerance);
// f_end ≥ 0.9 f_start (the SM clock did not throttle during the case).
Check clock_check(const std::string& suite, const std::string& name, const Measurement& m);

}  // namespace bb
