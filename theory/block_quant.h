// Floating-point quantization x ≈ S·P, P in a narrow float format: per tensor (fp8 scaled from the
// amax), OCP MX blocks (32 elements sharing an E8M0 scale 2^e; OCP Microscaling Formats (MX)
// Specification v1.0, 2023, §6.3) and NVFP4 (16 E2M1 elements sharing an E4M3 scale under an fp32
// tensor scale; NVIDIA, "Introducing NVFP4", 2025). Scales, the error of one element and the noise
// law. Derivations: theory/README.md, "Block-scaled quantization".
#pragma once

#include "theory/formats.h"
#include "theory/work.h"

namespace bb::theory {

// OCP's rule e = ⌊log2 amax⌋ − emax_elem (amax / X lands in [2^emax, 2^(emax+1)), whose top can
// exceed the element's max finite, so the block's largest elements can clip), or the rule that
// never clips: the least e with amax ≤ max_finite·2^e. Exact integer arithmetic (no log2), clamped
// to E8M0's [−127, 127]; an all-zero block gets −127.
enum class MxScaleRule { ocp_floor, round_up };
int mx_scale_exponent(double amax, const FormatSpec& element, MxScaleRule rule);

// Per-tensor scaling from the amax (NVIDIA Transformer Engine's delayed/current scaling):
// s = amax·2^margin / max_finite, stored as fp32, so that |x|/s ≤ max_finite / 2^margin; an
// all-zero tensor gets s = 1. `margin` ≥ 0 binades of headroom.
float fp8_tensor_scale(double amax, const FormatSpec& element, int margin);

// NVFP4's tensor scale g = amax / (448·6) (fp32; 1 for an all-zero tensor): the largest block
// scale then fits E4M3. Its block scale s_b = amax_b / (6·g) rounded up to E4M3 (never clips).
float nvfp4_tensor_scale(double amax);
double nvfp4_block_scale(double block_amax, float tensor_scale);

// The spacing of the element grid at |v| (v = x / S in element units): 2^(max(⌊log2|v|⌋, emin) −
// m).
double element_quantum(const FormatSpec& element, double v_abs);

// Rounding to nearest inside the range errs by at most half a quantum: |x − S·P| ≤ S·q(|x|/S)/2 —
// relative 2^-p = u in the normal range, absolute S·min_subnormal/2 below it. Past max_finite
// (clipped), the error is |x| − S·max_finite.
double scaled_element_max_error(const FormatSpec& element, double scale, double x_abs);

// The uniform-noise law (Widrow & Kollár, "Quantization Noise", 2008, ch. 12): where x spreads
// over many quanta, its error is uniform over one, of variance q²/12. For x uniform on
// [−amax, amax] and one scale S: noise = (1/amax)·∫ q(x/S)²·S²/12 dx over [0, amax] (binade by
// binade) plus clipping, power = amax²/3; SQNR = 10·log10(power / noise) dB.
double float_quant_sqnr_uniform_db(const FormatSpec& element, double scale, double amax);

// Block quantization of n fp32 values: an amax pass over the whole tensor where there is a tensor
// scale (fp8 per tensor, NVFP4's g), then the quantize pass, each reading them (4n bytes a pass);
// written: the codes, `code_bits` of storage each (4: two E2M1 codes per byte; 8: one per byte,
// FP6 included), and one 1-byte scale (E8M0, E4M3) per block of `block_elements` (0: a per-tensor
// scale only, whose 4 bytes are not counted); n elements.
WorkCount block_quant_work(double elements, int code_bits, double block_elements,
                           bool tensor_amax_pass);

}  // namespace bb::theory
