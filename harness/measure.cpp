#include "harness/measure.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/checks.h"
#include "harness/nvml.h"
#include "theory/roofline.h"

namespace bb {
namespace {

using clock_type = std::chrono::steady_clock;
constexpr double kThrottleFraction = 0.75;  // nvbench's threshold (FACTS.md)

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

// The calling thread's CPU time (as Google Benchmark's default CPU timer).
double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// A group's members' samples with the CPU time each took and how many, per member.
struct CpuTally {
  explicit CpuTally(std::size_t members) : cpu_s(members, 0.0), taken(members, 0) {}
  std::vector<double> cpu_s;
  std::vector<std::size_t> taken;
  template <class F>
  double operator()(std::size_t member, F&& sample) {
    const double c0 = thread_cpu_s();
    const double t = sample();
    cpu_s[member] += thread_cpu_s() - c0;
    ++taken[member];
    return t;
  }
  double per_sample_s(std::size_t member) const {
    return cpu_s[member] / static_cast<double>(taken[member]);
  }
};

// Checks that the group has one rule per member; returns its warm-up rounds: the largest of the
// rules', at least `at_least`.
std::size_t group_warmup(std::span<Instance* const> instances, std::span<const StoppingRule> rules,
                         std::size_t at_least) {
  if (instances.empty() || instances.size() != rules.size())
    throw std::invalid_argument("a pairing group needs one stopping rule per member");
  for (const auto& r : rules) at_least = std::max(at_least, r.warmup_samples);
  return at_least;
}

// The limit a group that feeds an undecided check samples to: its own timeout (the sum of its
// members', as group_should_stop) or the check's, whichever is longer.
double check_limit_s(std::span<const StoppingRule> rules) {
  double group_s = 0, check_s = 0;
  for (const auto& r : rules)
    group_s += r.timeout_s, check_s = std::max(check_s, r.check_timeout_s());
  return std::max(group_s, check_s);
}

// Spare seconds taken past a timeout (SpareTime): from the wall time the sampling first went past
// it, while on track to its precision (on_track) then and at each scheduled look after.
class SpareSpell {
 public:
  explicit SpareSpell(SpareTime* pool) : pool_(pool) {}
  // Whether to go on past the timeout at `now_s`; `look`: this is a scheduled look.
  bool go_on(std::span<const Sampler> samplers, double now_s, bool look) {
    if (!pool_) return false;
    const bool first = since_s_ < 0;
    if ((first || look) && !on_track(samplers, now_s, first ? now_s : since_s_, *pool_))
      return false;
    if (first) since_s_ = now_s;
    return true;
  }
  // Takes the spell (to `end_s`) from the pool, once sampling has ended.
  void settle(double end_s) {
    if (pool_ && since_s_ >= 0) pool_->spend(end_s - since_s_);
  }

