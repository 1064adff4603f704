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

}  // namespace bb::kernels
