// Sampling one prepared case, and the checks the harness makes of every case.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "harness/case.h"
#include "harness/gpu.h"

namespace bb {

class Nvml;

// The order of the members in round `round` of a pairing group of `members`: the rotation
// (round + j) mod members, j = 0, 1, …; every member goes first in one round of `members`, and two
// members alternate (A B, B A, A B, …).
std::vector<std::size_t> round_order(std::size_t round, std::size_t members);

// A pairing group's sampling loop, whatever takes a sample: `warmup` rounds discarded, then rounds
// of one sample of every member (`sample_s(member)`, seconds) in round_order, until
// group_should_stop over `rules` (one per member). Member i's samples_s holds its sample of each
// round, in round order (Measurement::rounds of them, judged at round_confidence). Then, by its
// rule's StoppingRule::after_rounds: continue_rounds — where the group timed out, a member not
// converged and not within its precision samples alone, as a case sampled alone: to its own
// timeout (the wall time its samples took in the rounds counted), then on `spare` while on track;
// those samples follow the rounds in samples_s. own_samples — the member always samples alone
// (its warm-up discarded) on its own time, as a case sampled alone; samples_s and the summary
// are those samples only, the rounds move to rounds_apart_s (Measurement::own_samples). A member
// that sampled alone carries its own stop reason. The harness overhead is the whole loop's.
// `undecided` (optional): whether a check the group feeds is still undecided given the samplers
// so far (it judges at their sequential confidence, Sampler::confidence). With it, the group
// stops only at a scheduled look (is_scheduled_look of the rounds) where the check is decided and
// the rules would stop, or at the time limit for checks: the larger of the group's timeout and
// the rules' check_timeout_s.
// `spare` (optional): the run's spare seconds; a group that times out while on track to its
// precision (stats.h, on_track) goes on, judged again at each scheduled look, to the same check
// limit at most, and spends from `spare` the seconds it sampled past its limit.
using UndecidedFn = std::function<bool(std::span<const Sampler>)>;
std::vector<Measurement> sample_group(std::span<const StoppingRule> rules, std::size_t warmup,
                                      const std::function<double(std::size_t)>& sample_s,
                                      const UndecidedFn& undecided = {},
                                      SpareTime* spare = nullptr);

// A pairing group (or a single case) on the host: steady clock around Instance::run, one instance
// per member, warm-up discarded (the largest of the rules'), stopping rule applied. Each member's
// CPU time per sample is measured (the calling thread's).
std::vector<Measurement> measure_host_group(std::span<Instance* const> instances,
                                            std::span<const StoppingRule> rules,
                                            const UndecidedFn& undecided = {},
                                            SpareTime* spare = nullptr);
// Wall time of back-to-back launches of a GPU case before its first timed sample, so that the SM
// clock has left its idle level before it is probed (a case follows up to seconds of host-side
// preparation): 100 ms, 50 ms under --quick — nvbench lets a throttled GPU recover for 50 ms
// (--throttle-recovery-delay, default 0.05 s, nvbench docs/cli_help.md) and its cold warm-up runs
// are whole launches of the benchmark's own kernel.
inline constexpr double kGpuWarmupS = 0.1;
inline constexpr double kGpuWarmupQuickS = 0.05;

// On a GPU: events around the launch only, one session (L2 flushed before every sample unless
// `hot`), the SM clock read before the group's first sample and after its last; at least one
// warm-up round (the first launch on the session's stream binds library handles to it: host calls
// that stay out of the timed samples), then the members' own launches back to back (no flush, no
// wait between them) until `warmup_s` of wall time has passed since the warm-up began; warm-up
// samples are discarded. When the two clock probes would fail the clock check, the clock is probed
// once more (clock_reprobe_hz). With `nvml` (may be null or unavailable), the applications clock
// and the clock-event reasons after the case are recorded, or why they are unknown.
std::vector<Measurement> measure_cuda_group(
    std::span<Instance* const> instances, std::span<const StoppingRule> rules, const GpuDevice& gpu,
    bool hot, const Nvml* nvml = nullptr, double warmup_s = kGpuWarmupS,
    const UndecidedFn& undecided = {}, SpareTime* spare = nullptr);

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
// Throttling is judged against the clock the GPU is meant to sustain, not against the clock after
// a warm-up (tensor-core GEMMs on H100/H200 settle at 1.6–1.75 GHz of 1.98 under the power limit,
// which is no throttling): min(f_start, f_end) ≥ 0.75 × m.clock_reference_hz (nvbench's throttle
// threshold), and NVML reports no thermal, hardware or power-brake slowdown after the case (a power
// cap alone is power management). SKIP when no reference clock is known.
bool clock_throttled(const Measurement& m);
// The probes' part of that law, a pure function of the probes: min(start, end) < 0.75 × reference,
// confirmed by the re-probe when one was taken (reprobe_hz > 0): a re-probe at or above the
// threshold clears it (a clock still ramping from idle at the start, a moment's dip). False when
// no reference clock is known.
bool clock_probes_slow(double start_hz, double end_hz, double reprobe_hz, double reference_hz);
// Whether to re-probe before judging: the two probes alone are slow.
bool clock_needs_reprobe(double start_hz, double end_hz, double reference_hz);
Check clock_check(const std::string& suite, const std::string& name, const Measurement& m);

}  // namespace bb