 private:
  SpareTime* pool_;
  double since_s_ = -1;  // -1: not past its timeout yet
};

// A member of a pairing group sampled on alone after the rounds as a case sampled alone would be:
// until it converges, or its own time reaches its timeout with its minimum samples in (else its
// hard cap); then on spare seconds while on track (on_track, judged at each scheduled look), never
// past its check limit. Its own time: `own_s` before (its time in the rounds, where its samples
// alone continue them) plus, after, the larger of its samples and the wall time since (a sample
// that reads 0 s still spends time).
StopReason sample_alone(Sampler& s, double own_s, const std::function<double()>& sample_s,
                        SpareTime* spare) {
  const StoppingRule& rule = s.rule();
  const double limit_s = std::max(rule.timeout_s, rule.check_timeout_s());
  const auto t0 = clock_type::now();
  double sampled_s = 0, now_s = own_s;
  SpareSpell spell(spare);  // on its own time
  while (!s.converged()) {
    // Below its minimum only the hard cap stops it, with 2 samples at least (as a case alone).
    const bool at_minimum = s.samples().size() >= rule.min_samples;
    if (at_minimum ? now_s >= limit_s : s.samples().size() >= 2 && now_s >= rule.hard_timeout_s())
      break;
    if (at_minimum && now_s >= rule.timeout_s &&
        !spell.go_on(std::span(&s, 1), now_s,
                     is_scheduled_look(s.samples().size(), rule.min_samples)))
      break;
    const double t = sample_s();
    s.add(t);
    sampled_s += t;
    now_s = own_s + std::max(sampled_s, seconds_since(t0));
  }
  spell.settle(now_s);
  return s.converged() ? StopReason::converged : StopReason::timeout;
}

}  // namespace

std::vector<std::size_t> round_order(std::size_t round, std::size_t members) {
  std::vector<std::size_t> order(members);
  for (std::size_t j = 0; j < members; ++j) order[j] = (round + j) % members;
  return order;
}

std::vector<Measurement> sample_group(std::span<const StoppingRule> rules, std::size_t warmup,
                                      const std::function<double(std::size_t)>& sample_s,
                                      const UndecidedFn& undecided, SpareTime* spare) {
  const std::size_t members = rules.size();
  for (std::size_t r = 0; r < warmup; ++r)
    for (std::size_t i : round_order(r, members)) sample_s(i);
  std::vector<Sampler> samplers(rules.begin(), rules.end());
  // Each member's wall time in the rounds (what a sample took, whatever it reads: a simulated
  // sample reads microseconds and takes minutes).
  std::vector<double> wall_per_member_s(members, 0.0);
  StopReason stop = StopReason::none;
  const auto t0 = clock_type::now();
  const double limit_s = check_limit_s(rules);
  SpareSpell spell(spare);  // on the group's wall time
  // What the last scheduled look found: undecided until a look says otherwise.
  bool undecided_at_look = true;
  for (std::size_t r = 0; stop == StopReason::none; ++r) {
    for (std::size_t i : round_order(r, members)) {
      const auto s0 = clock_type::now();
      samplers[i].add(sample_s(i));
      wall_per_member_s[i] += seconds_since(s0);
    }
    const double wall = seconds_since(t0);
    stop = group_should_stop(samplers, wall);
    const bool look = is_scheduled_look(r + 1, samplers.front().rule().min_samples);
    // A check the group feeds is looked at only at scheduled looks, each at its own sequential
    // confidence, so that looking again does not raise its false-FAIL rate. A stop between looks
    // (its timeout) is kept when the last look found every check decided; else the group goes on
    // to its next look (or its check limit).
    if (undecided && look) undecided_at_look = undecided(samplers);
    if (undecided && stop != StopReason::none && undecided_at_look)
      stop = wall >= limit_s ? StopReason::timeout : StopReason::none;
    // At its limit, a group on track to its precision goes on on spare time, judged again at each
    // scheduled look (stats.h, on_track); never past the check limit.
    if (stop == StopReason::timeout && wall < limit_s && spell.go_on(samplers, wall, look))
      stop = StopReason::none;
  }
  spell.settle(seconds_since(t0));
  std::vector<Measurement> out(members);
  for (std::size_t i = 0; i < members; ++i) {
    out[i].stop = stop;
    out[i].rounds = samplers[i].samples().size();
    out[i].round_confidence = samplers[i].confidence();
  }
  // After the rounds, which the checks use (StoppingRule::after_rounds). A group times out at the
  // sum of its members' timeouts, and a member whose samples are cheap beside the others' has then
  // had a sliver of its own (the host attention sweep: n = 256 took 5 samples, 17 ms, beside
  // n = 4096's 0.8 s each). Where the group timed out, a member short of its precision whose
  // samples alone continue its rounds goes on alone to its own timeout (its samples' wall time in
  // the rounds, or what they read where that is more, counted), as a case sampled alone would. A
  // member that takes its own samples does so always, from its warm-up, on its own time: its
  // median is of those only. Its warm-up, as the group's, is not counted as the harness's time.
  double warmup_s = 0;
  for (std::size_t i = 0; members >= 2 && i < members; ++i) {
    const StoppingRule rule = samplers[i].rule();
    const auto one = [&] { return sample_s(i); };
    if (rule.after_rounds == StoppingRule::AfterRounds::own_samples) {
      out[i].own_samples = true;
      out[i].rounds_apart_s.assign(samplers[i].samples().begin(), samplers[i].samples().end());
      const auto w0 = clock_type::now();
      for (std::size_t w = 0; w < rule.warmup_samples; ++w) sample_s(i);
      warmup_s += seconds_since(w0);
      samplers[i] = Sampler(rule);
      out[i].stop = sample_alone(samplers[i], 0.0, one, spare);
    } else if (rule.after_rounds == StoppingRule::AfterRounds::continue_rounds &&
               stop == StopReason::timeout && !samplers[i].converged()) {
      const Summary so_far = samplers[i].summary();
      const double own_s = std::max(so_far.total_s, wall_per_member_s[i]);
      if (!within_precision(so_far, rule.precision))
        out[i].stop = sample_alone(samplers[i], own_s, one, spare);
    }
  }
  const double wall_s = seconds_since(t0) - warmup_s;
  double sampled_s = 0;
  std::size_t samples = 0;
  for (std::size_t i = 0; i < members; ++i) {
    out[i].summary = samplers[i].summary();
    out[i].samples_s.assign(samplers[i].samples().begin(), samplers[i].samples().end());
    sampled_s += out[i].summary.total_s;
    samples += out[i].summary.samples;
    for (double t : out[i].rounds_apart_s) sampled_s += t, ++samples;
  }
  for (auto& m : out) m.harness_overhead_s = (wall_s - sampled_s) / static_cast<double>(samples);
  return out;
}

std::vector<Measurement> measure_host_group(std::span<Instance* const> instances,
                                            std::span<const StoppingRule> rules,
                                            const UndecidedFn& undecided, SpareTime* spare) {
  const std::size_t warmup = group_warmup(instances, rules, 0);
  CpuTally cpu(instances.size());
  std::vector<Measurement> ms = sample_group(
      rules, warmup,
      [&](std::size_t i) {
        return cpu(i, [&] {
          const auto t = clock_type::now();
          instances[i]->run(nullptr);
          return seconds_since(t);
        });
      },
      undecided, spare);
  for (std::size_t i = 0; i < ms.size(); ++i) ms[i].cpu_per_sample_s = cpu.per_sample_s(i);
  return ms;
}

std::vector<Measurement> measure_cuda_group(std::span<Instance* const> instances,
                                            std::span<const StoppingRule> rules,
                                            const GpuDevice& gpu, bool hot, const Nvml* nvml,
                                            double warmup_s, const UndecidedFn& undecided,
                                            SpareTime* spare) {
  // Warm up first (at least one round: the first launch binds library handles to the stream), so
  // that the starting clock is the loaded clock. A timing simulator has no clock to raise and its
  // case was just launched to be validated: no warm-up (each launch costs minutes of simulation).
  const std::size_t warmup = group_warmup(instances, rules, gpu.simulated_timing ? 0 : 1);
  const std::size_t members = instances.size();
  GpuSession session(gpu, !hot);
  CpuTally cpu(members);
  const auto sample_s = [&](std::size_t i) {
    return cpu(i,
               [&] { return session.time_sample_s([&](gpu_stream s) { instances[i]->run(s); }); });
  };
  const auto warm_t0 = clock_type::now();
  for (std::size_t r = 0; r < warmup; ++r)
    for (std::size_t i : round_order(r, members)) sample_s(i);
  // Then by wall time: the members' own launches back to back, in batches that double (at most
  // 256 rounds queued), discarded, until warmup_s since the warm-up began.
  // Not in a timing simulator: its first launch alone takes longer than any warmup_s.
  const double warm_for_s = gpu.simulated_timing ? 0.0 : warmup_s;
  for (std::size_t batch = 1; seconds_since(warm_t0) < warm_for_s;
       batch = std::min<std::size_t>(2 * batch, 256)) {
    session.launch([&](gpu_stream s) {
      for (std::size_t r = 0; r < batch; ++r)
        for (std::size_t i : round_order(r, members)) instances[i]->run(s);
    });
    session.wait();
  }
  const double clock_start_hz = session.measure_sm_clock_hz();
  std::vector<Measurement> ms = sample_group(rules, 0, sample_s, undecided, spare);
  const double clock_end_hz = session.measure_sm_clock_hz();
  NvmlClocks c;
  c.reasons_missing = "NVML not consulted";
  if (nvml) c = nvml->clocks(gpu.pci_bus_id);
  double reference_hz = gpu.sm_clock_hz;
  std::string reference_source = "rated clock, cudaDevAttrClockRate";
  if (c.applications_sm_hz > 0) {
    reference_hz = c.applications_sm_hz;
    reference_source = "NVML applications clock";
  }
  // A FAIL of the probes stands only if a second look confirms it.
  const double reprobe_hz = clock_needs_reprobe(clock_start_hz, clock_end_hz, reference_hz)
                                ? session.measure_sm_clock_hz()
                                : 0.0;
  for (std::size_t i = 0; i < ms.size(); ++i) {
    Measurement& m = ms[i];
    m.cpu_per_sample_s = cpu.per_sample_s(i);
    m.clock_start_hz = clock_start_hz;
    m.clock_end_hz = clock_end_hz;
    m.clock_reprobe_hz = reprobe_hz;
    m.clock_reference_hz = reference_hz;
    m.clock_reference_source = reference_source;
    m.clock_event_reasons = c.event_reasons;
    m.clock_reasons_known = c.reasons_known;
    m.clock_reasons_missing = c.reasons_known ? "" : c.reasons_missing;
  }
  return ms;
}

Bounds bounds_for(Backend backend, const Work& work, const GpuDevice* gpu, const HostInfo& host,
                  std::optional<double> host_peak_bytes_per_s) {
  Bounds b;
  const bool dram = work.memory_level == "dram";
  if (backend == Backend::cuda && gpu) {
    if (dram) b.bandwidth_bytes_per_s = gpu->peak_dram_bytes_per_s;
    b.bandwidth_source =
        gpu->simulated_timing
            ? "channels x burst x bus width / max(burst / ratio, tCCD) x DRAM clock of " +
                  gpu->simulated_config + " (" + gpu->name + ")"
            : "2 x memory clock x bus width / 8 of " + gpu->name;
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

bool clock_probes_slow(double start_hz, double end_hz, double reprobe_hz, double reference_hz) {
  const double threshold_hz = kThrottleFraction * reference_hz;
  const bool slow = reference_hz > 0 && std::min(start_hz, end_hz) < threshold_hz;
  return slow && (reprobe_hz <= 0 || reprobe_hz < threshold_hz);
}

bool clock_needs_reprobe(double start_hz, double end_hz, double reference_hz) {
  return clock_probes_slow(start_hz, end_hz, 0, reference_hz);
}

bool clock_throttled(const Measurement& m) {
  const bool slow =
      clock_probes_slow(m.clock_start_hz, m.clock_end_hz, m.clock_reprobe_hz, m.clock_reference_hz);
  return slow || (m.clock_reasons_known && clock_event_is_slowdown(m.clock_event_reasons));
}

Check clock_check(const std::string& suite, const std::string& name, const Measurement& m) {
  const CheckHead head{suite, name + "/clock",
                       "min(f_sm start, end) >= 0.75 * sustained SM clock (a shortfall stands "
                       "only if a re-probe confirms it), and no thermal or hardware slowdown "
                       "reported (no throttling during the case)",
                       CheckKind::law, "min(f_sm_start, f_sm_end)"};
  // The value judged: the lower probe, or the re-probe where one was taken and is higher (a FAIL
  // stands only if the re-probe confirms it: clock_probes_slow).
  const double lowest = std::min(m.clock_start_hz, m.clock_end_hz);
  const double judged = m.clock_reprobe_hz > 0 ? std::max(lowest, m.clock_reprobe_hz) : lowest;
  std::string reason = fmt::format("SM clock {:.0f} MHz before, {:.0f} MHz after",
                                   m.clock_start_hz / 1e6, m.clock_end_hz / 1e6);
  if (m.clock_reprobe_hz > 0)
    reason += fmt::format(", re-probed {:.0f} MHz", m.clock_reprobe_hz / 1e6);
  if (m.clock_reference_hz > 0)
    reason += fmt::format("; sustained {:.0f} MHz ({})", m.clock_reference_hz / 1e6,
                          m.clock_reference_source);
  if (m.clock_reasons_known) {
    const auto names = clock_event_reason_names(m.clock_event_reasons);
    reason += "; NVML clock events: " +
              (names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", ")));
  } else if (!m.clock_reasons_missing.empty()) {
    reason += "; NVML clock events unknown (no throttle evidence): " + m.clock_reasons_missing;
  }
  if (m.clock_reference_hz <= 0) {
    Check k = skipped(head, reason + "; no sustained clock known: not judged");
    k.measured = judged;
    return k;
  }
  Check k = at_least(head, kThrottleFraction * m.clock_reference_hz, Interval::point(judged));
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
