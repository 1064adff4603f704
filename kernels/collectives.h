// One collective call as the MPI and NCCL wrappers make it (kernels/collectives_mpi.h,
// kernels/collectives_nccl.h): which collective, on which data type, with which operator, and
// where its input lies. Buffer layouts are nccl-tests' (reference/collectives.h).
#pragma once

#include "reference/collectives.h"
#include "theory/collectives.h"

namespace bb::kernels {

struct CollectiveSpec {
  theory::Collective op = theory::Collective::all_reduce;
  reference::DType dtype = reference::DType::fp32;
  reference::RedOp redop = reference::RedOp::sum;
  bool in_place = false;
  int root = 0;
};

// all_to_all and send_recv run out of place only (NCCL has no in-place form of them; the MPI
// engine measures the same set).
inline bool has_in_place(theory::Collective op) {
  return op != theory::Collective::all_to_all && op != theory::Collective::send_recv;
}

}  // namespace bb::kernels
