#include "theory/parallelism.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "theory/collectives.h"

namespace bb::theory {

double global_batch(double per_device_batch, double devices, double accumulation_steps) {
  return per_device_batch * devices * accumulation_steps;
}

double gradient_all_reduce_s(double parameters, double bytes_per_parameter, int devices,
                             double alpha_s, double beta_s_per_byte) {
  const auto terms = alpha_beta_terms(Collective::all_reduce, Algorithm::ring, devices);
  return alpha_beta_time_s(terms, parameters * bytes_per_parameter, alpha_s, beta_s_per_byte);
}

TensorParallelComm tensor_parallel_comm(double batch, double sequence, double hidden,
                                        double bytes_per_element, int tp_degree, double alpha_s,
                                        double beta_s_per_byte) {
  TensorParallelComm c;
  c.bytes_per_all_reduce = batch * sequence * hidden * bytes_per_element;
  const auto terms = alpha_beta_terms(Collective::all_reduce, Algorithm::ring, tp_degree);
  c.time_per_layer_s = c.all_reduces_per_layer *
                       alpha_beta_time_s(terms, c.bytes_per_all_reduce, alpha_s, beta_s_per_byte);
  return c;
}

double pipeline_bubble_fraction(int stages, int micro_batches) {
  if (stages < 1 || micro_batches < 1)
    throw std::invalid_argument("stages and micro-batches must be >= 1");
  return static_cast<double>(stages - 1) / (micro_batches + stages - 1);
}

double interleaved_bubble_ratio(int stages, int micro_batches, int chunks_per_device) {
  if (stages < 1 || micro_batches < 1 || chunks_per_device < 1)
    throw std::invalid_argument("stages, micro-batches and chunks must be >= 1");
  return static_cast<double>(stages - 1) / (static_cast<double>(chunks_per_device) * micro_batches);
}

double data_parallel_step_s(double accumulation_steps, double micro_step_s, double all_reduce_s) {
  return accumulation_steps * micro_step_s + all_reduce_s;
}

double bucketed_all_reduce_s(double parameters, double bytes_per_parameter, double bucket_bytes,
                             int devices, double alpha_s, double beta_s_per_byte) {
  if (!(bucket_bytes > 0)) throw std::invalid_argument("the bucket must hold > 0 bytes");
  const double total_bytes = parameters * bytes_per_parameter;
  const double full = std::floor(total_bytes / bucket_bytes);
  const double rest_bytes = total_bytes - full * bucket_bytes;
  const auto terms = alpha_beta_terms(Collective::all_reduce, Algorithm::ring, devices);
  return full * alpha_beta_time_s(terms, bucket_bytes, alpha_s, beta_s_per_byte) +
         (rest_bytes > 0 ? alpha_beta_time_s(terms, rest_bytes, alpha_s, beta_s_per_byte) : 0);
}

std::vector<double> gradient_buckets_bytes(double parameters, double bytes_per_parameter,
                                           double bucket_bytes) {
  if (!(bucket_bytes > 0)) throw std::invalid_argument("the bucket must hold > 0 bytes");
  const double total_bytes = parameters * bytes_per_parameter;
  const double full = std::floor(total_bytes / bucket_bytes);
  if (full > 1e7) throw std::invalid_argument("more than 10^7 buckets");
  std::vector<double> buckets(static_cast<std::size_t>(full), bucket_bytes);
  if (total_bytes - full * bucket_bytes > 0) buckets.push_back(total_bytes - full * bucket_bytes);
  return buckets;
}

double overlapped_all_reduce_tail_s(const std::vector<double>& ready_s,
                                    const std::vector<double>& all_reduce_s, double backward_s) {
  if (ready_s.size() != all_reduce_s.size())
    throw std::invalid_argument("one ready time per bucket's all-reduce");
  double end_s = 0;
  for (std::size_t i = 0; i < ready_s.size(); ++i)
    end_s = std::max(end_s, ready_s[i]) + all_reduce_s[i];
  return std::max(0.0, end_s - backward_s);
}

double pipeline_step_s(int stages, int micro_batches, double forward_s, double backward_s,
                       double p2p_s) {
  if (stages < 1 || micro_batches < 1)
    throw std::invalid_argument("stages and micro-batches must be >= 1");
  return (micro_batches + stages - 1) * (forward_s + backward_s) + 2 * (stages - 1) * p2p_s;
}

double interleaved_pipeline_step_s(int stages, int micro_batches, int chunks_per_device,
                                   double forward_s, double backward_s, double p2p_s) {
  if (stages < 1 || micro_batches < 1 || chunks_per_device < 1)
    throw std::invalid_argument("stages, micro-batches and chunks must be >= 1");
  const double v = chunks_per_device;
  return (micro_batches * v + stages - 1) * (forward_s + backward_s) / v +
         2 * (stages * v - 1) * p2p_s;
}

int interleaved_peak_activations(int stages, int micro_batches, int chunks_per_device, int stage) {
  if (stages < 1 || micro_batches < 1 || chunks_per_device < 1 || stage < 0 || stage >= stages)
    throw std::invalid_argument("stages, micro-batches, chunks >= 1 and 0 <= stage < stages");
  const int total = micro_batches * chunks_per_device;
  if (micro_batches == stages) return total;
  return std::min(total, 2 * (stages - stage - 1) + (chunks_per_device - 1) * stages + 1);
}

int pipeline_peak_activations(PipelineSchedule schedule, int stages, int micro_batches, int stage,
                              int chunks_per_device) {
  if (schedule == PipelineSchedule::interleaved_1f1b)
    return interleaved_peak_activations(stages, micro_batches, chunks_per_device, stage);
  if (stages < 1 || micro_batches < 1 || stage < 0 || stage >= stages)
    throw std::invalid_argument("stages, micro-batches >= 1 and 0 <= stage < stages");
  if (schedule == PipelineSchedule::gpipe) return micro_batches;
  return std::min(micro_batches, stages - stage);
}

double tensor_parallel_layer_forward_flop(double batch, double sequence, double hidden,
                                          int tp_degree) {
  if (tp_degree < 1) throw std::invalid_argument("the tensor-parallel degree must be >= 1");
  return 24 * batch * sequence * hidden * hidden / tp_degree;
}

double expert_load_imbalance(const double* tokens_per_expert, int experts) {
  if (experts < 1) throw std::invalid_argument("at least one expert");
  double max = 0, sum = 0;
  for (int e = 0; e < experts; ++e) {
    max = std::max(max, tokens_per_expert[e]);
    sum += tokens_per_expert[e];
  }
  if (!(sum > 0)) throw std::invalid_argument("the experts hold no tokens");
  return max / (sum / experts);
}

double expert_all_to_all_bytes(double tokens_per_device, double top_k, double hidden,
                               double bytes_per_element, int ep_degree) {
  if (ep_degree < 1) throw std::invalid_argument("the expert-parallel degree must be >= 1");
  return tokens_per_device * top_k * hidden * bytes_per_element * (ep_degree - 1) / ep_degree;
}

ZeroFootprint zero_footprint(int stage, double parameters, double devices,
                             double optimizer_bytes_per_parameter) {
  if (devices < 1) throw std::invalid_argument("ZeRO needs >= 1 data-parallel device");
  const double psi = parameters, k = optimizer_bytes_per_parameter, nd = devices;
  switch (stage) {
    case 0: return {(2 + 2 + k) * psi, 2 * psi};
    case 1: return {(2 + 2) * psi + k * psi / nd, 2 * psi};
    case 2: return {2 * psi + (2 + k) * psi / nd, 2 * psi};
    case 3: return {(2 + 2 + k) * psi / nd, 3 * psi};
    default: throw std::invalid_argument("ZeRO stage must be 0, 1, 2 or 3");
  }
}

double training_flop(double parameters, double tokens) { return 6 * parameters * tokens; }

double model_flops_utilization(double parameters, double tokens_per_s, double peak_flop_per_s) {
  return training_flop(parameters, tokens_per_s) / peak_flop_per_s;
}

}  // namespace bb::theory
