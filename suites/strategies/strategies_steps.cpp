#include "suites/strategies/strategies_steps.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "harness/change_interval.h"
#include "harness/checks.h"
#include "harness/fit.h"
#include "harness/stats.h"
#include "suites/strategies/strategies_plan.h"
#include "theory/parallelism.h"

namespace bb::strategies {
namespace {

using theory::Algorithm;
using theory::Collective;

// One measured step: the slowest rank's time, and each of the rank's own quantities summed and
// maximised over the ranks.
struct StepSample {
  double step_s = 0;
  std::vector<double> sum, max;
};

// `warmup` steps, then `samples` measured ones; each starts together after a barrier and is timed
// on every rank; the reductions come after the clock stops.
std::vector<StepSample> run_steps(StepComm& comm, int warmup, int samples,
                                  const std::function<std::vector<double>()>& step) {
  std::vector<StepSample> out;
  for (int i = 0; i < warmup + samples; ++i) {
    comm.barrier();
    const double start = now_s();
    const std::vector<double> local = step();
    const double taken = now_s() - start;
    StepSample s{comm.max_over_group(taken), {}, {}};
    for (double v : local) {
      s.sum.push_back(comm.sum_over_group(v));
      s.max.push_back(comm.max_over_group(v));
    }
    if (i >= warmup) out.push_back(std::move(s));
  }
  return out;
}

std::vector<double> step_times(const std::vector<StepSample>& samples) {
  std::vector<double> v;
  for (const StepSample& s : samples) v.push_back(s.step_s);
  return v;
}

double median(const std::vector<double>& v) { return summarize(v).median_s; }

// The median over the samples of the `i`-th quantity's largest over the ranks, times `scale`.
double median_max(const std::vector<StepSample>& samples, std::size_t i, double scale = 1) {
  std::vector<double> v;
  for (const StepSample& s : samples) v.push_back(s.max.at(i) * scale);
  return median(v);
}

// One case's steps (run_steps's `step`, the options' warm-up and samples) on the context's ranks
// under the watchdog; the slowest rank's step times go to `r`.
std::vector<StepSample> run_case(StepContext& c, CaseResult& r,
                                 const std::function<std::vector<double>()>& step) {
  std::vector<StepSample> samples;
  c.lockstep.measure(r.name + " on " + std::to_string(c.comm.group_ranks()) + " ranks", r.name,
                     [&] { samples = run_steps(c.comm, c.o.warmup, c.o.samples, step); });
  r.step_s = step_times(samples);
  return samples;
}

CheckHead head(const std::string& name, const std::string& law, const std::string& quantity) {
  return {"strategies", name, law, CheckKind::law, quantity};
}

// The step time against its prediction, within the context's band; a law, or an expectation.
Check step_check(const StepContext& c, const CaseResult& r, const std::string& law,
                 CheckKind kind = CheckKind::law) {
  return within({"strategies", r.name + "/step_time", law, kind, "step time (s)"},
                r.predicted_step_s, Band::relative(r.predicted_step_s, c.tolerance),
                summarize(r.step_s).median_interval());
}

// GEMM compute's premise: every rank has a core. When some rank's compute had less than 90% of one
// (a busy machine, more ranks than cores), the timing laws are SKIPs saying so; the counted ones
// stand. `share`: the least over the ranks, measured over the case's steps.
void judge_premise(const StepContext& c, CaseResult& r) {
  const double share = -c.comm.max_over_group(-c.compute.take_core_share());  // least over ranks
  r.observations["core_share_min"] = share;
  if (c.compute.synthetic() || share >= 0.9) return;
  char why[160];
  std::snprintf(why, sizeof why,
                "a rank's GEMMs had %.0f%% of a core (busy machine or more ranks than cores): "
                "the step laws assume one core per rank",
                share * 100);
  for (Check& k : r.checks)
    if (k.name.find("peak_activations") == std::string::npos &&
        k.name.find("bytes_sent") == std::string::npos)
      k = skipped({k.suite, k.name, k.law, k.kind, "measured"}, why);
}

double link_time_s(const Link& link, Collective collective, int ranks, double bytes) {
  const Algorithm a = theory::bandwidth_optimal_algorithm(collective);
  return theory::alpha_beta_time_s(theory::alpha_beta_terms(collective, a, ranks), bytes,
                                   link.alpha_s, link.beta_s_per_byte);
}

// The tokens the busiest expert of the skewed router takes: e × the most it takes from a rank.
int busiest_expert_tokens(const Options& o, int ranks) {
  const auto loads = router_loads(o.tokens, o.top_k, ranks, true);
  return ranks * *std::max_element(loads.begin(), loads.end());
}

// The busiest exchange of the skewed router: its busiest expert's tokens.
double largest_all_to_all_bytes(const Options& o, int ranks) {
  return double(busiest_expert_tokens(o, ranks)) * o.hidden * 4;
}

// The time one activation takes from a stage to the next: half the median round trip between
// ranks 0 and 1 with the steps' own polled sends and receives (0 with one rank). The same on every
// rank.
double measure_p2p_s(StepComm& comm, std::size_t count, int samples) {
  const int rank = comm.rank();
  std::vector<float> buffer(count, 1.0f);
  std::vector<double> round_trips;
  for (int i = 0; i < samples + 2 && comm.group_ranks() > 1; ++i) {
    comm.barrier();
    const double start = now_s();
    if (rank == 0) {
      comm.send(buffer.data(), count, 1, 0);
      comm.receive(buffer.data(), count, 1, 1);
    } else if (rank == 1) {
      comm.receive(buffer.data(), count, 0, 0);
      comm.send(buffer.data(), count, 0, 1);
    }
    comm.complete_sends();
    if (i >= 2) round_trips.push_back(now_s() - start);
  }
  const double here = rank == 0 && !round_trips.empty() ? median(round_trips) / 2 : 0;
  return comm.max_over_group(here);
}

// The last backward split per gradient bucket (its rows in proportion to the buckets' bytes), and
// the buckets' floats (from offsets[i] in the gradients), in the order their gradients are ready.
struct BackwardPieces {
  std::vector<std::vector<GemmShape>> gemms;  // empty for a piece of no rows
  std::vector<int> rows;
  std::vector<std::size_t> counts, offsets;
};
BackwardPieces backward_pieces(const Options& o, const std::vector<GemmShape>& layer) {
  BackwardPieces p;
  const std::vector<double> buckets =
      theory::gradient_buckets_bytes(o.parameters, 4, o.bucket_bytes);
  p.rows = proportional_split(o.batch * o.sequence, buckets);
  for (int r : p.rows) p.gemms.push_back(r > 0 ? with_rows(layer, r) : std::vector<GemmShape>{});
  const auto parameters = static_cast<std::size_t>(o.parameters);
  const auto bucket = std::max<std::size_t>(1, static_cast<std::size_t>(o.bucket_bytes / 4));
  for (std::size_t first = 0; first < parameters; first += bucket) {
    p.counts.push_back(std::min(bucket, parameters - first));
    p.offsets.push_back(first);
  }
  if (p.counts.size() != p.rows.size())
    throw std::logic_error("strategies: the buckets counted twice differ");
  return p;
}

// One data-parallel case on the context's group: `accumulation` micro-steps, then the bucketed
// all-reduce of the gradients; held against N_acc·t_micro + the bucketed all-reduce at the
// group's size (the context's link, measured on that group). With `overlap` (the non-blocking
// all-reduce's link on the group), the last backward runs per bucket and each bucket's all-reduce
// starts as its gradients are ready: held against N_acc·t_micro + the all-reduces' tail past the
// backward (theory::overlapped_all_reduce_tail_s).
CaseResult data_parallel_case(StepContext& c, int accumulation, const Link* overlap) {
  const Options& o = c.o;
  const int ranks = c.comm.group_ranks();
  const auto layer = transformer_layer(o.batch, o.sequence, o.hidden, 1).all();
  const auto parameters = static_cast<std::size_t>(o.parameters);
  const BackwardPieces pieces = backward_pieces(o, layer);
  std::vector<float> gradients(parameters, 1.0f);
  CaseResult r{.name = "data/n" + std::to_string(ranks) + "/acc" + std::to_string(accumulation) +
                       (overlap ? "/overlap" : "") + "/" + o.compute,
               .strategy = "data",
               .observations = nlohmann::json::object()};
  const std::vector<StepSample> samples = run_case(c, r, [&] {
    double compute_s = 0, backward_s = 0;
    for (int a = 0; a < accumulation; ++a) {
      compute_s += c.compute.forward(layer);
      if (!overlap || a + 1 < accumulation) {
        compute_s += c.compute.backward(layer);
        continue;
      }
      const double start = now_s();
      for (std::size_t i = 0; i < pieces.counts.size(); ++i) {
        if (!pieces.gemms[i].empty()) c.compute.backward(pieces.gemms[i]);
        c.comm.start_all_reduce_sum(gradients.data() + pieces.offsets[i], pieces.counts[i]);
      }
      backward_s = now_s() - start;
      compute_s += backward_s;
    }
    const double start = now_s();
    if (overlap) {
      c.comm.complete_all_reduces();
    } else {
      for (std::size_t i = 0; i < pieces.counts.size(); ++i)
        c.comm.all_reduce_sum(gradients.data() + pieces.offsets[i], pieces.counts[i]);
    }
    return std::vector<double>{compute_s, now_s() - start, backward_s};
  });
  const double micro_s = median_max(samples, 0, 1.0 / accumulation);
  const double all_reduce_s = theory::bucketed_all_reduce_s(
      o.parameters, 4, o.bucket_bytes, ranks, c.all_reduce.alpha_s, c.all_reduce.beta_s_per_byte);
  r.predicted_step_s = theory::data_parallel_step_s(accumulation, micro_s, all_reduce_s);
  if (overlap) {
    // Bucket i is ready when the backward has done its rows and those before; its all-reduce
    // takes the blocking link's time for its bytes: what a library that progresses non-blocking
    // collectives while the rank computes gives. Whether it does is the library's (OpenMPI 4.1
    // here progresses them on a helper thread that wakes late: ~3 ms per step even at one rank,
    // and its non-blocking link fitted alone, kept below, has α of milliseconds), so the
    // overlapped step is an expectation.
    const double backward_s = median_max(samples, 2);
    const int rows = o.batch * o.sequence;
    std::vector<double> ready_s, bucket_s;
    int done_rows = 0;
    for (std::size_t i = 0; i < pieces.counts.size(); ++i) {
      done_rows += pieces.rows[i];
      ready_s.push_back(backward_s * done_rows / rows);
      bucket_s.push_back(theory::gradient_all_reduce_s(
          double(pieces.counts[i]), 4, ranks, c.all_reduce.alpha_s, c.all_reduce.beta_s_per_byte));
    }
    const double tail_s = theory::overlapped_all_reduce_tail_s(ready_s, bucket_s, backward_s);
    r.predicted_step_s = theory::data_parallel_step_s(accumulation, micro_s, tail_s);
    r.observations = {{"last_backward_s", backward_s},
                      {"buckets", pieces.counts.size()},
                      {"predicted_overlapped_all_reduces_s",
                       std::accumulate(bucket_s.begin(), bucket_s.end(), 0.0)},
                      {"predicted_tail_s", tail_s},
                      {"nonblocking_link_alpha_s", overlap->alpha_s},
                      {"nonblocking_link_bytes_per_s", overlap->bytes_per_s()}};
  }
  const double global = theory::global_batch(o.batch, ranks, accumulation);
  r.flop = 3 * forward_flop(layer) * accumulation * ranks;
  r.bytes = o.parameters * 4 * ranks;
  // One all-reduce of every gradient per step (after the last micro-step).
  r.link = "all_reduce";
  r.link_wire_bytes_per_rank =
      theory::link_work(Collective::all_reduce, ranks, o.parameters * 4).wire_bytes_per_rank;
  r.params = {{"ranks", ranks},
              {"accumulation", accumulation},
              {"parameters", o.parameters},
              {"bucket_bytes", o.bucket_bytes},
              {"overlap", overlap != nullptr},
              {"per_device_batch", o.batch},
              {"global_batch", global},
              {"compute", o.compute}};
  r.observations.update({{"micro_step_s", micro_s},
                         {"all_reduce_s", median_max(samples, 1)},
                         {"predicted_all_reduce_s", all_reduce_s},
                         {"link_alpha_s", c.all_reduce.alpha_s},
                         {"link_bytes_per_s", c.all_reduce.bytes_per_s()},
                         {"samples_per_s", global / median(r.step_s)}});
  Check step = step_check(
      c, r,
      overlap ? "t_step = N_acc*t_micro + max(0, sum_{i<B} t_ar,i - backward after bucket 1) + "
                "t_ar,B (each bucket's all-reduce from its gradients' readiness, at the blocking "
                "alpha, beta of this run: an expectation, the library's asynchronous progress)"
              : "t_step = N_acc*t_micro + bucketed ring all-reduce(P) (alpha, beta this run)",
      overlap ? CheckKind::expectation : CheckKind::law);
  if (!overlap && c.all_reduce.beta_high_s_per_byte > 0) {
    // The all-reduce's prediction carries the link fit's uncertainty: β from the ends of the
    // Theil–Sen interval (a 4-rank fit on 2 cores scatters), the band around that range.
    const auto with_beta = [&](double beta) {
      return theory::data_parallel_step_s(
          accumulation, micro_s,
          theory::bucketed_all_reduce_s(o.parameters, 4, o.bucket_bytes, ranks,
                                        c.all_reduce.alpha_s, beta));
    };
    const double low = std::min(with_beta(c.all_reduce.beta_low_s_per_byte), r.predicted_step_s);
    const double high = std::max(with_beta(c.all_reduce.beta_high_s_per_byte), r.predicted_step_s);
    r.observations["predicted_step_low_s"] = low;
    r.observations["predicted_step_high_s"] = high;
    step = within(head(r.name + "/step_time",
                       step.law + "; the band spans the fitted beta's interval", "step time (s)"),
                  r.predicted_step_s, {low * (1 - c.tolerance), high * (1 + c.tolerance)},
                  summarize(r.step_s).median_interval());
  }
  r.checks.push_back(step);
  judge_premise(c, r);
  return r;
}

// Weak scaling (the per-rank batch fixed): efficiency E(N) = samples/s at N ranks over N ×
// samples/s at one rank = t_step(1)/t_step(N), its interval from both cases' samples
// (Hodges–Lehmann ratio, harness/change_interval.h). An expectation: E ≥ the model's,
// N_acc·t_micro(1) / (N_acc·t_micro(1)
// + t_all-reduce(P) at N), less the band: what a machine that gives each rank the single rank's
// compute reaches; below it is a finding (ranks sharing cores, a slower link than fitted).
void judge_weak_scaling(const StepContext& c, CaseResult& r, const CaseResult& one) {
  const double accumulation = r.params["accumulation"].get<double>();
  const double compute_s = accumulation * one.observations["micro_step_s"].get<double>();
  const double all_reduce_s = r.observations["predicted_all_reduce_s"].get<double>();
  const double predicted = compute_s / (compute_s + all_reduce_s);
  Interval measured = Interval::point(median(one.step_s) / median(r.step_s));
  if (one.step_s.size() >= 2 && r.step_s.size() >= 2) {
    const RatioInterval ratio = ratio_interval(one.step_s, r.step_s, c.tolerance);
    measured = {1 / ratio.ratio, 1 / ratio.high, 1 / ratio.low, ratio.coverage};
  }
  r.observations["weak_scaling_efficiency"] = measured.value;
  r.observations["predicted_weak_scaling_efficiency"] = predicted;
  r.checks.push_back(at_least(
      {"strategies", r.name + "/weak_scaling",
       "E(N) = t_step(1)/t_step(N) >= N_acc*t_micro(1) / (N_acc*t_micro(1) + all-reduce(P) at N)",
       CheckKind::expectation, "weak-scaling efficiency"},
      predicted * (1 - c.tolerance), measured));
}

// Overlapping must shorten the step where the model says it does: the overlapped step over the
// plain one (the Hodges–Lehmann ratio of their steps) at most 1, judged where the model's saving
// exceeds the band; with one bucket (nothing to overlap) or a saving within the band, a SKIP.
void judge_overlap(const StepContext& c, CaseResult& r, const CaseResult& plain) {
  const double predicted = r.predicted_step_s / plain.predicted_step_s;
  r.observations["step_over_plain"] = median(r.step_s) / median(plain.step_s);
  r.observations["predicted_step_over_plain"] = predicted;
  const CheckHead head{"strategies", r.name + "/shorter",
                       "t_step(overlapped) < t_step(plain) (the backward hides all but the last "
                       "bucket's all-reduce; an expectation: it takes a library that progresses "
                       "non-blocking all-reduces while the rank computes)",
                       CheckKind::expectation, "overlapped step / plain step"};
  if (predicted > 1 - c.tolerance || r.step_s.size() < 2 || plain.step_s.size() < 2) {
    char why[160];
    std::snprintf(why, sizeof why,
                  "the model's overlapped/plain step %.3f is within the %.0f%% band of 1 (one "
                  "bucket, or all-reduces short beside the step)",
                  predicted, c.tolerance * 100);
    r.checks.push_back(skipped(head, why));
    return;
  }
  const RatioInterval ratio = ratio_interval(plain.step_s, r.step_s, c.tolerance);
  r.checks.push_back(at_most(head, 1, {ratio.ratio, ratio.low, ratio.high, ratio.coverage}));
}

}  // namespace

std::vector<GemmShape> largest_shapes(const Options& o, int ranks) {
  std::vector<GemmShape> all = transformer_layer(o.batch, o.sequence, o.hidden, 1).all();
  for (const GemmShape& g : expert_mlp(busiest_expert_tokens(o, ranks), o.hidden)) all.push_back(g);
  return all;
}

Link measure_link(StepComm& comm, const Options& o, Collective collective, bool non_blocking) {
  Link link;
  link.collective =
      std::string(theory::collective_name(collective)) + (non_blocking ? "_nonblocking" : "");
  const int p = comm.group_ranks();
  const double largest = collective == Collective::all_reduce
                             ? std::max(o.bucket_bytes, double(o.batch * o.sequence * o.hidden * 4))
                             : largest_all_to_all_bytes(o, p);
  const double unit = collective == Collective::all_reduce ? 4.0 : 4.0 * p;  // whole elements
  std::vector<double> sizes;
  for (double n = 4096; n < largest; n *= 2) sizes.push_back(std::floor(n / unit) * unit);
  sizes.push_back(std::ceil(largest / unit) * unit);
  // Non-blocking: as the overlapped step runs them, one per bucket queued at once (the waits for
  // the progress thread to wake and for the rank to see the last one complete are once per step,
  // not per all-reduce); the time per all-reduce.
  const int queued =
      non_blocking
          ? static_cast<int>(theory::gradient_buckets_bytes(o.parameters, 4, o.bucket_bytes).size())
          : 1;
  // The all-reduces walk a buffer as large as the gradients, a slice per call, as the data-
  // parallel step does (its buckets are cold: the step's other work came between). Calls on one
  // cache-resident buffer measured 2.5× the bandwidth that 8 MiB of gradients got after the
  // GEMMs here (0.87 ms predicted, 2.15 ms in the step, on an idle 2-core VM).
  const double walked_bytes = collective == Collective::all_reduce
                                  ? std::max(sizes.back(), 4 * o.parameters)
                                  : sizes.back();
  std::vector<float> send(static_cast<std::size_t>(walked_bytes / 4), 1.0f);
  std::vector<float> recv(static_cast<std::size_t>(sizes.back() / 4), 0.0f);
  std::size_t offset = 0;
  const auto next_slice = [&](std::size_t count) {
    if (offset + count > send.size()) offset = 0;
    float* slice = send.data() + offset;
    offset += count;
    return slice;
  };
  for (double n : sizes) {
    const auto count = static_cast<std::size_t>(n / 4);
    const std::vector<int> per_rank(static_cast<std::size_t>(p), static_cast<int>(count / p));
    const auto samples = run_steps(comm, 2, o.quick ? 7 : 15, [&] {
      if (collective == Collective::all_reduce && non_blocking) {
        for (int i = 0; i < queued; ++i) comm.start_all_reduce_sum(next_slice(count), count);
        comm.complete_all_reduces();
      } else if (collective == Collective::all_reduce) {
        comm.all_reduce_sum(next_slice(count), count);
      } else {
        comm.all_to_all(send.data(), per_rank, recv.data(), per_rank);
      }
      return std::vector<double>{};
    });
    link.bytes.push_back(n);
    link.times_s.push_back(median(step_times(samples)) / queued);
  }
  if (p > 1) {
    // t = latency_terms·α + byte_terms·n·β, fitted by Theil–Sen (harness/fit.h): one size slowed
    // by a busy machine (a 1 MiB all-reduce at 9 ms among 0.5 ms neighbours, seen here) moves a
    // least-squares fit far more than the median of the pairwise slopes.
    const Algorithm a = theory::bandwidth_optimal_algorithm(collective);
    const theory::AlphaBetaTerms terms = theory::alpha_beta_terms(collective, a, p);
    const RobustFit fit = theil_sen_fit(link.bytes, link.times_s);
    const auto per_term = [](double fitted, double count) {
      return count > 0 ? std::max(0.0, fitted) / count : 0;
    };
    link.alpha_s = per_term(fit.intercept, terms.latency_terms);
    link.beta_s_per_byte = per_term(fit.slope, terms.byte_terms);
    link.beta_low_s_per_byte = per_term(fit.slope_low, terms.byte_terms);
    link.beta_high_s_per_byte = per_term(fit.slope_high, terms.byte_terms);
  }
  return link;
}

std::vector<CaseResult> run_pipeline(StepContext& c) {
  const Options& o = c.o;
  const int ranks = c.comm.group_ranks(), rank = c.comm.rank();
  const int p = o.stages > 0 ? o.stages : ranks;
  const int stage = rank % p, first = rank - stage;
  const int rows = o.batch * o.sequence;
  const auto layer = transformer_layer(o.batch, o.sequence, o.hidden, 1).all();
  const auto count = static_cast<std::size_t>(o.batch) * o.sequence * o.hidden;
  double p2p_s = 0;
  c.lockstep.measure("the stages' send (ranks 0 and 1)", "link/send_recv",
                     [&] { p2p_s = measure_p2p_s(c.comm, count, o.quick ? 7 : 15); });
  std::vector<CaseResult> out;
  for (const std::string& schedule_text : o.schedules) {
    const theory::PipelineSchedule schedule = schedule_from_name(schedule_text);
    const bool interleaved = schedule == theory::PipelineSchedule::interleaved_1f1b;
    // Interleaved: each stage holds v chunks, each 1/v of its layer (b·s/v of the rows); the
    // model's stage c·p + s is chunk c of stage s.
    const int v = interleaved ? o.chunks : 1;
    const auto chunk_layer = interleaved ? with_rows(layer, rows / v) : layer;
    for (int m : o.micro_batches) {
      CaseResult r{.name = "pipeline/" + schedule_text +
                           (interleaved ? "/v" + std::to_string(v) : "") + "/p" +
                           std::to_string(p) + "/m" + std::to_string(m) + "/" + o.compute,
                   .strategy = "pipeline"};
      const auto ops = pipeline_ops(schedule, p, m, stage, v);
      // Per chunk and micro-batch: the activation that came in (and goes on), and its gradient.
      const auto slots = static_cast<std::size_t>(v) * static_cast<std::size_t>(m);
      std::vector<std::vector<float>> activations(slots, std::vector<float>(count, 1.0f));
      std::vector<std::vector<float>> gradients = activations;
      // Tags: forward into (chunk, micro-batch), then backward; with v = 1 the micro-batch, m + it.
      const auto tag = [&](bool forward, int chunk, int micro_batch) {
        return (forward ? 0 : v * m) + chunk * m + micro_batch;
      };
      const int previous = first + (stage + p - 1) % p, next = first + (stage + 1) % p;
      const std::vector<StepSample> samples = run_case(c, r, [&] {
        double forward_s = 0, backward_s = 0;
        int held = 0, peak = 0;
        for (const PipelineOp& op : ops) {
          const std::size_t slot = static_cast<std::size_t>(op.chunk) * m + op.micro_batch;
          // The model's first stage is chunk 0 of stage 0, its last chunk v−1 of stage p−1;
          // past stage p−1 the next chunk is on stage 0, before stage 0 the previous on p−1.
          const bool model_first = op.chunk == 0 && stage == 0;
          const bool model_last = op.chunk == v - 1 && stage == p - 1;
          if (op.forward) {
            float* a = activations[slot].data();
            if (!model_first && p > 1)
              c.comm.receive(a, count, previous, tag(true, op.chunk, op.micro_batch));
            forward_s += c.compute.forward(chunk_layer);
            if (!model_last && p > 1)
              c.comm.send(a, count, next,
                          tag(true, stage == p - 1 ? op.chunk + 1 : op.chunk, op.micro_batch));
            peak = std::max(peak, ++held);
          } else {
            float* g = gradients[slot].data();
            if (!model_last && p > 1)
              c.comm.receive(g, count, next, tag(false, op.chunk, op.micro_batch));
            backward_s += c.compute.backward(chunk_layer);
            if (!model_first && p > 1)
              c.comm.send(g, count, previous,
                          tag(false, stage == 0 ? op.chunk - 1 : op.chunk, op.micro_batch));
            --held;
          }
        }
        c.comm.complete_sends();
        return std::vector<double>{forward_s + backward_s, forward_s, backward_s, double(peak)};
      });
      // A stage's forward and backward of one micro-batch (all its chunks).
      const double forward_s = median_max(samples, 1, 1.0 / m);
      const double backward_s = median_max(samples, 2, 1.0 / m);
      r.predicted_step_s =
          interleaved ? theory::interleaved_pipeline_step_s(p, m, v, forward_s, backward_s, p2p_s)
                      : theory::pipeline_step_s(p, m, forward_s, backward_s, p2p_s);
      // The formula leaves the sends out. Each of the 2(m·v+p-1) chunk operations on the critical
      // path may wait for one: the send itself and the receiver's wake-up from its polling
      // sleep, as late as this machine wakes a sleeping thread now (the synthetic waits' mean
      // overshoot, measured over the run so far, the largest rank's; 0 with GEMMs).
      const double wake_s = c.comm.max_over_group(c.compute.mean_overshoot_s());
      const double units = double(m) * v, unit_s = (forward_s + backward_s) / v;
      const double with_sends =
          1 - units * unit_s / ((units + p - 1) * (unit_s + 2 * (p2p_s + wake_s)));
      // The busiest stage's idle fraction (its compute sets the schedule's pace); interleaved, the
      // bubble over the ideal time, idle/busy, as Narayanan et al. state it.
      std::vector<double> bubble;
      for (const StepSample& s : samples) {
        const double idle = 1 - s.max[0] / s.step_s;
        bubble.push_back(interleaved ? idle / (1 - idle) : idle);
      }
      const double predicted_bubble = interleaved ? theory::interleaved_bubble_ratio(p, m, v)
                                                  : theory::pipeline_bubble_fraction(p, m);
      const double bubble_with_sends = interleaved ? with_sends / (1 - with_sends) : with_sends;
      const Band bubble_band{predicted_bubble * (1 - c.tolerance),
                             std::max(predicted_bubble, bubble_with_sends) * (1 + c.tolerance)};
      const int peak_max = static_cast<int>(samples.back().max[3]);
      const int peak_sum = static_cast<int>(samples.back().sum[3]);
      int law_sum = 0, law_max = 0;
      for (int s = 0; s < p; ++s) {
        const int law = theory::pipeline_peak_activations(schedule, p, m, s, v);
        law_sum += law;
        law_max = std::max(law_max, law);
      }
      law_sum *= ranks / p;
      const int boundaries = p > 1 ? p * v - 1 : 0;  // chunk boundaries crossed between ranks
      r.flop = 3 * forward_flop(layer) * m * ranks;
      r.bytes = 2.0 * double(count) * 4 * m * boundaries * (ranks / p);
      r.params = {{"schedule", schedule_text},    {"stages", p},          {"micro_batches", m},
                  {"pipelines", ranks / p},       {"compute", o.compute}, {"ranks", ranks},
                  {"activation_bytes", count * 4}};
      if (interleaved) r.params["chunks"] = v;
      const std::string bubble_key = interleaved ? "bubble_over_ideal" : "bubble_fraction";
      r.observations = {{bubble_key, median(bubble)},
                        {"predicted_" + bubble_key, predicted_bubble},
                        {"predicted_" + bubble_key + "_with_sends", bubble_with_sends},
                        {"send_s", p2p_s},
                        {"wake_up_s", wake_s},
                        {"forward_s", forward_s},
                        {"backward_s", backward_s},
                        {"peak_activations_max", peak_max},
                        {"peak_activations_sum", peak_sum}};
      const std::string law_bubble =
          interleaved
              ? "bubble/ideal = (p-1)/(v*m) (Narayanan et al. 2021, interleaved 1F1B), up to a "
                "measured send and wake-up per chunk operation on the critical path"
              : "bubble = 1 - busiest stage's compute/step = (p-1)/(m+p-1) (GPipe; 1F1B alike), "
                "up to a measured send and wake-up per operation on the critical path";
      // The formula assumes every operation of a stage takes the same time whatever the other
      // stages run. A wait that holds no core keeps that premise: the bubble is a law. Real GEMMs
      // on cores and caches the stages share do not (on an idle 2-core VM, p = 2, m = 4: bubble
      // 0.14–0.16 against 0.2, the steady state's concurrent GEMMs slower than the ramps'
      // lone ones), so there the formula is what a pipeline should reach: an expectation.
      CheckHead bubble_head = head(r.name + "/bubble", law_bubble,
                                   interleaved ? "bubble over the ideal time" : "bubble fraction");
      if (o.compute != "synthetic") {
        bubble_head.kind = CheckKind::expectation;
        bubble_head.law +=
            " (an expectation with real compute: operations on shared cores and "
            "caches are not the same length at every point of the schedule)";
      }
      r.checks.push_back(
          within(bubble_head, predicted_bubble, bubble_band, summarize(bubble).median_interval()));
      r.checks.push_back(step_check(
          c, r,
          interleaved ? "t_step = (m*v+p-1)(t_f+t_b)/v + 2(p*v-1)t_send, t_f, t_b (a stage's), "
                        "t_send measured"
                      : "t_step = (m+p-1)(t_f+t_b) + 2(p-1)t_send, t_f, t_b, t_send measured"));
      const std::string law_peak =
          schedule == theory::PipelineSchedule::gpipe
              ? "peak activations held per stage = m (GPipe)"
          : interleaved
              ? "peak chunk activations held by stage s = 2(p-s-1) + (v-1)p + 1, m*v when m = p "
                "(Megatron interleaved)"
              : "peak activations held by stage s = min(m, p-s) (1F1B)";
      r.checks.push_back(exact_count(head(r.name + "/peak_activations_max", law_peak, "counted"),
                                     static_cast<std::uint64_t>(law_max),
                                     static_cast<std::uint64_t>(peak_max)));
      r.checks.push_back(exact_count(
          head(r.name + "/peak_activations_sum", law_peak + ", summed over the stages", "counted"),
          static_cast<std::uint64_t>(law_sum), static_cast<std::uint64_t>(peak_sum)));
      judge_premise(c, r);
      out.push_back(std::move(r));
    }
  }
  return out;
}

std::vector<CaseResult> run_data_parallel(StepContext& c) {
  const int world = c.comm.group_ranks();
  std::vector<CaseResult> out, one_rank;
  for (int ranks : scaling_ranks(world)) {
    std::unique_ptr<StepComm> group;  // the first `ranks` ranks below the world
    if (ranks < world) group = c.comm.first_ranks(ranks);
    StepComm* comm = ranks < world ? group.get() : &c.comm;
    if (comm) {
      // The link on these ranks, measured just before their cases (the run's first fit, on the
      // world, may be minutes old by now).
      Link all_reduce;
      c.lockstep.measure("the all-reduce link on " + std::to_string(ranks) + " ranks",
                         "link/all_reduce/n" + std::to_string(ranks),
                         [&] { all_reduce = measure_link(*comm, c.o, Collective::all_reduce); });
      Link non_blocking;
      if (c.o.overlap)
        c.lockstep.measure(
            "the non-blocking all-reduce link on " + std::to_string(ranks) + " ranks",
            "link/all_reduce_nonblocking/n" + std::to_string(ranks),
            [&] { non_blocking = measure_link(*comm, c.o, Collective::all_reduce, true); });
      StepContext here{c.o, *comm, c.compute, all_reduce, c.all_to_all, c.tolerance, c.lockstep};
      for (std::size_t a = 0; a < c.o.accumulation.size(); ++a) {
        CaseResult r = data_parallel_case(here, c.o.accumulation[a], nullptr);
        if (ranks == 1) one_rank.push_back(r);
        if (ranks > 1 && a < one_rank.size()) judge_weak_scaling(here, r, one_rank[a]);
        std::optional<CaseResult> overlapped;
        if (c.o.overlap) {
          overlapped = data_parallel_case(here, c.o.accumulation[a], &non_blocking);
          judge_overlap(here, *overlapped, r);
        }
        out.push_back(std::move(r));
        if (overlapped) out.push_back(std::move(*overlapped));
      }
    }
    if (ranks < world) c.comm.meet_everyone();
  }
  return out;
}

std::vector<CaseResult> run_tensor_parallel(StepContext& c) {
  const Options& o = c.o;
  const int t = c.comm.group_ranks();
  const auto blocks = transformer_layer(o.batch, o.sequence, o.hidden, t);
  const auto count = static_cast<std::size_t>(o.batch) * o.sequence * o.hidden;
  std::vector<float> activation(count, 1.0f);
  CaseResult r{
      .name = "tensor/t" + std::to_string(t) + "/l" + std::to_string(o.layers) + "/" + o.compute,
      .strategy = "tensor"};
  const std::vector<StepSample> samples = run_case(c, r, [&] {
    double compute_s = 0;
    for (int l = 0; l < o.layers; ++l) {
      compute_s += c.compute.forward(blocks.attention);
      c.comm.all_reduce_sum(activation.data(), count);
      compute_s += c.compute.forward(blocks.mlp);
      c.comm.all_reduce_sum(activation.data(), count);
    }
    for (int l = 0; l < o.layers; ++l) {
      compute_s += c.compute.backward(blocks.mlp);
      c.comm.all_reduce_sum(activation.data(), count);
      compute_s += c.compute.backward(blocks.attention);
      c.comm.all_reduce_sum(activation.data(), count);
    }
    return std::vector<double>{compute_s};
  });
  const double compute_s = median_max(samples, 0);
  const auto comm = theory::tensor_parallel_comm(
      o.batch, o.sequence, o.hidden, 4, t, c.all_reduce.alpha_s, c.all_reduce.beta_s_per_byte);
  r.predicted_step_s = compute_s + o.layers * comm.time_per_layer_s;
  const double layer_flop =
      theory::tensor_parallel_layer_forward_flop(o.batch, o.sequence, o.hidden, t);
  r.flop = 3 * layer_flop * o.layers * t;
  r.bytes = comm.all_reduces_per_layer * comm.bytes_per_all_reduce * o.layers * t;
  r.link = "all_reduce";
  r.link_wire_bytes_per_rank =
      comm.all_reduces_per_layer * o.layers *
      theory::link_work(Collective::all_reduce, t, comm.bytes_per_all_reduce).wire_bytes_per_rank;
  r.params = {{"tp_degree", t},         {"layers", o.layers}, {"batch", o.batch},
              {"sequence", o.sequence}, {"hidden", o.hidden}, {"compute", o.compute}};
  r.observations = {{"compute_s", compute_s},
                    {"predicted_communication_s", o.layers * comm.time_per_layer_s},
                    {"bytes_per_all_reduce", comm.bytes_per_all_reduce}};
  r.checks.push_back(step_check(
      c, r, "t_step = compute/t + L*4 ring all-reduces of b*s*h (Megatron; alpha, beta this run)"));
  judge_premise(c, r);
  return {r};
}

std::vector<CaseResult> run_expert_parallel(StepContext& c) {
  const Options& o = c.o;
  const int e = c.comm.group_ranks(), rank = c.comm.rank();
  std::vector<CaseResult> out;
  for (bool skewed : {false, true}) {
    const std::vector<int> loads = router_loads(o.tokens, o.top_k, e, skewed);
    // Every rank routes alike: expert j takes loads[j] tokens from each rank.
    std::vector<int> send_counts;
    for (int load : loads) send_counts.push_back(load * o.hidden);
    const std::vector<int> recv_counts(loads.size(),
                                       loads[static_cast<std::size_t>(rank)] * o.hidden);
    const int mine = e * loads[static_cast<std::size_t>(rank)];
    const auto mlp = expert_mlp(mine, o.hidden);
    std::vector<float> tokens(static_cast<std::size_t>(o.tokens) * o.top_k * o.hidden, 1.0f);
    std::vector<float> received(static_cast<std::size_t>(mine) * o.hidden + 1, 0.0f);
    CaseResult r{.name = "expert/e" + std::to_string(e) + (skewed ? "/skewed" : "/uniform") + "/" +
                         o.compute,
                 .strategy = "expert"};
    const std::vector<StepSample> samples = run_case(c, r, [&] {
      const double start = now_s();
      c.comm.all_to_all(tokens.data(), send_counts, received.data(), recv_counts);
      const double dispatched = now_s();
      const double compute_s = mlp.empty() ? 0 : c.compute.forward(mlp);
      const double combine_start = now_s();
      c.comm.all_to_all(received.data(), recv_counts, tokens.data(), send_counts);
      return std::vector<double>{compute_s, (dispatched - start) + (now_s() - combine_start)};
    });
    std::vector<double> load_values(loads.begin(), loads.end());
    const double imbalance = theory::expert_load_imbalance(load_values.data(), e);
    // Uniform: each rank's send buffer, tokens·k·h·4; skewed: the busiest expert's exchange.
    const double exchange_bytes =
        skewed ? largest_all_to_all_bytes(o, e) : double(o.tokens) * o.top_k * o.hidden * 4;
    const double all_to_all_s =
        link_time_s(c.all_to_all, Collective::all_to_all, e, exchange_bytes);
    const double compute_max_s = median_max(samples, 0);
    r.predicted_step_s = 2 * all_to_all_s + compute_max_s;
    // Bytes this rank sends to the others in one all-to-all, counted from its send counts.
    double sent_to_others = 0;
    for (int j = 0; j < e; ++j)
      if (j != rank) sent_to_others += send_counts[static_cast<std::size_t>(j)] * 4.0;
    const double sent_max = c.comm.max_over_group(sent_to_others);
    const double predicted_sent =
        theory::expert_all_to_all_bytes(o.tokens, o.top_k, o.hidden, 4, e);
    std::vector<double> compute_ratio;
    for (const StepSample& s : samples)
      compute_ratio.push_back(s.sum[0] > 0 ? s.max[0] / (s.sum[0] / e) : 0);
    r.flop = forward_flop(expert_mlp(o.tokens * o.top_k, o.hidden)) * e;
    r.bytes = 2 * double(o.tokens) * o.top_k * o.hidden * 4 * e;
    // Dispatch and combine: two all-to-alls of the exchange the model times (the busiest's).
    r.link = "all_to_all";
    r.link_wire_bytes_per_rank =
        2 * theory::link_work(Collective::all_to_all, e, exchange_bytes).wire_bytes_per_rank;
    r.params = {{"ep_degree", e},     {"router", skewed ? "skewed" : "uniform"},
                {"tokens", o.tokens}, {"top_k", o.top_k},
                {"hidden", o.hidden}, {"compute", o.compute}};
    r.observations = {{"loads", loads},
                      {"load_imbalance", imbalance},
                      {"compute_imbalance", median(compute_ratio)},
                      {"all_to_all_s", median_max(samples, 1) / 2},
                      {"predicted_all_to_all_s", all_to_all_s},
                      {"bytes_sent_to_others_max", sent_max}};
    r.checks.push_back(step_check(
        c, r, "t_step = 2 pairwise all-to-alls (alpha, beta this run) + the busiest expert"));
    if (!skewed && (o.tokens * o.top_k) % e == 0)
      r.checks.push_back(exact_count(
          head(r.name + "/bytes_sent", "tokens*k*h*bytes*(e-1)/e per device (GShard)", "bytes"),
          static_cast<std::uint64_t>(predicted_sent), static_cast<std::uint64_t>(sent_max)));
    if (skewed)
      r.checks.push_back(
          within(head(r.name + "/compute_imbalance", "busiest/mean expert compute = max/mean load",
                      "max/mean compute"),
                 imbalance, Band::relative(imbalance, c.tolerance),
                 summarize(compute_ratio).median_interval()));
    judge_premise(c, r);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace bb::strategies
