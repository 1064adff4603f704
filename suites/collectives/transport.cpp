// What the transports share, and the transports this boundbench was built without: asking for one
// says what is missing.
#include "suites/collectives/transport.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace bb::collectives {

void fill_buffers(const Spec& s, const reference::CollectiveShape& shape, int rank, int ranks,
                  void* input, void* output) {
  const std::size_t esize = reference::dtype_bytes(s.dtype);
  reference::fill_input(s.dtype, rank, reference::pattern_amplitude(s.dtype, ranks), input,
                        shape.in_count);
  reference::poison_output(s.dtype, output, std::max(shape.in_count, shape.out_count));
  if (!s.in_place || (s.op == theory::Collective::broadcast && rank != s.root)) return;
  const std::size_t at = s.op == theory::Collective::all_gather ? rank * shape.in_count : 0;
  std::memcpy(static_cast<char*>(output) + at * esize, input, shape.in_count * esize);
}

int launcher_local_rank() {
  int local = -1;
  for (const char* v : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"})
    if (const char* s = std::getenv(v)) local = std::atoi(s);
  return local;
}

#ifndef BOUNDBENCH_WITH_MPI
kernels::MpiWorld* mpi_world(lockstep::Processes&) { return nullptr; }
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
