// Parallel training: how data, tensor, pipeline and expert parallelism and ZeRO split the work, and
// what each costs in communication, memory and idle time. Bytes and seconds per device.
#pragma once

#include <vector>

namespace bb::theory {

// Data parallelism: B_global = B_per_device × N_devices × N_accumulation
// (Goyal et al., "Accurate, Large Minibatch SGD", 2017: the effective minibatch).
double global_batch(double per_device_batch, double devices, double accumulation_steps);

// Gradient all-reduce per optimizer step: the ring all-reduce of P parameters × bytes each,
// 2(p−1)α + 2(p−1)/p·(P·bytes)·β  (Thakur, Rabenseifner & Gropp 2005; Patarasuk & Yuan 2009).
double gradient_all_reduce_s(double parameters, double bytes_per_parameter, int devices,
                             double alpha_s, double beta_s_per_byte);

// Tensor parallelism (Megatron-LM, Shoeybi et al. 2019, §3): per transformer layer, 2 all-reduces
// of the activations b·s·h forward (after attention and after the MLP) and 2 backward.
struct TensorParallelComm {
  double all_reduces_per_layer = 4;  // forward + backward
  double bytes_per_all_reduce = 0;   // b·s·h·bytes
  double time_per_layer_s = 0;       // 4 ring all-reduces under the α–β model
};
TensorParallelComm tensor_parallel_comm(double batch, double sequence, double hidden,
                                        double bytes_per_element, int tp_degree, double alpha_s,
                                        double beta_s_per_byte);

// Pipeline bubble, the idle fraction of a GPipe/1F1B schedule with p stages and m micro-batches:
// (p−1)/(m+p−1) of the step (Huang et al., GPipe, 2019); with v interleaved model chunks per
// device the bubble time over the ideal time is (p−1)/(v·m) (Narayanan et al., SC'21, §2.2).
double pipeline_bubble_fraction(int stages, int micro_batches);
double interleaved_bubble_ratio(int stages, int micro_batches, int chunks_per_device);

// A training step's time under each strategy, the schedule's compute and communication without
// overlap, given the measured (or declared) parts.

// Data parallel with gradient accumulation: t_step = N_acc·t_micro + t_all-reduce(P), the
// accumulation's micro-steps, then the gradient all-reduce (Li et al., "PyTorch Distributed",
// VLDB 2020, §3: no synchronisation under no_sync, one bucketed all-reduce after the last).
double data_parallel_step_s(double accumulation_steps, double micro_step_s, double all_reduce_s);

// Bucketed gradient all-reduce: ⌈P·bytes / bucket⌉ ring all-reduces (each 2(p−1)α + 2(p−1)/p·nβ),
// the last one holding the remainder (Li et al. 2020, §4.2.1 gradient bucketing).
double bucketed_all_reduce_s(double parameters, double bytes_per_parameter, double bucket_bytes,
                             int devices, double alpha_s, double beta_s_per_byte);
// The buckets' sizes, in order: ⌊P·bytes / bucket⌋ full buckets, then the remainder if any
// (Li et al. 2020, §4.2.1).
std::vector<double> gradient_buckets_bytes(double parameters, double bytes_per_parameter,
                                           double bucket_bytes);

// The bucketed all-reduce overlapped with the backward (Li et al. 2020, §3.2.3: a bucket's
// all-reduce starts once its gradients are ready, the all-reduces one after another): bucket i's
// gradients are ready at ready_s[i] (from the backward's start, ascending) and its all-reduce takes
// all_reduce_s[i], starting at max(ready_s[i], the previous all-reduce's end). Returns what the
// all-reduces add after a backward of backward_s: end of the last − backward_s (≥ 0). For B equal
// buckets of all-reduce a ready every t_b/B: max(0, (B−1)·a − (B−1)/B·t_b) + a, the all-reduces
// that the backward after the first bucket does not hide, plus the last bucket's.
double overlapped_all_reduce_tail_s(const std::vector<double>& ready_s,
                                    const std::vector<double>& all_reduce_s, double backward_s);

// GPipe and 1F1B (non-interleaved) pipeline step of p stages and m micro-batches with forward
// t_f and backward t_b per micro-batch and stage: (m+p−1)(t_f+t_b) (Huang et al., GPipe, 2019;
// Narayanan et al., PipeDream-Flush, ICML 2021, §3: 1F1B has the same bubble), plus the p−1
// activation sends down the pipeline and the p−1 gradient sends back on the critical path,
// 2(p−1)·t_p2p (a send slower than a micro-batch's compute is not modelled).
double pipeline_step_s(int stages, int micro_batches, double forward_s, double backward_s,
                       double p2p_s = 0);

// Megatron's interleaved 1F1B (Narayanan et al., SC'21, §2.2): p devices, each v model chunks
// (chunk c of device d is the model's stage c·p + d), m micro-batches (a multiple of p); a chunk's
// forward and backward t_f/v and t_b/v for a device's forward t_f and backward t_b: the step is
// (m·v + p − 1)(t_f + t_b)/v — a bubble of (p−1)(t_f+t_b)/v, (p−1)/(v·m) of the ideal m(t_f+t_b) —
// plus 2(p·v − 1)·t_p2p: a micro-batch crosses the p·v − 1 chunk boundaries down and back on the
// critical path (derived from the schedule; with v = 1 the 1F1B step above).
double interleaved_pipeline_step_s(int stages, int micro_batches, int chunks_per_device,
                                   double forward_s, double backward_s, double p2p_s = 0);
// Chunk activations device d holds at its peak under the interleaved schedule (Megatron-LM's
// forward_backward_pipelining_with_interleaving): its warm-up forwards 2(p−d−1) + (v−1)·p, plus
// one; m·v when m = p (every forward is warm-up).
int interleaved_peak_activations(int stages, int micro_batches, int chunks_per_device, int stage);

// Activations a stage holds at its peak (forwards done, backwards not yet): GPipe m (all forwards
// first); 1F1B min(m, p − stage) (the warm-up's p−stage−1 forwards plus one; Narayanan et al.
// 2021, §3); interleaved 1F1B, in chunk activations, interleaved_peak_activations with
// `chunks_per_device` (the others take no chunks). stage counts from 0.
enum class PipelineSchedule { gpipe, one_f_one_b, interleaved_1f1b };
int pipeline_peak_activations(PipelineSchedule schedule, int stages, int micro_batches, int stage,
                              int chunks_per_device = 1);

// Megatron tensor-parallel transformer layer per rank (Narayanan et al., SC'21, §5.1: 24·b·s·h²
// flop per layer forward in the QKV, projection and MLP GEMMs, the attention scores' 4·b·s²·h
// left out), split over t ranks: forward 24·b·s·h²/t, backward twice that.
double tensor_parallel_layer_forward_flop(double batch, double sequence, double hidden,
                                          int tp_degree);

// MoE load imbalance: max/mean tokens per expert; the busiest expert sets the layer's time
// (Fedus et al., Switch Transformer, JMLR 2022, §2.2: the capacity factor covers it).
double expert_load_imbalance(const double* tokens_per_expert, int experts);

// Expert parallelism: each MoE layer dispatches every token's hidden state to its top-k experts
// and combines the results back: 2 all-to-alls per layer forward. With uniform routing over
// `ep` devices, a device sends tokens·k·h·bytes·(ep−1)/ep in each (Lepikhin et al., GShard, 2020).
double expert_all_to_all_bytes(double tokens_per_device, double top_k, double hidden,
                               double bytes_per_element, int ep_degree);

// ZeRO (Rajbhandari et al., SC'20, §5) with mixed-precision Adam: Ψ parameters, 2Ψ bytes of fp16
// parameters, 2Ψ of fp16 gradients, KΨ of optimizer state (K = 12: fp32 parameters, momentum,
// variance), over N_d data-parallel devices:
//   stage 0 (plain DP) (2+2+K)Ψ; stage 1 (2+2)Ψ + KΨ/N_d; stage 2 2Ψ + (2+K)Ψ/N_d; stage 3
//   (2+2+K)Ψ/N_d.
// Communication per step: stages 0–2 move 2Ψ elements per device (reduce-scatter + all-gather);
// stage 3 3Ψ (1.5×: parameters all-gathered again for the backward pass).
struct ZeroFootprint {
  double memory_bytes = 0;            // model states per device
  double communication_elements = 0;  // per device per step
};
ZeroFootprint zero_footprint(int stage, double parameters, double devices,
                             double optimizer_bytes_per_parameter = 12);

// Training compute ≈ 6·N·D flop for N parameters and D tokens (Kaplan et al. 2020, §2.1: 2ND
// forward, 4ND backward); model FLOPs utilisation MFU = 6·N·(tokens/s) / peak flop/s
// (Chowdhery et al., PaLM, 2022, App. B).
double training_flop(double parameters, double tokens);
double model_flops_utilization(double parameters, double tokens_per_s, double peak_flop_per_s);

}  // namespace bb::theory
