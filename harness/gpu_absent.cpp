// The GPU side when boundbench is built without CUDA: no device is ever usable.
#include <stdexcept>

#include "harness/gpu.h"

namespace bb {
namespace {

[[noreturn]] void no_session() { throw std::runtime_error("built without CUDA: no GPU session"); }

}  // namespace

GpuStatus query_gpus() {
  GpuStatus s;
  s.reason = "built without CUDA (BOUNDBENCH_CUDA=OFF or no nvcc at configure time)";
  return s;
}

void set_current_gpu(const GpuDevice&) { throw std::runtime_error("built without CUDA: no GPU"); }

struct GpuSession::Impl {};

GpuSession::GpuSession(const GpuDevice&, bool) { no_session(); }
GpuSession::~GpuSession() = default;
double GpuSession::time_sample_s(const std::function<void(gpu_stream)>&) { no_session(); }
void GpuSession::launch(const std::function<void(gpu_stream)>&) { no_session(); }
void GpuSession::wait() { no_session(); }
double GpuSession::measure_sm_clock_hz() { no_session(); }

}  // namespace bb
