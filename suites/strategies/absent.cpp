// What this boundbench was built without: asking for it says so. Without MPI the strategies have
// no engine between processes; the NCCL engine (and its GPU compute) needs the CUDA toolkit, NCCL
// and MPI.
#include <stdexcept>

#include "suites/strategies/compute_device.h"
#include "suites/strategies/step_comm.h"

namespace bb::strategies {

#ifndef BOUNDBENCH_WITH_MPI
std::unique_ptr<StepComm> make_mpi_comm(lockstep::Processes&) {
  throw std::invalid_argument("--engine mpi: boundbench was built without MPI");
}
#endif

#ifndef BOUNDBENCH_WITH_NCCL
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
#endif

}  // namespace bb::strategies
