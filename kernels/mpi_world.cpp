#include "kernels/mpi_world.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <thread>
#include <vector>

namespace bb::kernels {

void mpi_check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw std::runtime_error(std::string(what) +
                           " failed: " + std::string(text, static_cast<std::size_t>(len)));
}

namespace {

double allreduce(double v, MPI_Op op, MPI_Comm comm) {
  double r = 0;
  mpi_check(MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, op, comm), "MPI_Allreduce");
  return r;
}

}  // namespace

MpiWorld::MpiWorld(int& argc, char**& argv) {
  int provided = 0;
  // The watchdog calls MPI_Abort from its own thread: ask for MPI_THREAD_MULTIPLE.
  mpi_check(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
  thread_multiple_ = provided >= MPI_THREAD_MULTIPLE;
  mpi_check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  mpi_check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  MPI_Comm node = MPI_COMM_NULL;
  mpi_check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node),
            "MPI_Comm_split_type");
  mpi_check(MPI_Comm_size(node, &node_size_), "MPI_Comm_size");
  MPI_Comm_free(&node);
}

MpiWorld::~MpiWorld() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

std::string MpiWorld::library_version() const {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(version, &len);
  std::string v(version, static_cast<std::size_t>(len));
  if (const auto nl = v.find_first_of("\n,"); nl != std::string::npos) v.resize(nl);
  return v;
}

bool MpiWorld::same_everywhere(const std::string& text, int& differing_rank) {
  unsigned long long length = text.size();
  mpi_check(MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD), "MPI_Bcast");
  std::string first(length, '\0');
  if (rank_ == 0) first = text;
  mpi_check(MPI_Bcast(first.data(), static_cast<int>(length), MPI_CHAR, 0, MPI_COMM_WORLD),
            "MPI_Bcast");
  const int differs = first != text;
  std::vector<int> all(static_cast<std::size_t>(size_));
  mpi_check(MPI_Allgather(&differs, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD),
            "MPI_Allgather");
  const auto first_differing = std::find(all.begin(), all.end(), 1);
  if (first_differing == all.end()) return true;
  differing_rank = static_cast<int>(first_differing - all.begin());
  return false;
}

double MpiWorld::min_over_all(double v) { return allreduce(v, MPI_MIN, MPI_COMM_WORLD); }

void MpiWorld::meet() {
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Ibarrier(MPI_COMM_WORLD, &request), "MPI_Ibarrier");
  for (int done = 0;;) {
    mpi_check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) return;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

void MpiWorld::abort(int exit_code) {
  if (thread_multiple_) MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::_Exit(exit_code);
}

MpiGroup::MpiGroup(const MpiWorld& world, int ranks) {
  mpi_check(MPI_Comm_split(MPI_COMM_WORLD, world.rank() < ranks ? 0 : MPI_UNDEFINED, world.rank(),
                           &comm_),
            "MPI_Comm_split");
  if (comm_ == MPI_COMM_NULL) return;
  mpi_check(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  mpi_check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
}

MpiGroup::~MpiGroup() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void MpiGroup::barrier() { mpi_check(MPI_Barrier(comm_), "MPI_Barrier"); }

double MpiGroup::max(double v) { return allreduce(v, MPI_MAX, comm_); }
double MpiGroup::sum(double v) { return allreduce(v, MPI_SUM, comm_); }

void MpiGroup::broadcast(void* data, int bytes, int root) {
  mpi_check(MPI_Bcast(data, bytes, MPI_BYTE, root, comm_), "MPI_Bcast");
}

}  // namespace bb::kernels
