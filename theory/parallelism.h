// Parallel training: how data, tensor, pipeline and expert parallelism and ZeRO split the work, and
// what each costs in communication, memory and idle time. Bytes and seconds per device.
#pragma once

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
