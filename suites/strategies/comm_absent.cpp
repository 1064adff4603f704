// Built without MPI: the strategies have no engine between processes.
#include <stdexcept>

#include "suites/strategies/step_comm.h"

namespace bb::strategies {

std::unique_ptr<StepComm> make_mpi_comm(lockstep::Processes&) {
  throw std::invalid_argument("--engine mpi: boundbench was built without MPI");
}

}  // namespace bb::strategies
