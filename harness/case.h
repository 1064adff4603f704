// A case is data: what it computes, the work it declares, how to prepare, validate and run it.
// Suites only describe cases; the harness (runner.cpp) measures, compares, checks and reports.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/compare.h"
#include "harness/gpu.h"
#include "harness/host_info.h"
#include "harness/interval.h"
#include "harness/stats.h"
#include "theory/peaks.h"
#include "theory/work.h"

namespace bb {

enum class Backend { host, cuda };
std::string backend_name(Backend b);
std::optional<Backend> backend_from_name(const std::string& name);

// The work one sample does, declared by the case; the harness derives GB/s, FLOP/s and the bound.
struct Work {
  double bytes_read = 0;
  double bytes_written = 0;
  double flop = 0;
  double elements = 0;
  theory::Precision precision = theory::Precision::fp32;  // whose peak bounds `flop`
  // The flop run on CUDA cores only (e.g. an FMA chain): bounded by the CUDA-core peak of the
  // precision, not the larger tensor-core one.
  bool cuda_cores_only = false;
  // Where the bytes come from: "dram" is bounded by the device's DRAM bandwidth; cache-resident
  // cases ("l1", "l2", …) have no bandwidth bound yet and their roofline check is skipped.
  std::string memory_level = "dram";
  double bytes() const { return bytes_read + bytes_written; }
};

// A declared work from theory/'s counts (each family's *_work function), bounded by the peak of
// `precision` for bytes from `memory_level`.
Work work_of(const theory::WorkCount& count, theory::Precision precision = theory::Precision::fp32,
             std::string memory_level = "dram");
// The counts of a declared work, to hold against theory/'s.
theory::WorkCount count_of(const Work& w);

// PASS: inside the band; FAIL: a law violated (or an error); SKIP: not testable here, with the
// reason; INCONCLUSIVE: the measured interval straddles the band, too noisy to judge;
// BELOW-EXPECTATION: an expectation missed, a finding rather than a failure. harness/checks.h
// derives them from the numbers.
enum class Verdict { pass, fail, skip, inconclusive, below_expectation };
std::string verdict_name(Verdict v);

// law: maths or physics (the roofline, a rounding bound, exactness): a violation FAILs.
// expectation: what a well-tuned library or machine reaches: a miss is BELOW-EXPECTATION.
enum class CheckKind { law, expectation };
std::string check_kind_name(CheckKind k);

struct Check {
  std::string suite;
  std::string name;
  std::string law;  // the formula, as text
  double predicted = std::numeric_limits<double>::quiet_NaN();
  double measured = std::numeric_limits<double>::quiet_NaN();
  double tolerance = std::numeric_limits<double>::quiet_NaN();
  Verdict verdict = Verdict::skip;
  std::string reason;
  CheckKind kind = CheckKind::law;
  // What the builders of harness/checks.h judged: the measured interval (equal ends for a point
  // measurement) and the band allowed. NaN where a check was made without them.
  Interval interval;
  Band band = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()};
};

// Thrown by `prepare` when the case cannot run here for a reason that is not a fault (e.g. its size
// does not fit in this machine's memory): the run records a SKIP with the reason and goes on.
struct CaseSkipped : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What the harness knows when a case is prepared.
struct CaseContext {
  const HostInfo& host;
  const GpuDevice* gpu = nullptr;  // set for CUDA cases
  bool quick = false;
};

// A prepared case: inputs allocated and initialised, output buffer ready.
class Instance {
 public:
  virtual ~Instance() = default;
  // Poisons the output, runs once and compares with the reference.
  virtual Comparison validate() = 0;
  // One sample's work. Host cases run it; CUDA cases enqueue it on `stream` (timed with events).
  virtual void run(gpu_stream stream) = 0;
  // What the case observed besides time (e.g. co-resident blocks per SM), read after measuring;
  // written to the results as the entry's "observations" and handed to the suite's checks.
  virtual nlohmann::json observations() { return nlohmann::json::object(); }
};

// What a case declares from the machine's description alone, before anything is allocated: its
// params and one sample's work. Declaring makes no allocation and no device call, so every case's
// declaration can be held against theory/ without the hardware (tests/declared_work_test.cpp).
struct Declared {
  Work work;
  nlohmann::json params;  // sizes, dtypes, … as data for reports and comparisons
  // What the instance will allocate, in bytes of host memory and of GPU memory (0: not declared).
  // Cases of a pairing group declare it: the group's members live at once, and the runner samples
  // them one at a time instead when the sum does not fit (fits_in_memory).
  std::uint64_t host_memory_bytes = 0, gpu_memory_bytes = 0;
};

// The memory guard every case and pairing group is held to: at most 3/4 of `memory_bytes` (0:
// unknown, anything fits), so that a quarter stays free for the rest of the machine.
inline bool fits_in_memory(std::uint64_t bytes, std::uint64_t memory_bytes) {
  return memory_bytes == 0 || bytes <= memory_bytes / 4 * 3;
}

// A prepared case: the instance, with the work and params it was declared with.
struct Prepared {
  std::unique_ptr<Instance> instance;
  Work work;
  nlohmann::json params;
};

