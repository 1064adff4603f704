// The GPU side when boundbench is built without CUDA: no device is ever usable.
#include <stdexcept>

#include "harness/gpu.h"

namespace bb {

GpuStatus query_gpus() {
  GpuStatus s;
  s.reason = "built without CUDA (BOUNDBENCH_CUDA=OFF or no nvcc at configure time)";
  return s;
}

struct GpuSession::Impl {};

GpuSession::GpuSession(const GpuDevice&, bool) {
  throw std::runtime_error("built without CUDA: no GPU session");
}
GpuSession::~GpuSession() = default;

}  // namespace bb
