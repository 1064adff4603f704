#include "harness/lockstep_processes.h"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace bb::lockstep {
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

std::unique_ptr<Processes> make_processes(bool want_mpi, OpenMpiWorld open_mpi, int& argc,
                                          char**& argv) {
  if (!want_mpi && !launched_by_mpi()) return std::make_unique<SingleProcess>();
  if (open_mpi) return open_mpi(argc, argv);
  if (want_mpi)
    throw std::runtime_error(
        "this boundbench was built without MPI (install libopenmpi-dev and rebuild)");
  // Started by a launcher but without MPI: every process would think it is alone.
  throw std::runtime_error(
      "started by an MPI launcher, but this boundbench was built without MPI; rebuild with MPI");
}

bool same_options_everywhere(Processes& processes, std::string_view who,
                             const std::string& options) {
  std::string differing;
  if (processes.same_everywhere(options, differing)) return true;
  if (processes.rank() == 0)
    std::fprintf(stderr,
                 "%s: error: %s was started with other arguments than rank 0; nothing measured\n",
                 std::string(who).c_str(), differing.c_str());
  return false;
}

int run_ending_every_rank_on_error(Processes& processes, std::string_view who,
                                   const std::function<int()>& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    if (processes.size() > 1)
      processes.abort(std::string(who) + ": error: " + e.what() + " (rank " +
                          std::to_string(processes.rank()) + ")",
                      dynamic_cast<const std::invalid_argument*>(&e) ? kExitUsage : kExitFailed);
    throw;
  }
}

}  // namespace bb::lockstep