// Everything the harness measured for one case (one repetition).
struct Measurement {
  Summary summary;
  StopReason stop = StopReason::none;
  double harness_overhead_s = 0;  // per sample: (wall time − sum of samples) / samples
  double clock_start_hz = 0, clock_end_hz = 0;  // GPU SM clock around the case; 0 on the host
  // The clock throttling is judged against: NVML's applications clock (what the driver sustains),
  // else the rated clock (cudaDevAttrClockRate); 0 unknown. NVML's clock-event reasons just after
  // the case, when the library answered.
  double clock_reference_hz = 0;
  std::string clock_reference_source;
  std::uint64_t clock_event_reasons = 0;
  bool clock_reasons_known = false;
  std::string clock_reasons_missing;  // why NVML's reasons are unknown (empty: known, or host)
  // A third SM-clock probe, taken after clock_end_hz only when the first two would fail the clock
  // check (clock_needs_reprobe); 0: none taken.
  double clock_reprobe_hz = 0;
  std::vector<double> samples_s;  // every sample, in the order taken
  // Sampled in a pairing group (Case::pairing_group) of `paired_members` ≥ 2: the first `rounds`
  // of samples_s are one sample per round, aligned across the members of the same `paired_run` (a
  // number unique within the run: one per measurement of the group); the rest were taken alone
  // after the rounds (sample_group). Empty, 0: sampled alone. Except where `own_samples`
  // (StoppingRule::AfterRounds::own_samples): samples_s (and the summary) are only the member's
  // own samples, taken after the rounds, and the rounds are in `rounds_apart_s`.
  std::string paired_group;
  std::size_t paired_members = 0, paired_run = 0;
  // The group's rounds (every sample for a case sampled alone), and the sequential confidence the
  // rounds stopped at (Sampler::confidence with `rounds` samples): the level a check made from the
  // rounds judges at.
  std::size_t rounds = 0;
  double round_confidence = 0;
  bool own_samples = false;
  std::vector<double> rounds_apart_s;  // the rounds, where own_samples; else empty
  // What was left of the run's spare seconds (run --spare) when this case's (or its group's)
  // sampling began; negative: not sampled by the harness's loop.
  double spare_left_s = -1;
  std::string pairing_note;  // why a case of a group was sampled alone (e.g. memory); empty: none
  // CPU time of this case's own samples per sample (the calling thread's), measured by the group's
  // loop; negative: not measured here (Google Benchmark's timer gives it).
  double cpu_per_sample_s = -1;
};

// A group's rounds: the first Measurement::rounds of its samples (rounds_apart_s where the member
// took its own samples after them).
inline std::span<const double> round_samples(const Measurement& m) {
  if (m.own_samples) return m.rounds_apart_s;
  return std::span<const double>(m.samples_s).first(std::min(m.rounds, m.samples_s.size()));
}

struct Case {
  std::string name;  // unique within its suite: "triad/fp64/host"
  Backend backend = Backend::host;
  // Params and work: cheap, no allocation, no device call (the GPU in the context may be nominal).
  std::function<Declared(const CaseContext&)> declare;
  // The instance for that declaration: inputs allocated and initialised (throws CaseSkipped where
  // they do not fit). May add to the params what only the device tells (a kernel's registers, …).
  std::function<std::unique_ptr<Instance>(const CaseContext&, Declared&)> prepare;
  // Checks beyond the harness's own (validation, roofline bound, clock), made from the measurement.
  std::function<std::vector<Check>(const Prepared&, const Measurement&)> extra_checks;
  // One point of a sweep over many sizes: sampled with StoppingRule::for_sweep_point().
  bool sweep_point = false;
  // Measures a cache level: the GPU L2 is not flushed between its samples (as with --hot).
  bool warm_caches = false;
  // Run by `run --quick` too; false for cases that only add coverage (other dtypes, widths).
  bool in_quick = true;
  // Why a functional simulator cannot run the case, where it cannot ("cannot run under the
  // simulator: …"): a library's SASS-only device code (sass_only_reason("cuBLAS")), an instruction
  // it does not implement. On a simulated device the case says so instead of running; elsewhere
  // this is ignored. Empty: it runs there.
  std::string simulator_cannot_run;
  // Cases of one suite and backend naming the same group are measured together, for checks that
  // compare them (a ratio, an exponent over sizes): prepared at once, then sampled in rounds, one
  // sample of each per round in an order that rotates, the stopping rule applied to the group.
  // A noisy spell then hits every member of a round alike and cancels in their ratio
  // (harness/paired.h). Members declare their memory (Declared), share sweep_point and
  // warm_caches, and are released in the reverse order of preparation.
  std::string pairing_group;
};

// Why `c` cannot run on `gpu` ("" where it can): Case::simulator_cannot_run on a simulated device.
std::string cannot_run_reason(const Case& c, const GpuDevice* gpu);

// Declares the case, then prepares its instance for that declaration.
Prepared prepare_case(const Case& c, const CaseContext& ctx);

// One measured case, as a suite's own checks see it (e.g. to fit time against a parameter).
struct CaseResult {
  std::string name;  // the case's name within its suite
  Backend backend = Backend::host;
  nlohmann::json params;
  nlohmann::json observations;
  Work work;
  Summary summary;
  std::vector<double> samples_s;  // as the results file keeps them: kept_samples (time order)
  // Sampled in a pairing group: its name and measurement number (Measurement::paired_run), and the
  // samples one per round in round order, as the results file keeps them (kept_rounds): aligned
  // with every member of the same group and run, judged at `round_confidence` (the rounds'
  // sequential level, Measurement::round_confidence). Empty: sampled alone.
  std::string paired_group;
  std::size_t paired_run = 0;
  std::vector<double> round_samples_s;
  double round_confidence = 0;
};

struct Suite {
  std::string name;
  std::string description;
  std::vector<Case> cases;
  // Checks over all of the suite's measured cases (fits, step positions, …), made after the last
  // one ran; not called when none was measured.
  std::function<std::vector<Check>(const std::vector<CaseResult>&)> suite_checks;
  // What the suite measured as a whole (e.g. the memory hierarchy per device), written to the
  // results under "figures"/<suite>; made after the last case, not called when none was measured.
  std::function<nlohmann::json(const std::vector<CaseResult>&)> suite_figures;
};

}  // namespace bb
