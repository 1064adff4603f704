// The work of a matrix product C = A·B (A m×k, B k×n): what the GEMM cases declare, with the
// element sizes of their inputs and output. Error bounds of GEMM: theory/gemm_error.h.
#pragma once

#include "theory/work.h"

namespace bb::theory {

// m·n·k multiply-adds, 2 flop each: flop = 2mnk; A and B read and C written at least once:
// bytes read = (mk + kn) × input bytes, written = mn × output bytes; elements = mn entries of C
// (the usual GEMM count, e.g. cuBLAS's and nvbench's TFLOP/s).
inline WorkCount gemm_work(double m, double n, double k, double input_bytes, double output_bytes) {
  return {(m * k + k * n) * input_bytes, m * n * output_bytes, 2 * m * n * k, m * n};
}

}  // namespace bb::theory
