// The transports this boundbench was built without: asking for one says what is missing.
#include <stdexcept>

#include "suites/collectives/transport.h"

namespace bb::collectives {

#ifndef BOUNDBENCH_WITH_MPI
std::unique_ptr<Transport> make_mpi_transport(lockstep::Processes&) {
  throw std::runtime_error(
      "this boundbench was built without MPI (install libopenmpi-dev and rebuild)");
}
#endif

#ifndef BOUNDBENCH_WITH_NCCL
std::unique_ptr<Transport> make_nccl_transport(lockstep::Processes&, int) {
  throw std::runtime_error(
      "this boundbench was built without NCCL (needs the CUDA toolkit and NCCL)");
}
#endif

}  // namespace bb::collectives
