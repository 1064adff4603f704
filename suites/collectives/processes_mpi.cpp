#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <thread>
#include <vector>

#include "suites/collectives/mpi_processes.h"

namespace bb::collectives {

void mpi_check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw std::runtime_error(std::string(what) +
                           " failed: " + std::string(text, static_cast<std::size_t>(len)));
}

MpiProcesses::MpiProcesses(int& argc, char**& argv) {
  int provided = 0;
  // The watchdog calls MPI_Abort from its own thread: ask for MPI_THREAD_MULTIPLE.
  mpi_check(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
  thread_multiple_ = provided >= MPI_THREAD_MULTIPLE;
  // Errors come back as return codes (checked), not as MPI's default abort.
  mpi_check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  mpi_check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  MPI_Comm node = MPI_COMM_NULL;
  mpi_check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node),
            "MPI_Comm_split_type");
  mpi_check(MPI_Comm_size(node, &node_size_), "MPI_Comm_size");
  MPI_Comm_free(&node);
}

MpiProcesses::~MpiProcesses() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

bool MpiProcesses::same_everywhere(const std::string& text, std::string& differing) {
  unsigned long long length = text.size();
  mpi_check(MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD), "MPI_Bcast");
  std::string first(length, '\0');
  if (rank_ == 0) first = text;
  mpi_check(MPI_Bcast(first.data(), static_cast<int>(length), MPI_CHAR, 0, MPI_COMM_WORLD),
            "MPI_Bcast");
  int differs = first != text;
  std::vector<int> all(static_cast<std::size_t>(size_));
  mpi_check(MPI_Gather(&differs, 1, MPI_INT, all.data(), 1, MPI_INT, 0, MPI_COMM_WORLD),
            "MPI_Gather");
  int any = 0;
  mpi_check(MPI_Allreduce(&differs, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD), "MPI_Allreduce");
  if (rank_ == 0)
    for (int r = 0; r < size_ && differing.empty(); ++r)
      if (all[static_cast<std::size_t>(r)]) differing = "rank " + std::to_string(r);
  return !any;
}

double MpiProcesses::min_over_all(double v) {
  double r = v;
  mpi_check(MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
  return r;
}

void MpiProcesses::meet() {
  // A non-blocking barrier polled with sleeps: idle ranks leave the cores to the measured group.
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Ibarrier(MPI_COMM_WORLD, &request), "MPI_Ibarrier");
  for (int done = 0;;) {
    mpi_check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) return;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

void MpiProcesses::abort(const std::string& message, int exit_code) {
  std::fprintf(stderr, "%s\n", message.c_str());
  std::fflush(nullptr);
  if (thread_multiple_) MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::_Exit(exit_code);  // the launcher ends the other ranks when one exits without finalizing
}

MPI_Comm MpiProcesses::split_first(int ranks) {
  MPI_Comm group = MPI_COMM_NULL;
  mpi_check(MPI_Comm_split(MPI_COMM_WORLD, rank_ < ranks ? 0 : MPI_UNDEFINED, rank_, &group),
            "MPI_Comm_split");
  if (group != MPI_COMM_NULL)
    mpi_check(MPI_Comm_set_errhandler(group, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  return group;
}

std::unique_ptr<Processes> make_mpi_processes(int& argc, char**& argv) {
  return std::make_unique<MpiProcesses>(argc, argv);
}

}  // namespace bb::collectives
