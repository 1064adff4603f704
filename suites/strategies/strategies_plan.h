// What the strategies suite runs, the same on every rank: the GEMMs of a layer (their flop from
// theory/), the pipeline schedules as lists of operations per stage, the MoE router's loads, the
// cases' names and the options every rank must share. No processes here (tests/strategies_test).
#pragma once

#include <string>
#include <vector>

#include "suites/strategies/strategies.h"
#include "theory/parallelism.h"

namespace bb::strategies {

// C (m×n) = A (m×k) · B (k×n). Its backward pass is two GEMMs of the same flop: dA = dC·Bᵀ
// (m×k from k = n) and dB = Aᵀ·dC (k×n from k = m).
struct GemmShape {
  int m = 1, n = 1, k = 1;
};
double forward_flop(const std::vector<GemmShape>& gemms);   // Σ 2mnk (theory::gemm_work)
double backward_flop(const std::vector<GemmShape>& gemms);  // twice the forward

// A Megatron transformer layer's GEMMs on one of t ranks, in its two blocks, each ending in an
// all-reduce of b·s·h: attention (QKV h→3h/t, projection h/t→h) and MLP (h→4h/t, 4h/t→h). Their
// flop sum to theory::tensor_parallel_layer_forward_flop. Throws std::invalid_argument when t does
// not divide h.
struct LayerBlocks {
  std::vector<GemmShape> attention, mlp;
  std::vector<GemmShape> all() const;
};
LayerBlocks transformer_layer(int batch, int sequence, int hidden, int tp_degree);

// An expert's MLP (h→4h→h) on `tokens` tokens; none for 0 tokens.
std::vector<GemmShape> expert_mlp(int tokens, int hidden);

// `gemms` with every m (the rows: the micro-batch's b·s tokens) set to `rows`: that share of the
// work (a backward split into pieces, a pipeline chunk).
std::vector<GemmShape> with_rows(const std::vector<GemmShape>& gemms, int rows);

// `total` split in proportion to `weights` (≥ 0, not all 0), rounded by largest remainder (on a
// tie the lower index first): the parts sum to `total`.
std::vector<int> proportional_split(int total, const std::vector<double>& weights);

// The weak-scaling sweep's rank counts: 1, 2, 4, … below the world's, then the world's.
std::vector<int> scaling_ranks(int world);

// One stage's operations in a pipeline step, in order; `chunk`: which of the stage's model chunks
// (interleaved; 0 otherwise).
struct PipelineOp {
  bool forward = true;
  int micro_batch = 0;
  int chunk = 0;
};
// GPipe: every forward, then every backward. 1F1B: p−stage−1 forwards (at most m), then one
// forward and one backward alternately, then the remaining backwards. Interleaved 1F1B with
// v = `chunks` (Megatron-LM's forward_backward_pipelining_with_interleaving; m a multiple of p):
// the k-th forward runs chunk (k mod p·v) div p on micro-batch (k div p·v)·p + k mod p, the k-th
// backward the chunks in reverse; 2(p−stage−1) + (v−1)·p warm-up forwards (every one when m = p),
// then one forward and one backward alternately, then the remaining backwards.
std::vector<PipelineOp> pipeline_ops(theory::PipelineSchedule schedule, int stages,
                                     int micro_batches, int stage, int chunks = 1);
// The largest number of activations the operations hold at once (a forward adds one, a backward
// frees one): counted from the list.
int peak_held(const std::vector<PipelineOp>& ops);
theory::PipelineSchedule schedule_from_name(const std::string& name);  // throws on others
const char* schedule_name(theory::PipelineSchedule s);

// Tokens routed to each of e experts from one rank: tokens·top_k in all. Uniform: as equal as
// integers allow (the first remainders one more). Skewed: in proportion to 1/(j+1) (Zipf),
// rounded by largest remainder.
std::vector<int> router_loads(int tokens, int top_k, int experts, bool skewed);

// The strategies to run (--strategy, default all) and the defaults --quick and the mode settle.
std::vector<std::string> strategy_list(const Options& o);
void settle_defaults(Options& o);
// --overlap starts one non-blocking all-reduce per bucket: at most this many.
inline constexpr int kMaxOverlapBuckets = 1024;

// Options that need no other rank (a one-line error, exit 2): throws std::invalid_argument.
// `ranks`: the world's size (the stages, the tensor- and expert-parallel degree); 0 before it is
// known: what depends on it is left for later.
void check_options(const Options& o, int ranks);

// The options that every rank must share, as one text.
std::string canonical(const Options& o);

}  // namespace bb::strategies
