// The NCCL error path, beside cuda_check.h: a failed call throws with file, line and the call
// named.
#pragma once

#include <nccl.h>

#include "base/cuda_check.h"

namespace bb {

inline void check_nccl(ncclResult_t status, std::string_view call,
                       std::source_location loc = std::source_location::current()) {
  if (status == ncclSuccess) return;
  throw std::runtime_error(where(loc) + ": " + std::string(call) + ": " +
                           ncclGetErrorString(status));
}

}  // namespace bb
