// The work one sample of a kernel does, as theory/ counts it: what a case declares and what
// `boundbench theory` prints come from the same functions (stream_work, gemm_work, …, one in each
// family's header), so the two cannot drift apart. Units are in the names: bytes, flop, elements.
#pragma once

namespace bb::theory {

struct WorkCount {
  double bytes_read = 0;
  double bytes_written = 0;
  double flop = 0;
  double elements = 0;  // the items one sample processes (entries, values, loads)
  double bytes() const { return bytes_read + bytes_written; }
};

}  // namespace bb::theory
