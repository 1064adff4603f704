// MPI's world as the collectives suite's processes (built only with MPI).
#pragma once

#include <mpi.h>

#include "suites/collectives/transport.h"

namespace bb::collectives {

// Throws std::runtime_error naming the MPI call and its error string.
void mpi_check(int rc, const char* what);

class MpiProcesses final : public Processes {
 public:
  MpiProcesses(int& argc, char**& argv);
  ~MpiProcesses() override;
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string launcher() const override { return "mpi"; }
  int on_this_node() const override { return node_size_; }
  bool same_everywhere(const std::string& text, std::string& differing) override;
  double min_over_all(double v) override;
  void meet() override;
  [[noreturn]] void abort(const std::string& message, int exit_code) override;
  // The first `ranks` processes as a communicator (MPI_COMM_NULL on the others); collective.
  MPI_Comm split_first(int ranks);
  bool thread_multiple() const { return thread_multiple_; }

 private:
  int rank_ = 0, size_ = 1, node_size_ = 1;
  bool thread_multiple_ = false;
};

}  // namespace bb::collectives
