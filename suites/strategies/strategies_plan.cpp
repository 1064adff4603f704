#include "suites/strategies/strategies_plan.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "theory/gemm.h"

namespace bb::strategies {

using theory::PipelineSchedule;

double forward_flop(const std::vector<GemmShape>& gemms) {
  double flop = 0;
  for (const GemmShape& g : gemms) flop += theory::gemm_work(g.m, g.n, g.k, 4, 4).flop;
  return flop;
}

double backward_flop(const std::vector<GemmShape>& gemms) { return 2 * forward_flop(gemms); }

std::vector<GemmShape> LayerBlocks::all() const {
  std::vector<GemmShape> v = attention;
  v.insert(v.end(), mlp.begin(), mlp.end());
  return v;
}

LayerBlocks transformer_layer(int batch, int sequence, int hidden, int tp_degree) {
  if (tp_degree < 1 || hidden % tp_degree != 0)
    throw std::invalid_argument("the tensor-parallel degree " + std::to_string(tp_degree) +
                                " must divide --hidden " + std::to_string(hidden));
  const int rows = batch * sequence, h = hidden, part = hidden / tp_degree;
  return {{{rows, 3 * part, h}, {rows, h, part}}, {{rows, 4 * part, h}, {rows, h, 4 * part}}};
}

std::vector<GemmShape> expert_mlp(int tokens, int hidden) {
  if (tokens <= 0) return {};
  return {{tokens, 4 * hidden, hidden}, {tokens, hidden, 4 * hidden}};
}

std::vector<PipelineOp> pipeline_ops(PipelineSchedule schedule, int stages, int micro_batches,
                                     int stage, int chunks) {
  const int v = schedule == PipelineSchedule::interleaved_1f1b ? chunks : 1;
  const int group = stages * v, total = micro_batches * v;
  // The k-th forward or backward (with v = 1: micro-batch k, chunk 0).
  const auto op = [&](int k, bool forward) {
    const int chunk = (k % group) / stages;
    return PipelineOp{forward, (k / group) * stages + k % stages, forward ? chunk : v - 1 - chunk};
  };
  int warmup = total;  // GPipe: every forward first
  if (schedule == PipelineSchedule::one_f_one_b)
    warmup = std::min(stages - stage - 1, micro_batches);
  if (schedule == PipelineSchedule::interleaved_1f1b && micro_batches != stages)
    warmup = std::min(total, 2 * (stages - stage - 1) + (v - 1) * stages);
  std::vector<PipelineOp> ops;
  for (int k = 0; k < warmup; ++k) ops.push_back(op(k, true));
  for (int k = 0; k + warmup < total; ++k) {
    ops.push_back(op(k + warmup, true));
    ops.push_back(op(k, false));
  }
  for (int k = std::max(0, total - warmup); k < total; ++k) ops.push_back(op(k, false));
  return ops;
}

int peak_held(const std::vector<PipelineOp>& ops) {
  int held = 0, peak = 0;
  for (const PipelineOp& op : ops) {
    held += op.forward ? 1 : -1;
    peak = std::max(peak, held);
  }
  return peak;
}

PipelineSchedule schedule_from_name(const std::string& name) {
  if (name == "gpipe") return PipelineSchedule::gpipe;
  if (name == "1f1b") return PipelineSchedule::one_f_one_b;
  if (name == "interleaved") return PipelineSchedule::interleaved_1f1b;
  throw std::invalid_argument("unknown pipeline schedule '" + name +
                              "' (gpipe, 1f1b, interleaved)");
}

const char* schedule_name(PipelineSchedule s) {
  switch (s) {
    case PipelineSchedule::gpipe: return "gpipe";
    case PipelineSchedule::one_f_one_b: return "1f1b";
    case PipelineSchedule::interleaved_1f1b: return "interleaved";
  }
  return "?";
}

std::vector<int> proportional_split(int total, const std::vector<double>& weights) {
  const double sum = std::accumulate(weights.begin(), weights.end(), 0.0);
  if (!(sum > 0)) throw std::invalid_argument("proportional_split: no weight");
  std::vector<int> parts(weights.size(), 0);
  std::vector<std::pair<double, std::size_t>> remainders;
  int given = 0;
  for (std::size_t j = 0; j < parts.size(); ++j) {
    const double exact = total * weights[j] / sum;
    parts[j] = static_cast<int>(std::floor(exact));
    given += parts[j];
    remainders.push_back({-(exact - parts[j]), j});  // largest first, then the lower index
  }
  std::sort(remainders.begin(), remainders.end());
  for (std::size_t r = 0; given < total; ++r, ++given) ++parts[remainders[r].second];
  return parts;
}

std::vector<int> router_loads(int tokens, int top_k, int experts, bool skewed) {
  std::vector<double> share(static_cast<std::size_t>(experts));
  for (std::size_t j = 0; j < share.size(); ++j) share[j] = skewed ? 1.0 / double(j + 1) : 1.0;
  return proportional_split(tokens * top_k, share);
}

std::vector<int> scaling_ranks(int world) {
  std::vector<int> counts;
  for (int n = 1; n < world; n *= 2) counts.push_back(n);
  counts.push_back(world);
  return counts;
}

std::vector<GemmShape> with_rows(const std::vector<GemmShape>& gemms, int rows) {
  std::vector<GemmShape> part = gemms;
  for (GemmShape& g : part) g.m = rows;
  return part;
}

std::vector<std::string> strategy_list(const Options& o) {
  if (o.strategies.empty()) return {"data", "pipeline", "tensor", "expert"};
  return o.strategies;
}

void settle_defaults(Options& o) {
  if (o.micro_batches.empty()) o.micro_batches = {4, 8, 16};
  if (o.schedules.empty()) o.schedules = {"gpipe", "1f1b"};
  if (o.accumulation.empty()) o.accumulation = {1, 4, 16};
  if (o.parameters <= 0) o.parameters = o.quick ? 0x1p19 : 0x1p21;
  if (o.samples <= 0) o.samples = o.quick ? 5 : 15;
}

void check_options(const Options& o, int ranks) {
  for (const std::string& s : strategy_list(o))
    if (s != "data" && s != "pipeline" && s != "tensor" && s != "expert")
      throw std::invalid_argument("unknown strategy '" + s + "' (data, pipeline, tensor, expert)");
  if (o.compute != "synthetic" && o.compute != "gemm")
    throw std::invalid_argument("--compute must be synthetic or gemm");
  if (!(o.synthetic_flop_per_s > 0)) throw std::invalid_argument("--synthetic-rate must be > 0");
  if (o.batch < 1 || o.sequence < 1 || o.hidden < 1 || o.layers < 1 || o.tokens < 1 || o.top_k < 1)
    throw std::invalid_argument("--batch, --sequence, --hidden, --layers, --tokens, --top-k >= 1");
  if (!(o.bucket_bytes >= 4)) throw std::invalid_argument("--bucket-bytes must be >= 4");
  if (o.overlap) {
    const double buckets = std::ceil(o.parameters * 4 / o.bucket_bytes);
    if (buckets > kMaxOverlapBuckets)
      throw std::invalid_argument(
          "--overlap: " + std::to_string(static_cast<long long>(buckets)) +
          " gradient buckets (4 x --parameters / --bucket-bytes); at most " +
          std::to_string(kMaxOverlapBuckets));
  }
  if (o.stages < 0) throw std::invalid_argument("--stages must be >= 0");
  for (const std::string& s : o.schedules) (void)schedule_from_name(s);
  for (int m : o.micro_batches)
    if (m < 1) throw std::invalid_argument("--micro-batches must be >= 1");
  for (int a : o.accumulation)
    if (a < 1) throw std::invalid_argument("--accumulation must be >= 1");
  const bool interleaved = std::ranges::find(o.schedules, "interleaved") != o.schedules.end();
  if (interleaved && o.chunks < 2)
    throw std::invalid_argument("--chunks must be >= 2 for the interleaved schedule");
  if (interleaved && (o.batch * o.sequence) % o.chunks != 0)
    throw std::invalid_argument(
        "--chunks " + std::to_string(o.chunks) +
        " must divide the micro-batch's b*s = " + std::to_string(o.batch * o.sequence) +
        " token rows (each chunk computes 1/v of a stage's layer)");
  if (ranks == 0) return;  // the world's size is not known yet
  const int stages = o.stages > 0 ? o.stages : ranks;
  if (ranks % stages != 0)
    throw std::invalid_argument("--stages " + std::to_string(o.stages) + " does not divide the " +
                                std::to_string(ranks) + " ranks");
  const std::vector<std::string> list = strategy_list(o);
  const auto wanted = [&](const char* s) { return std::ranges::find(list, s) != list.end(); };
  if (wanted("pipeline"))
    for (const std::string& s : o.schedules)
      for (int m : o.micro_batches) {
        const PipelineSchedule schedule = schedule_from_name(s);
        if (schedule == PipelineSchedule::one_f_one_b && m < stages)
          throw std::invalid_argument("1F1B needs at least as many micro-batches as stages: m = " +
                                      std::to_string(m) + " < p = " + std::to_string(stages));
        if (schedule == PipelineSchedule::interleaved_1f1b && m % stages != 0)
          throw std::invalid_argument(
              "the interleaved schedule needs the micro-batches to be a multiple of the stages: "
              "m = " +
              std::to_string(m) + ", p = " + std::to_string(stages));
      }
  if (wanted("tensor")) (void)transformer_layer(o.batch, o.sequence, o.hidden, ranks);
}

std::string canonical(const Options& o) {
  std::ostringstream s;
  s.precision(17);
  const auto list = [&](const auto& v) {
    for (const auto& x : v) s << x << ',';
    s << ';';
  };
  s << o.engine << ';';
  list(o.strategies);
  s << o.compute << ';' << o.synthetic_flop_per_s << ';' << o.batch << ';' << o.sequence << ';'
    << o.hidden << ';' << o.stages << ';';
  list(o.micro_batches);
  list(o.schedules);
  s << o.chunks << ';';
  list(o.accumulation);
  s << o.parameters << ';' << o.bucket_bytes << ';' << o.overlap << ';' << o.layers << ';'
    << o.tokens << ';' << o.top_k << ';' << o.samples << ';' << o.warmup << ';' << o.timeout_s
    << ';' << o.quick << ';' << o.no_fail << ';' << o.out << ';' << o.simulate_hang;
  return s.str();
}

}  // namespace bb::strategies
