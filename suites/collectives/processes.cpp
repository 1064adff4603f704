// The single process, and the choice between it and MPI's world.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "suites/collectives/transport.h"

namespace bb::collectives {

#ifdef BOUNDBENCH_WITH_MPI
std::unique_ptr<Processes> make_mpi_processes(int& argc, char**& argv);  // processes_mpi.cpp
#endif

namespace {

class SingleProcess final : public Processes {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string launcher() const override { return "single"; }
  int on_this_node() const override { return 1; }
  bool same_everywhere(const std::string&, std::string&) override { return true; }
  double min_over_all(double v) override { return v; }
  void meet() override {}
  [[noreturn]] void abort(const std::string& message, int exit_code) override {
    std::fprintf(stderr, "%s\n", message.c_str());
    std::fflush(nullptr);
    std::_Exit(exit_code);
  }
};

}  // namespace

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(v)) return true;
  return false;
}

std::unique_ptr<Processes> make_processes(bool want_mpi, [[maybe_unused]] int& argc,
                                          [[maybe_unused]] char**& argv) {
  if (!want_mpi && !launched_by_mpi()) return std::make_unique<SingleProcess>();
#ifdef BOUNDBENCH_WITH_MPI
  return make_mpi_processes(argc, argv);
#else
  if (want_mpi)
    throw std::runtime_error(
        "this boundbench was built without MPI (install libopenmpi-dev and rebuild)");
  // Started by a launcher but without MPI: every process would think it is alone.
  throw std::runtime_error(
      "started by an MPI launcher, but this boundbench was built without MPI; rebuild with MPI");
#endif
}

#ifndef BOUNDBENCH_WITH_MPI
std::unique_ptr<Transport> make_mpi_transport(Processes&) {
  throw std::runtime_error(
      "this boundbench was built without MPI (install libopenmpi-dev and rebuild)");
}
#endif

#ifndef BOUNDBENCH_WITH_NCCL
std::unique_ptr<Transport> make_nccl_transport(Processes&, int) {
  throw std::runtime_error(
      "this boundbench was built without NCCL (needs the CUDA toolkit and NCCL)");
}
#endif

}  // namespace bb::collectives
