#include "harness/measure.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/checks.h"
#include "harness/nvml.h"
#include "theory/roofline.h"

namespace bb {
namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

template <class SampleFn>
Measurement sample_until_stable(const StoppingRule& rule, SampleFn&& sample_s) {
  for (std::size_t i = 0; i < rule.warmup_samples; ++i) sample_s();
  Sampler sampler(rule);
  Measurement m;
  const auto t0 = clock_type::now();
  do {
    sampler.add(sample_s());
    m.stop = sampler.should_stop(seconds_since(t0));
  } while (m.stop == StopReason::none);
  const double wall_s = seconds_since(t0);
  m.summary = sampler.summary();
  m.samples_s.assign(sampler.samples().begin(), sampler.samples().end());
  m.harness_overhead_s = (wall_s - m.summary.total_s) / static_cast<double>(m.summary.samples);
  return m;
}

}  // namespace

Measurement measure_host(Instance& instance, const StoppingRule& rule) {
  return sample_until_stable(rule, [&] {
    const auto t = clock_type::now();
    instance.run(nullptr);
    return seconds_since(t);
  });
}

Measurement measure_cuda(Instance& instance, const StoppingRule& rule, const GpuDevice& gpu,
                         bool hot, const Nvml* nvml) {
  GpuSession session(gpu, !hot);
  const auto sample_s = [&] {
    return session.time_sample_s([&](gpu_stream s) { instance.run(s); });
  };
  // Warm up first, so that the starting clock is the loaded clock, not the idle one.
  for (std::size_t i = 0; i < std::max<std::size_t>(1, rule.warmup_samples); ++i) sample_s();
  const double clock_start_hz = session.measure_sm_clock_hz();
  StoppingRule measured = rule;
  measured.warmup_samples = 0;
  Measurement m = sample_until_stable(measured, sample_s);
  m.clock_start_hz = clock_start_hz;
  m.clock_end_hz = session.measure_sm_clock_hz();
  // The sustained clock: NVML's applications clock where it answers, else the rated one.
  m.clock_reference_hz = gpu.sm_clock_hz;
  m.clock_reference_source = "rated clock, cudaDevAttrClockRate";
  if (const auto c = nvml ? nvml->clocks(gpu.pci_bus_id) : std::nullopt) {
    if (c->applications_sm_hz > 0) {
      m.clock_reference_hz = c->applications_sm_hz;
      m.clock_reference_source = "NVML applications clock";
    }
    m.clock_event_reasons = c->event_reasons;
    m.clock_reasons_known = c->reasons_known;
  }
  return m;
}

Bounds bounds_for(Backend backend, const Work& work, const GpuDevice* gpu, const HostInfo& host,
                  std::optional<double> host_peak_bytes_per_s) {
  Bounds b;
  const bool dram = work.memory_level == "dram";
  if (backend == Backend::cuda && gpu) {
    if (dram) b.bandwidth_bytes_per_s = gpu->peak_dram_bytes_per_s;
    b.bandwidth_source = "2 x memory clock x bus width / 8 of " + gpu->name;
    b.peak_flop_per_s =
        work.cuda_cores_only
            ? gpu->peak_cuda_core_flop_per_s[static_cast<std::size_t>(work.precision)]
            : gpu->peak_flop_per_s(work.precision);
    return b;
  }
  if (host_peak_bytes_per_s && dram) {
    b.bandwidth_bytes_per_s = *host_peak_bytes_per_s;
    b.bandwidth_source = "--host-peak-bw";
  }
  // The host estimate covers fp64 and fp32 (twice the lanes); other precisions stay unknown. It is
  // a bound only when the clock is the maximum one (cpufreq); "cpu MHz" can be below turbo.
  const double fp64 = host.clock_is_max ? host.peak_fp64_flop_per_s_estimate() : 0.0;
  if (work.precision == theory::Precision::fp64) b.peak_flop_per_s = fp64;
  if (work.precision == theory::Precision::fp32) b.peak_flop_per_s = 2 * fp64;
  return b;
}

Check validation_check(const std::string& suite, const std::string& name, const Comparison& c) {
  const CheckHead head{suite, name + "/validate",
                       "|out - ref| <= atol + rtol*|ref| for every element (NaN never matches)"};
  // Nothing compared, or a trivial reference: the test itself is broken, whatever the count.
  Check k =
      c.checked > 0 && !c.reference_trivial ? exact_count(head, 0, c.mismatches) : fault(head, "");
  k.predicted = 0;
  k.measured = static_cast<double>(c.mismatches);
  k.tolerance = c.tolerance.rtol;
  k.reason =
      fmt::format("atol {:.3g}, rtol {:.3g}: ", c.tolerance.atol, c.tolerance.rtol) + c.describe();
  return k;
}

