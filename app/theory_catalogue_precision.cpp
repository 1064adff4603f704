// The catalogue's precision entries: `boundbench theory quant-float` (theory/block_quant.h),
// `boundbench theory gemm-error` (theory/gemm_error.h) and `gemm-bytes` (theory/gemm.h).
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "app/theory_catalogue.h"
#include "app/theory_catalogue_params.h"
#include "theory/block_quant.h"
#include "theory/gemm.h"
#include "theory/gemm_error.h"

namespace bb::app {

using namespace theory;  // the formulas this catalogue names

std::vector<Formula> precision_formulas() {
  return {
      {"quant-float",
       "x ~ S P, P in a float format: tensor S = amax 2^margin / max; MX S = 2^e, e = floor(log2 "
       "amax) - emax (OCP, can clip) or the least e with amax <= max 2^e (round-up); NVFP4 S = "
       "s_b g, g = amax/(448*6), s_b = E4M3 up of amax_b/(6g); |error| <= S q(|x|/S)/2 (relative "
       "u in the normal range); SQNR of a uniform signal on [-amax, amax] from noise q^2/12",
       "OCP Microscaling Formats (MX) v1.0, 2023, sec. 6.3; NVIDIA, Introducing NVFP4, 2025; "
       "Widrow & Kollar, Quantization Noise, 2008, ch. 12",
       {param::positive("amax",
                        "largest |x| of the tensor (nvfp4: the block's, equal to the tensor's)"),
        param::choice("format", "element format", {"e4m3", "e5m2", "e2m3", "e3m2", "e2m1"}),
        param::choice("scheme", "scaling", {"tensor", "mx-floor", "mx-round-up", "nvfp4"}),
        param::number("margin", "binades of headroom (tensor scaling)", "0")},
       [](const FormulaArgs& a) {
         const FormatSpec& f = format_spec(*format_from_name(a.choice("format")));
         const std::string& scheme = a.choice("scheme");
         const double amax = a.number("amax");
         double scale = 0, tensor_scale = 1;
         if (scheme == "tensor") {
           if (f.format != Format::e4m3 && f.format != Format::e5m2)
             throw std::invalid_argument("quant-float: tensor scaling takes e4m3 or e5m2");
           scale = fp8_tensor_scale(amax, f, static_cast<int>(a.number("margin")));
         } else if (scheme == "nvfp4") {
           if (f.format != Format::e2m1)
             throw std::invalid_argument("quant-float: nvfp4 elements are e2m1");
           tensor_scale = nvfp4_tensor_scale(amax);
           scale = nvfp4_block_scale(amax, static_cast<float>(tensor_scale)) * tensor_scale;
         } else {
           scale = std::ldexp(1.0, mx_scale_exponent(amax, f,
                                                     scheme == "mx-floor" ? MxScaleRule::ocp_floor
                                                                          : MxScaleRule::round_up));
         }
         // Storage: the element plus its block's 8-bit scale (E8M0 per 32, E4M3 per 16); a tensor's
         // one fp32 scale is not counted.
         const double block_scale_bits = scheme == "tensor"  ? 0
                                         : scheme == "nvfp4" ? 8.0 / 16
                                                             : 8.0 / 32;
         return std::vector<FormulaOutput>{
             {"scale", scale},
             {"bits_per_value", f.bits + block_scale_bits},
             {"tensor_scale", tensor_scale},
             {"unit_roundoff", unit_roundoff(f)},
             // The largest error over [0, amax]: half the top quantum reached, or the clipping.
             {"max_error",
              std::max(scaled_element_max_error(f, scale, std::min(amax, scale * max_finite(f))),
                       scaled_element_max_error(f, scale, amax))},
             {"clipped_error", std::max(0.0, amax - scale * max_finite(f))},
             {"smallest_nonzero", scale * min_subnormal(f)},
             {"sqnr_uniform_db", float_quant_sqnr_uniform_db(f, scale, amax)}};
       }},
      {"gemm-error",
       "|C^ - C| <= factor (|A||B|) elementwise: factor = (1 + u_in)^2 (1 + gamma_K(u_acc)) - 1 "
       "(u_in: inputs cut to tf32/bf16 by truncation, 2^(1-p); u_acc: 2^-24 rounding to nearest, "
       "2^-23 truncating tensor cores, 2^-53 fp64); probabilistic: gamma~_K(lambda) = exp(lambda "
       "sqrt(K) u + K u^2/(1-u)) - 1, lambda = sqrt(2 ln 4K) bounds the median entry",
       "Higham, Accuracy and Stability of Numerical Algorithms, 2002, (3.13) and Lemma 3.3; Higham "
       "& Mary, SIAM J. Sci. Comput. 41(5), 2019, Thm 3.1; Fasi et al., PeerJ CS 7:e330, 2021",
       {param::count("k", "inner dimension K"),
        param::choice("accumulate", "the accumulator", {"fp32", "fp32-truncating", "fp64"}, "fp32"),
        param::choice("inputs", "what the library does to fp32 inputs",
                      {"as-given", "tf32", "bf16"}, "as-given")},
       [](const FormulaArgs& a) {
         const double k = a.number("k");
         const std::string& acc = a.choice("accumulate");
         const std::string& in = a.choice("inputs");
         GemmErrorModel m;
         m.u_accumulate = acc == "fp64" ? 0x1p-53 : acc == "fp32" ? 0x1p-24 : 0x1p-23;
         m.truncates = acc == "fp32-truncating";
         m.u_input = in == "tf32" ? truncation_unit(11) : in == "bf16" ? truncation_unit(8) : 0;
         const double lambda = median_lambda(k);
         return std::vector<FormulaOutput>{
             {"bound_factor", gemm_error_factor(m, k)},
             {"input_rounding_term", input_rounding_term(m.u_input)},
             {"median_lambda", lambda},
             {"probabilistic_factor", gemm_probabilistic_factor(m, k, lambda)},
             {"effective_bits_at_bound", effective_bits(gemm_error_factor(m, k))}};
       }},
      {"gemm-bytes",
       "C = A B (A m x k, B k x n): flop = 2 m n k; bytes read = (m k + k n) x input bytes; "
       "written = m n x output bytes (each matrix moved once)",
       "the usual GEMM count (cuBLAS, nvbench); what the GEMM cases declare",
       {param::count("m", "rows of A and C"), param::count("n", "columns of B and C"),
        param::count("k", "inner dimension"),
        param::positive("input_bytes", "bytes per element of A and B", "2"),
        param::positive("output_bytes", "bytes per element of C", "4")},
       [](const FormulaArgs& a) {
         // The function the GEMM cases declare their work with.
         const WorkCount w = gemm_work(a.number("m"), a.number("n"), a.number("k"),
                                       a.number("input_bytes"), a.number("output_bytes"));
         return std::vector<FormulaOutput>{{"flop", w.flop},
                                           {"bytes_read", w.bytes_read},
                                           {"bytes_written", w.bytes_written},
                                           {"bytes", w.bytes()},
                                           {"intensity_flop_per_byte", w.flop / w.bytes()}};
       }},
  };
}

}  // namespace bb::app
