// Built without the NCCL engine (it needs CUDA, NCCL and MPI): asking for it says so.
#include <stdexcept>

#include "suites/strategies/compute_device.h"
#include "suites/strategies/step_comm.h"

namespace bb::strategies {
namespace {
constexpr const char* kMissing =
    "--engine nccl: this boundbench was built without the NCCL engine (needs the CUDA toolkit, "
    "NCCL and MPI)";
}  // namespace

std::unique_ptr<StepComm> make_nccl_comm(lockstep::Processes&) {
  throw std::invalid_argument(kMissing);
}

std::shared_ptr<DeviceCompute> make_device_compute(const std::vector<GemmShape>&) {
  throw std::invalid_argument(kMissing);
}

}  // namespace bb::strategies
