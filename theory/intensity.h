// The arithmetic-intensity sweep's kernel (mixbench: Konstantinidis & Cotronis, JPDC 2017): every
// element loaded once, put through k dependent FMAs and stored in place, so one kernel walks the
// roofline from memory-bound (small k) to compute-bound (large k). Derivations: theory/README.md,
// "Roofline".
#pragma once

#include "theory/work.h"

namespace bb::theory {

// n elements read and written once (n × element size each way), k FMAs of 2 flop on each:
// flop = 2·k·n, intensity 2k / (2 × element size) flop/byte (fp16/bf16 count per lane).
inline WorkCount fma_chain_work(double elements, double element_bytes, double fma_per_element) {
  return {elements * element_bytes, elements * element_bytes, 2.0 * fma_per_element * elements,
          elements};
}

}  // namespace bb::theory
