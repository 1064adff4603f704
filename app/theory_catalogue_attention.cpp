// The catalogue's entries for the attention suite's formulas (theory/attention.h):
// `boundbench theory attention` and `theory kv-cache`.
#include <algorithm>
#include <string>

#include "app/theory_catalogue.h"
#include "app/theory_catalogue_params.h"
#include "theory/attention.h"

namespace bb::app {

using namespace theory;  // the formulas this catalogue names

namespace {

using param::choice;
using param::count;
using param::number;
using param::positive;

AttentionShape shape_of(const FormulaArgs& a) {
  AttentionShape s;
  s.batch = a.number("batch");
  s.heads = a.number("heads");
  s.kv_heads = a.number("kv_heads") > 0 ? a.number("kv_heads") : s.heads;
  s.n = a.number("n");
  s.d = a.number("d");
  s.causal = a.choice("causal") == "yes";
  s.bytes_per_element = a.number("bytes_per_element");
  validate(s);
  return s;
}

}  // namespace

std::vector<Formula> attention_formulas() {
  return {
      {"attention",
       "flop = 4 B H n^2 d (causal: half); naive bytes = B H (4n^2 + 4nd) x bytes; compulsory "
       "bytes (the fused kernel's roofline) = (2 B H + 2 B H_kv) n d x bytes; tiled bytes (K, V "
       "re-read per query block, reported) = B H (2nd + 2nd ceil(n/Br)) x bytes; naive extra "
       "memory B H n^2 x 4; decode: 4 B H n d flop over 2 B H_kv n d x bytes",
       "Dao et al., FlashAttention, 2022 (section 3.2, Theorem 2); Milakov & Gimelshein 2018",
       {count("n", "sequence length"), count("d", "head dimension", "128"),
        count("heads", "query heads H", "32"), number("kv_heads", "K/V heads (0: = heads)", "0"),
        count("batch", "batch B", "1"), choice("causal", "causal mask", {"no", "yes"}, "no"),
        positive("bytes_per_element", "bytes per element of Q, K, V, O", "2"),
        count("block_rows", "query rows per tile Br (tiled)", "128"),
        number("bandwidth_bytes_per_s", "memory bandwidth (0: no times)", "0"),
        number("peak_flop_per_s", "peak flop/s (0: no times)", "0")},
       [](const FormulaArgs& a) {
         const AttentionShape s = shape_of(a);
         const double flop = attention_flop(s), naive = naive_attention_bytes(s);
         const double tiled = tiled_attention_bytes(s, a.number("block_rows"));
         const double compulsory = compulsory_attention_bytes(s);
         const double dflop = decode_flop(s);
         // S in fp32 with the softmax in place (attention-bytes takes the layout).
         const double extra = naive_extra_bytes(s, {4, s.bytes_per_element, 4, true});
         const double dbytes =
             kv_cache_bytes(1, s.n, s.kv_heads, s.d, s.bytes_per_element, s.batch);
         std::vector<FormulaOutput> out = {{"flop", flop},
                                           {"naive_bytes", naive},
                                           {"compulsory_bytes", compulsory},
                                           {"tiled_bytes", tiled},
                                           {"naive_extra_bytes", extra},
                                           {"fused_extra_bytes", 0},
                                           {"naive_intensity_flop_per_byte", flop / naive},
                                           {"fused_intensity_flop_per_byte", flop / compulsory},
                                           {"tiled_intensity_flop_per_byte", flop / tiled},
                                           {"decode_flop", dflop},
                                           {"decode_kv_bytes", dbytes},
                                           {"decode_intensity_flop_per_byte", dflop / dbytes}};
         const double bw = a.number("bandwidth_bytes_per_s"), peak = a.number("peak_flop_per_s");
         if (bw > 0 && peak > 0) {
           out.push_back({"naive_bound_s", std::max(flop / peak, naive / bw)});
           out.push_back({"fused_bound_s", std::max(flop / peak, compulsory / bw)});
           out.push_back({"decode_bound_s", std::max(dflop / peak, dbytes / bw)});
         }
         return out;
       }},
      {"attention-bytes",
       "the work one forward pass declares, read and written apart: naive B H (Q, K: 2nd x in; "
       "S, P: n^2 each, read and written; V: nd x in; O: nd x out), extra memory B H n^2 (S "
       "[+ P]); fused: the compulsory bytes, Q, K, V read and O written once (the law's count); "
       "tiled: tiled bytes with O written in out (K, V re-read per query block, reported); "
       "decode: the KV cache and q read, o written; flop as attention",
       "Dao et al., FlashAttention, 2022 (section 3.2, Theorem 2); Pope et al. 2022",
       {{"kind", "kernel", {"naive", "fused", "tiled", "decode"}},
        count("n", "sequence length (decode: cached positions)"),
        count("d", "head dimension", "128"),
        count("heads", "query heads H", "32"),
        number("kv_heads", "K/V heads (0: = heads)", "0"),
        count("batch", "batch B", "1"),
        choice("causal", "causal mask", {"no", "yes"}, "no"),
        positive("bytes_per_element", "bytes per element of Q, K, V", "2"),
        positive("output_bytes", "bytes per element of O", "4"),
        positive("score_bytes", "bytes per element of S (naive)", "4"),
        positive("prob_bytes", "bytes per element of P (naive)", "2"),
        choice("prob_in_place", "P written over S (naive)", {"no", "yes"}, "no"),
        count("block_rows", "query rows per tile Br (tiled)", "64")},
       [](const FormulaArgs& a) {
         const AttentionShape s = shape_of(a);
         const std::string& kind = a.choice("kind");
         const NaiveAttentionLayout layout{a.number("score_bytes"), a.number("prob_bytes"),
                                           a.number("output_bytes"),
                                           a.choice("prob_in_place") == "yes"};
         // The functions the attention cases declare their work and memory with.
         const WorkCount w = kind == "naive"   ? naive_attention_work(s, layout)
                             : kind == "fused" ? compulsory_attention_work(s, layout.output_bytes)
                             : kind == "tiled" ? tiled_attention_work(s, a.number("block_rows"),
                                                                      layout.output_bytes)
                                               : decode_work(s, layout.output_bytes);
         return std::vector<FormulaOutput>{
             {"flop", w.flop},
             {"bytes_read", w.bytes_read},
             {"bytes_written", w.bytes_written},
             {"bytes", w.bytes()},
             {"elements", w.elements},
             {"intensity_flop_per_byte", w.flop / w.bytes()},
             {"extra_bytes", kind == "naive" ? naive_extra_bytes(s, layout) : 0}};
       }},
      {"kv-cache",
       "KV bytes = 2 x L x n x H_kv x d x bytes x batch; decode time per token >= KV bytes / BW",
       "Pope et al., Efficiently Scaling Transformer Inference, 2022; Ainslie et al., GQA, 2023",
       {count("layers", "transformer layers L"), count("n", "cached positions"),
        count("kv_heads", "K/V heads (MHA: = heads; MQA: 1)"), count("d", "head dimension", "128"),
        positive("bytes_per_element", "bytes per cached element", "2"),
        count("batch", "sequences", "1"),
        number("bandwidth_bytes_per_s", "memory bandwidth (0: no time)", "0")},
       [](const FormulaArgs& a) {
         const double bytes =
             kv_cache_bytes(a.number("layers"), a.number("n"), a.number("kv_heads"), a.number("d"),
                            a.number("bytes_per_element"), a.number("batch"));
         std::vector<FormulaOutput> out = {{"kv_cache_bytes", bytes}};
         if (a.number("bandwidth_bytes_per_s") > 0)
           out.push_back({"decode_time_per_token_s", bytes / a.number("bandwidth_bytes_per_s")});
         return out;
       }},
  };
}

}  // namespace bb::app
