// The bound of every case, its limiter, and the check against it. The capacities of a machine
// (ceilings) come from the spec where known (the GPU peak table, --host-peak-bw, the host's FMA
// estimate at its maximum clock) and otherwise from what a run measured (STREAM, the read and
// latency plateaus of the hierarchy sweeps, the FMA-chain ceilings, the harness's own overhead
// case), each marked "spec" or "measured". They are read from a results document, so the same code
// bounds the run that measured them, an earlier run of the machine (`run --ceilings`), and
// `project`. Formulas: theory/bound.h.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/case.h"
#include "theory/bound.h"

namespace bb {

// A measured ceiling drawn from a plateau is the median of points that may differ by the plateau
// rule's flatness (theory::StepRule::flat_per_octave, 1.25 per doubling): a case may beat it by
// that much before it is a finding.
inline constexpr double kPlateauCeilingTolerance = 0.25;

struct Ceiling {
  double value = 0;      // bytes/s, flop/s, or s per launch
  std::string source;    // "spec" or "measured"
  std::string basis;     // where the figure comes from, as text
  double tolerance = 0;  // by how much a case may beat it (fraction) before it is judged
};

// The capacities of one backend of one run.
struct Ceilings {
  std::string backend = "host";
  std::optional<Ceiling> dram_bytes_per_s;
  // The best DRAM rate the run measured (STREAM's best), kept also where the spec is known: what
  // the memory system delivers, for projecting between two runs (harness/project.h).
  std::optional<Ceiling> measured_dram_bytes_per_s;
  std::vector<std::string> level_names;  // the caches, smallest first ("L1", "L2", …)
  std::vector<double> level_bytes;       // their capacities, as the hierarchy sweep reported them
  std::vector<theory::LevelPlateau> read_plateaus;     // bytes/s, measured
  std::vector<theory::LevelPlateau> latency_plateaus;  // s per dependent load, measured
  std::map<std::string, Ceiling> flop_per_s;           // by precision name ("fp64")
  std::optional<Ceiling> launch_s;                     // per parallel launch (harness/overhead)
  // Collectives: the link each rank sends on, per transport and rank count ("mpi/p2"): its
  // bandwidth in nccl-tests' busbw convention (bytes on the wire per rank per s) and the latency α
  // of one message (s). Measured: the best busbw and the smallest α fitted in the run; a
  // strategies run's links ("strategies/all_reduce") from its α–β fits, 1/β.
  std::map<std::string, Ceiling> link_bytes_per_s, link_alpha_s;
  // GPU only, for Habitat's wave scaling: SM count × SM clock (Hz), from the device's spec.
  double sm_clock_sms_hz = 0;
  std::string device;  // the device or host CPU's name
};

// The ceilings of `backend` ("host" or "cuda") in a results document (version 1 or 2): spec figures
// from its context (host_peak_bytes_per_s in the options, the GPU's peaks), measured ones from its
// figures and its harness/overhead case.
Ceilings ceilings_of(const nlohmann::json& doc, const std::string& backend);

// A case's work as its results entry declares it (entries written before `memory_level` was
// recorded infer it: a read sweep point is "hierarchy", a latency sweep point or chase "latency").
// A collective (suite "collectives", p >= 2 ranks) is memory level "link": its bytes go on the
// wire, link_bytes per rank and link_messages latencies α in a row, from the α–β model of its
// bandwidth-optimal algorithm (theory/collectives.h), in the link group "transport/pN". A
// strategies step that declares params link and link_wire_bytes_per_rank is memory level "link"
// too, in the group "strategies/<link>".
struct EntryWork {
  double bytes = 0, flop = 0, working_set_bytes = 0, dependent_loads = 0, launches = 0;
  double link_bytes = 0, link_messages = 0;
  std::string link_group;
  std::string precision = "fp32", memory_level = "dram";
};
EntryWork entry_work(const nlohmann::json& entry);

// Every resource's bound time for `work` against `c`, each with its source, largest first.
struct CaseBound {
  std::vector<theory::ResourceBound> ranked;         // the limiter first; may be empty
  std::map<std::string, const Ceiling*> ceiling_of;  // the ceiling behind each resource
  std::map<std::string, std::string> source_of;      // "spec" or "measured", by resource
  double compute_s = 0, memory_s = 0, latency_s = 0, overhead_s = 0, link_s = 0;
  bool empty() const { return ranked.empty(); }
  double time_s() const { return ranked.empty() ? 0.0 : ranked.front().time_s; }
};
CaseBound case_bound(const EntryWork& work, const Ceilings& c);

// The results entry's `bound` object: limiter, time_s, fraction (bound / median) with its interval
// from the median's, source, the runner-up, and the speed-of-light class (compute- or memory-bound,
// whichever fraction is larger; under 60% of both, overhead-bound where launch overhead is the
// limiter, else latency-bound). Null when no resource bounds the case here.
nlohmann::json bound_json(const nlohmann::json& entry, const CaseBound& b);

// The roofline check of a case against its hierarchical bound, t_min against a spec bound (a law:
// FAIL below it by more than `tolerance`), else the median's interval against a measured one (an
// expectation: a case faster than a measured ceiling by more than its tolerance is a finding, the
// ceiling under-measured).
Check bound_check(const std::string& suite, const std::string& name, const nlohmann::json& entry,
                  const CaseBound& b, double tolerance);

// After a run: every iteration entry of `doc` gains its `bound`; a roofline check that was skipped
// (no spec bound) or that a chase never had is replaced by the bound check. Returns the new checks
// by name ("suite/name"), for the caller to replace in its own list. `ceilings_doc`: another run of
// the same machine to take measured ceilings from where this one did not measure them (or null).
std::map<std::string, Check> add_bounds(nlohmann::json& doc, double tolerance,
                                        const nlohmann::json* ceilings_doc = nullptr);

}  // namespace bb