Check roofline_check(const std::string& suite, const std::string& name, const Work& work,
                     const Bounds& bounds, const Summary& s, double tolerance) {
  const CheckHead head{suite, name + "/roofline",
                       "t_min >= max(flop/peak, bytes/BW) * (1 - tolerance)", CheckKind::law,
                       "t_min"};
  const bool need_bw = work.bytes() > 0, need_peak = work.flop > 0;
  const bool have_bw = bounds.bandwidth_bytes_per_s > 0, have_peak = bounds.peak_flop_per_s > 0;
  const double bytes = have_bw ? work.bytes() : 0, flop = have_peak ? work.flop : 0;
  if (bytes == 0 && flop == 0) {
    Check k = skipped(head, !need_bw && !need_peak ? "the case declares no bytes and no flop"
                            : work.memory_level != "dram"
                                ? "no bandwidth bound for memory level '" + work.memory_level + "'"
                                : "peak bandwidth unknown on this backend (host: pass "
                                  "--host-peak-bw BYTES_PER_S, from the memory's datasheet: "
                                  "channels x MT/s x 8)");
    k.tolerance = tolerance;
    k.measured = s.min_s;
    return k;
  }
  const theory::RooflineTime t =
      theory::roofline_time(flop, bytes, bounds.peak_flop_per_s, bounds.bandwidth_bytes_per_s);
  // The fastest sample is judged as it is (a point): no sample may beat physics.
  Check k = at_least(head, t.bound_s * (1 - tolerance), Interval::point(s.min_s));
  k.predicted = t.bound_s;
  k.tolerance = tolerance;
  const bool ok = k.verdict != Verdict::fail;
  // With one side of the bound unknown, what is known is still a bound: beating it is a FAIL, but
  // meeting it proves little, so the check is then a SKIP that says what was left out.
  const bool partial = (need_bw && !have_bw) || (need_peak && !have_peak);
  k.reason =
      fmt::format("bound {:.4g} s, fastest sample {:.4g} s ({:.1f}% of bound speed)", t.bound_s,
                  s.min_s, 100 * t.bound_s / s.min_s) +
      (t.memory_bound ? "; memory-bound, BW from " + bounds.bandwidth_source : "; compute-bound") +
      (need_bw && !have_bw
           ? work.memory_level != "dram"
                 ? "; partial bound: no bandwidth bound for memory level '" + work.memory_level +
                       "'"
                 : "; partial bound: peak bandwidth unknown (host: pass --host-peak-bw BYTES_PER_S)"
           : "") +
      (need_peak && !have_peak ? "; partial bound: peak FLOP/s unknown" : "") +
      (ok ? "" : "; faster than physically possible: bytes or flop miscounted");
  return partial ? pass_proves_little(std::move(k), "a partial bound met proves little") : k;
}

namespace {
constexpr double kThrottleFraction = 0.75;  // nvbench's threshold (FACTS.md)
}

bool clock_throttled(const Measurement& m) {
  const bool slow = m.clock_reference_hz > 0 && std::min(m.clock_start_hz, m.clock_end_hz) <
                                                    kThrottleFraction * m.clock_reference_hz;
  return slow || (m.clock_reasons_known && clock_event_is_slowdown(m.clock_event_reasons));
}

Check clock_check(const std::string& suite, const std::string& name, const Measurement& m) {
  const CheckHead head{suite, name + "/clock",
                       "min(f_sm start, end) >= 0.75 * sustained SM clock, and no thermal or "
                       "hardware slowdown reported (no throttling during the case)",
                       CheckKind::law, "min(f_sm_start, f_sm_end)"};
  const double lowest = std::min(m.clock_start_hz, m.clock_end_hz);
  std::string reason = fmt::format("SM clock {:.0f} MHz before, {:.0f} MHz after",
                                   m.clock_start_hz / 1e6, m.clock_end_hz / 1e6);
  if (m.clock_reference_hz > 0)
    reason += fmt::format("; sustained {:.0f} MHz ({})", m.clock_reference_hz / 1e6,
                          m.clock_reference_source);
  if (m.clock_reasons_known) {
    const auto names = clock_event_reason_names(m.clock_event_reasons);
    reason += "; NVML clock events: " +
              (names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", ")));
  }
  if (m.clock_reference_hz <= 0) {
    Check k = skipped(head, reason + "; no sustained clock known: not judged");
    k.measured = lowest;
    return k;
  }
  Check k = at_least(head, kThrottleFraction * m.clock_reference_hz, Interval::point(lowest));
  k.predicted = kThrottleFraction * m.clock_reference_hz;
  k.tolerance = 1 - kThrottleFraction;
  if (m.clock_reasons_known && clock_event_is_slowdown(m.clock_event_reasons)) {
    k.verdict = Verdict::fail;
    reason += "; a slowdown: throttled";
  }
  k.reason = reason;
  return k;
}

}  // namespace bb
