// MPI's processes, raw: MPI_COMM_WORLD for the life of an MpiWorld, and groups of its first ranks.
// Errors come back as return codes (not MPI's default abort) and throw std::runtime_error naming
// the call. Built only with MPI; the lockstep harness sees these through its own interface
// (harness/lockstep_engine.h, adapted in suites/collectives/transport_mpi.cpp).
#pragma once

#include <mpi.h>

#include <string>

namespace bb::kernels {

// Throws std::runtime_error naming the MPI call and its error string.
void mpi_check(int rc, const char* what);

// MPI_COMM_WORLD, from MPI_Init_thread to MPI_Finalize. Calls are collective over every process
// unless they say otherwise.
class MpiWorld {
 public:
  MpiWorld(int& argc, char**& argv);
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int on_this_node() const { return node_size_; }  // processes sharing this node
  std::string library_version() const;             // its first line; not collective
  // True everywhere when every process passed rank 0's `text`; otherwise `differing_rank` is the
  // first process that did not.
  bool same_everywhere(const std::string& text, int& differing_rank);
  double min_over_all(double v);
  // A barrier polled with sleeps: processes with nothing to do leave the cores to the others.
  void meet();
  // Not collective: MPI_Abort (where MPI lets any thread call it), else exit without finalizing,
  // which makes the launcher end the other processes.
  [[noreturn]] void abort(int exit_code);

 private:
  int rank_ = 0, size_ = 1, node_size_ = 1;
  bool thread_multiple_ = false;
};

// The first `ranks` processes of the world as one communicator; on the others, no communicator
// (member() false). Calls other than member(), rank() and size() are collective over the group.
class MpiGroup {
 public:
  MpiGroup(const MpiWorld& world, int ranks);  // collective over the world
  ~MpiGroup();
  MpiGroup(const MpiGroup&) = delete;
  MpiGroup& operator=(const MpiGroup&) = delete;

  bool member() const { return comm_ != MPI_COMM_NULL; }
  MPI_Comm comm() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  void barrier();
  double max(double v);
  double sum(double v);
  void broadcast(void* data, int bytes, int root);

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
};

}  // namespace bb::kernels
