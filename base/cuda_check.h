// One error path per library: each call's status is checked; a failure throws with file, line and
// the call named. Only main decides the exit code.
#pragma once

#include <cublas_api.h>
#include <cuda_runtime_api.h>

#include <source_location>
#include <stdexcept>
#include <string>
#include <string_view>

namespace bb {

inline std::string where(const std::source_location& loc) {
  return std::string(loc.file_name()) + ":" + std::to_string(loc.line());
}

inline void check_cuda(cudaError_t status, std::string_view call,
                       std::source_location loc = std::source_location::current()) {
  if (status == cudaSuccess) return;
  throw std::runtime_error(where(loc) + ": " + std::string(call) + ": " + cudaGetErrorName(status) +
                           ": " + cudaGetErrorString(status));
}

// After every kernel launch: launch-configuration errors appear here, not at the launch.
inline void check_launch(std::string_view kernel,
                         std::source_location loc = std::source_location::current()) {
  check_cuda(cudaGetLastError(), std::string("launch of ") + std::string(kernel), loc);
}

inline void check_cublas(cublasStatus_t status, std::string_view call,
                         std::source_location loc = std::source_location::current()) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw std::runtime_error(where(loc) + ": " + std::string(call) + ": " +
                           cublasGetStatusString(status));
}

}  // namespace bb
