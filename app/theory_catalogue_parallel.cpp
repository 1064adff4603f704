// The catalogue's entries for the collectives' and the parallelism calculator's formulas
// (theory/collectives.h, theory/parallelism.h).
#include <numeric>
#include <stdexcept>
#include <vector>

#include "app/theory_catalogue.h"
#include "app/theory_catalogue_params.h"
#include "theory/collectives.h"
#include "theory/parallelism.h"

namespace bb::app {

using namespace theory;  // the formulas this catalogue names

namespace {

using param::count;
using param::number;
using param::positive;

int ranks_of(const FormulaArgs& a, const std::string& name) {
  const double r = a.number(name);
  if (r > 1 << 24) throw std::invalid_argument("--" + name + ": at most 16777216");
  return static_cast<int>(r);
}

// The link of the α–β model; `theory --from RESULTS` fills both from a measured fit.
const ParamSpec kAlpha = number("alpha_s", "per-message latency alpha, s (--from RESULTS: fitted)");
const ParamSpec kLink =
    positive("link_bytes_per_s", "link bandwidth 1/beta, bytes/s (--from RESULTS: fitted)");

}  // namespace

std::vector<Formula> parallelism_formulas() {
  const auto collectives = param::names_of(kAllCollectives, collective_name);
  const char* thakur =
      "Thakur, Rabenseifner & Gropp, IJHPCA 19(1), 2005; nccl-tests PERFORMANCE.md";
  return {
      {"bus-bandwidth",
       "algbw = n / t; busbw = algbw x factor (all_reduce 2(p-1)/p; all_gather, reduce_scatter, "
       "all_to_all (p-1)/p; broadcast, reduce, send_recv 1)",
       "nccl-tests doc/PERFORMANCE.md",
       {{"collective", "the collective", collectives},
        count("ranks", "ranks p"),
        positive("bytes", "message size n as nccl-tests prints it"),
        positive("time_s", "measured time, s")},
       [](const FormulaArgs& a) {
         const auto c = *collective_from_name(a.choice("collective"));
         const double factor = bus_bandwidth_factor(c, ranks_of(a, "ranks"));
         const double algbw = a.number("bytes") / a.number("time_s");
         return std::vector<FormulaOutput>{{"algbw_bytes_per_s", algbw},
                                           {"bus_factor", factor},
                                           {"busbw_bytes_per_s", algbw * factor}};
       }},
      {"collective-time",
       "t = latency_terms x alpha + byte_terms x n x beta (ring all_reduce: 2(p-1) alpha + "
       "2(p-1)/p n beta)",
       thakur,
       {{"collective", "the collective", collectives},
        count("ranks", "ranks p"),
        number("bytes", "message size n as nccl-tests prints it"),
        kAlpha,
        kLink,
        param::choice("algorithm",
                      "the algorithm (bandwidth-optimal: ring, pipeline, pairwise, direct)",
                      {"bandwidth-optimal", "ring", "binomial_tree", "rabenseifner",
                       "scatter_allgather", "pipeline", "pairwise", "direct"},
                      "bandwidth-optimal")},
       [](const FormulaArgs& a) {
         const auto c = *collective_from_name(a.choice("collective"));
         const Algorithm alg = a.choice("algorithm") == "bandwidth-optimal"
                                   ? bandwidth_optimal_algorithm(c)
                                   : *algorithm_from_name(a.choice("algorithm"));
         const int p = ranks_of(a, "ranks");
         const auto terms = alpha_beta_terms(c, alg, p);
         const double beta = 1 / a.number("link_bytes_per_s"), n = a.number("bytes");
         const double t = alpha_beta_time_s(terms, n, a.number("alpha_s"), beta);
         return std::vector<FormulaOutput>{
             {"algorithm", 0, std::string(algorithm_name(alg))},
             {"time_s", t},
             {"latency_time_s", terms.latency_terms * a.number("alpha_s")},
             {"bandwidth_time_s", terms.byte_terms * n * beta},
             {"algbw_bytes_per_s", t > 0 ? n / t : 0},
             {"busbw_bytes_per_s", t > 0 ? n / t * bus_bandwidth_factor(c, p) : 0}};
       }},
      {"global-batch",
       "B_global = B_per_device x N_devices x N_accumulation",
       "Goyal et al., Accurate, Large Minibatch SGD, 2017",
       {count("per_device_batch", "samples per device per micro-step"),
        count("devices", "data-parallel devices"),
        count("accumulation_steps", "gradient-accumulation steps", "1")},
       [](const FormulaArgs& a) {
         return std::vector<FormulaOutput>{
             {"global_batch", global_batch(a.number("per_device_batch"), a.number("devices"),
                                           a.number("accumulation_steps"))}};
       }},
      {"gradient-all-reduce",
       "t = 2(p-1) alpha + 2(p-1)/p (P x bytes) beta per optimizer step (ring all-reduce)",
       thakur,
       {positive("parameters", "model parameters P"), count("devices", "data-parallel devices p"),
        positive("bytes_per_parameter", "gradient bytes per parameter", "2"), kAlpha, kLink},
       [](const FormulaArgs& a) {
         const double bytes = a.number("parameters") * a.number("bytes_per_parameter");
         return std::vector<FormulaOutput>{
             {"gradient_bytes", bytes},
             {"time_s",
              gradient_all_reduce_s(a.number("parameters"), a.number("bytes_per_parameter"),
                                    ranks_of(a, "devices"), a.number("alpha_s"),
                                    1 / a.number("link_bytes_per_s"))}};
       }},
      {"overlapped-all-reduce",
       "bucket i's all-reduce starts when its gradients are ready and the previous one is done; "
       "exposed = max(0, sum_{i<B} t_ar,i - backward after bucket 1) + t_ar,B (equal buckets)",
       "Li et al., PyTorch Distributed, VLDB 2020, sections 3.2.3 and 4.2.1",
       {positive("parameters", "model parameters P"), count("devices", "data-parallel devices p"),
        positive("bytes_per_parameter", "gradient bytes per parameter", "4"),
        positive("bucket_bytes", "all-reduce bucket, bytes", "1048576"),
        number("backward_s", "the last backward's time, s (bucket i ready in proportion)"), kAlpha,
        kLink},
       [](const FormulaArgs& a) {
         const int p = ranks_of(a, "devices");
         const double alpha = a.number("alpha_s"), beta = 1 / a.number("link_bytes_per_s");
         const double backward_s = a.number("backward_s");
         const auto buckets = gradient_buckets_bytes(
             a.number("parameters"), a.number("bytes_per_parameter"), a.number("bucket_bytes"));
         const double total_bytes = std::accumulate(buckets.begin(), buckets.end(), 0.0);
         std::vector<double> ready_s, all_reduce_s;
         double done_bytes = 0, plain_s = 0;
         for (double b : buckets) {
           done_bytes += b;
           ready_s.push_back(backward_s * done_bytes / total_bytes);
           all_reduce_s.push_back(gradient_all_reduce_s(b, 1, p, alpha, beta));
           plain_s += all_reduce_s.back();
         }
         const double exposed_s = overlapped_all_reduce_tail_s(ready_s, all_reduce_s, backward_s);
         return std::vector<FormulaOutput>{{"buckets", double(buckets.size())},
                                           {"all_reduce_s", plain_s},
                                           {"exposed_s", exposed_s},
                                           {"hidden_s", plain_s - exposed_s}};
       }},
      {"tensor-parallel",
       "per layer 2 all-reduces of b x s x h forward + 2 backward",
       "Shoeybi et al., Megatron-LM, 2019, section 3",
       {count("batch", "micro-batch b"), count("sequence", "sequence length s"),
        count("hidden", "hidden size h"), count("tp", "tensor-parallel degree"),
        positive("bytes_per_element", "activation bytes per element", "2"), kAlpha, kLink},
       [](const FormulaArgs& a) {
         const auto c =
             tensor_parallel_comm(a.number("batch"), a.number("sequence"), a.number("hidden"),
                                  a.number("bytes_per_element"), ranks_of(a, "tp"),
                                  a.number("alpha_s"), 1 / a.number("link_bytes_per_s"));
         return std::vector<FormulaOutput>{{"all_reduces_per_layer", c.all_reduces_per_layer},
                                           {"bytes_per_all_reduce", c.bytes_per_all_reduce},
                                           {"time_per_layer_s", c.time_per_layer_s}};
       }},
      {"pipeline-bubble",
       "bubble = (p-1)/(m+p-1) of the step; interleaved (v chunks): (p-1)/(v m) of the ideal time, "
       "step (m v + p - 1)(t_f+t_b)/v; peak activations on stage 0: GPipe m, 1F1B min(m, p), "
       "interleaved 2(p-1) + (v-1)p + 1 chunks (m v when m = p)",
       "Huang et al., GPipe, 2019; Narayanan et al., SC'21, section 2.2; Megatron-LM's schedules",
       {count("stages", "pipeline stages p"), count("micro_batches", "micro-batches m"),
        count("chunks_per_device", "interleaved model chunks v per device", "1")},
       [](const FormulaArgs& a) {
         const int p = ranks_of(a, "stages"), m = ranks_of(a, "micro_batches"),
                   v = ranks_of(a, "chunks_per_device");
         std::vector<FormulaOutput> out{
             {"bubble_fraction", pipeline_bubble_fraction(p, m)},
             {"bubble_over_ideal", interleaved_bubble_ratio(p, m, v)},
             // (p−1)/(m·v+p−1): the chunks as m·v micro-batches.
             {"interleaved_bubble_fraction", pipeline_bubble_fraction(p, m * v)},
             {"peak_activations_gpipe",
              double(pipeline_peak_activations(PipelineSchedule::gpipe, p, m, 0))},
             {"peak_activations_1f1b",
              double(pipeline_peak_activations(PipelineSchedule::one_f_one_b, p, m, 0))}};
         // Megatron's interleaved schedule takes m a multiple of p.
         if (m % p == 0)
           out.push_back({"peak_chunk_activations_interleaved",
                          double(interleaved_peak_activations(p, m, v, 0))});
         return out;
       }},
      {"expert-all-to-all",
       "bytes per all-to-all = tokens x k x h x bytes x (ep-1)/ep; 2 per MoE layer forward",
       "Lepikhin et al., GShard, 2020",
       {positive("tokens_per_device", "tokens per device"),
        count("top_k", "experts per token", "2"), count("hidden", "hidden size h"),
        count("ep", "expert-parallel degree"),
        positive("bytes_per_element", "bytes per element", "2"), kAlpha, kLink},
       [](const FormulaArgs& a) {
         const int ep = ranks_of(a, "ep");
         const double sent =
             expert_all_to_all_bytes(a.number("tokens_per_device"), a.number("top_k"),
                                     a.number("hidden"), a.number("bytes_per_element"), ep);
         // nccl-tests' n for all_to_all is one rank's whole send buffer: sent × ep/(ep−1).
         const double n = ep > 1 ? sent * ep / (ep - 1) : 0;
         const auto terms = alpha_beta_terms(Collective::all_to_all, Algorithm::pairwise, ep);
         const double t =
             alpha_beta_time_s(terms, n, a.number("alpha_s"), 1 / a.number("link_bytes_per_s"));
         return std::vector<FormulaOutput>{{"bytes_sent_per_all_to_all", sent},
                                           {"time_per_all_to_all_s", t},
                                           {"time_per_layer_forward_s", 2 * t}};
       }},
      {"zero-memory",
       "stage 0 (2+2+K)Psi; 1: 4 Psi + K Psi/Nd; 2: 2 Psi + (2+K) Psi/Nd; 3: (2+2+K) Psi/Nd bytes",
       "Rajbhandari et al., ZeRO, SC'20, sections 5 and 7",
       {{"stage", "ZeRO stage", {"0", "1", "2", "3"}},
        positive("parameters", "model parameters Psi"),
        count("devices", "data-parallel devices Nd"),
        number("optimizer_bytes_per_parameter", "K (mixed-precision Adam: 12)", "12")},
       [](const FormulaArgs& a) {
         const auto z =
             zero_footprint(std::stoi(a.choice("stage")), a.number("parameters"),
                            a.number("devices"), a.number("optimizer_bytes_per_parameter"));
         return std::vector<FormulaOutput>{
             {"memory_bytes_per_device", z.memory_bytes},
             {"communication_elements_per_step", z.communication_elements},
             {"communication_bytes_per_step_fp16", 2 * z.communication_elements}};
       }},
      {"training-flops",
       "C = 6 N D flop; MFU = 6 N (tokens/s) / peak",
       "Kaplan et al. 2020, section 2.1; Chowdhery et al., PaLM, 2022, appendix B",
       {positive("parameters", "model parameters N"), number("tokens", "training tokens D", "0"),
        number("tokens_per_s", "measured training throughput", "0"),
        positive("peak_flop_per_s", "peak flop/s of the devices", "1")},
       [](const FormulaArgs& a) {
         return std::vector<FormulaOutput>{
             {"training_flop", training_flop(a.number("parameters"), a.number("tokens"))},
             {"mfu_fraction",
              model_flops_utilization(a.number("parameters"), a.number("tokens_per_s"),
                                      a.number("peak_flop_per_s"))}};
       }},
  };
}

}  // namespace bb::app
