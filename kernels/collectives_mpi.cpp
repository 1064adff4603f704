#include "kernels/collectives_mpi.h"

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <thread>

namespace bb::kernels {
namespace {

using reference::DType;
using reference::RedOp;
using theory::Collective;

// Throws std::runtime_error naming the MPI call and its error string.
void mpi_check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw std::runtime_error(std::string(what) +
                           " failed: " + std::string(text, static_cast<std::size_t>(len)));
}

template <DType T, RedOp O>
void reduce16(void* in, void* inout, int* len, MPI_Datatype*) {
  for (std::size_t k = 0; k < static_cast<std::size_t>(*len); ++k) {
    const double a = reference::decode_element(T, reference::load_element(T, in, k));
    const double b = reference::decode_element(T, reference::load_element(T, inout, k));
    const double r = O == RedOp::sum ? a + b : O == RedOp::max ? std::max(a, b) : std::min(a, b);
    reference::store_element(T, inout, k, reference::encode_element(T, r));
  }
}

template <DType T>
MPI_Op create_op(RedOp o) {
  MPI_Op op = MPI_OP_NULL;
  MPI_User_function* f = o == RedOp::sum   ? &reduce16<T, RedOp::sum>
                         : o == RedOp::max ? &reduce16<T, RedOp::max>
                                           : &reduce16<T, RedOp::min>;
  mpi_check(MPI_Op_create(f, 1, &op), "MPI_Op_create");
  return op;
}

// Polls `request` with sleeps of `pause` (a sleeping rank holds no core; oversubscribed ranks that
// spin would take the cores from the ranks that compute).
void wait_polled(MPI_Request& request, const char* what,
                 std::chrono::microseconds pause = std::chrono::microseconds(5)) {
  for (int done = 0;;) {
    mpi_check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), what);
    if (done) return;
    std::this_thread::sleep_for(pause);
  }
}

int int_count(std::size_t count, const char* what) {
  if (count > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw std::runtime_error(std::string(what) + ": more than 2^31-1 elements");
  return static_cast<int>(count);
}

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

std::string MpiWorld::description() const {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(version, &len);
  std::string v(version, static_cast<std::size_t>(len));
  if (const auto nl = v.find_first_of("\n,"); nl != std::string::npos) v.resize(nl);
  return v + "; " + std::to_string(size_) + " processes, " + std::to_string(node_size_) +
         " on this node";
}

bool MpiWorld::same_everywhere(const std::string& text, int& differing_rank) {
  unsigned long long length = text.size();
  mpi_check(MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD), "MPI_Bcast");
  std::string first(length, '\0');
  if (rank_ == 0) first = text;
  mpi_check(MPI_Bcast(first.data(), static_cast<int>(length), MPI_CHAR, 0, MPI_COMM_WORLD),
            "MPI_Bcast");
  // The smallest rank that did not pass rank 0's text (the world's size when every one did; a
  // double holds these ranks exactly).
  const double first_differing = allreduce(first != text ? rank_ : size_, MPI_MIN, MPI_COMM_WORLD);
  if (first_differing == size_) return true;
  differing_rank = static_cast<int>(first_differing);
  return false;
}

double MpiWorld::min_over_all(double v) { return allreduce(v, MPI_MIN, MPI_COMM_WORLD); }

void MpiWorld::meet() {
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Ibarrier(MPI_COMM_WORLD, &request), "MPI_Ibarrier");
  wait_polled(request, "MPI_Test", std::chrono::microseconds(200));
}

void MpiWorld::abort(const std::string& message, int exit_code) {
  std::fprintf(stderr, "%s\n", message.c_str());
  std::fflush(nullptr);
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

void MpiGroup::send(const void* data, std::size_t bytes, int to, int tag) {
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Isend(data, int_count(bytes, "MPI_Isend"), MPI_BYTE, to, tag, comm_, &request),
            "MPI_Isend");
  sends_.push_back(request);
}

void MpiGroup::receive(void* data, std::size_t bytes, int from, int tag) {
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Irecv(data, int_count(bytes, "MPI_Irecv"), MPI_BYTE, from, tag, comm_, &request),
            "MPI_Irecv");
  wait_polled(request, "MPI_Test (receive)");
}

void MpiGroup::complete_sends() {
  for (MPI_Request& r : sends_) wait_polled(r, "MPI_Test (send)");
  sends_.clear();
}

void MpiGroup::all_reduce_sum(float* data, std::size_t count) {
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, data, int_count(count, "MPI_Allreduce"), MPI_FLOAT, MPI_SUM,
                          comm_),
            "MPI_Allreduce");
}

void MpiGroup::all_to_all(const float* send, const std::vector<int>& send_counts,
                          const std::vector<int>& send_offsets, float* recv,
                          const std::vector<int>& recv_counts,
                          const std::vector<int>& recv_offsets) {
  mpi_check(MPI_Alltoallv(send, send_counts.data(), send_offsets.data(), MPI_FLOAT, recv,
                          recv_counts.data(), recv_offsets.data(), MPI_FLOAT, comm_),
            "MPI_Alltoallv");
}

void MpiGroup::start_all_reduce_sum(float* data, std::size_t count) {
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Iallreduce(MPI_IN_PLACE, data, int_count(count, "MPI_Iallreduce"), MPI_FLOAT,
                           MPI_SUM, comm_, &request),
            "MPI_Iallreduce");
  all_reduces_.push_back(request);
}

bool MpiGroup::test_all_reduces() {
  int done = 1;
  if (!all_reduces_.empty())
    mpi_check(MPI_Testall(static_cast<int>(all_reduces_.size()), all_reduces_.data(), &done,
                          MPI_STATUSES_IGNORE),
              "MPI_Testall (all-reduce)");
  if (done) all_reduces_.clear();
  return done != 0;
}

void keep_freed_memory_in_heap() {
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
}

MpiCollective::MpiCollective(const CollectiveSpec& s, const reference::CollectiveShape& shape,
                             const MpiGroup& group)
    : spec_(s), shape_(shape), comm_(group.comm()), rank_(group.rank()), size_(group.size()) {
  const std::size_t esize = reference::dtype_bytes(s.dtype);
  send_.assign(shape.in_count * esize, std::byte{0});
  recv_.assign(std::max(shape.in_count, shape.out_count) * esize, std::byte{0});
  counts_.assign(static_cast<std::size_t>(size_), static_cast<int>(shape.out_count));
  type_ = s.dtype == DType::fp32 ? MPI_FLOAT : s.dtype == DType::int32 ? MPI_INT32_T : MPI_UINT16_T;
  own_op_ = s.dtype == DType::bf16 || s.dtype == DType::fp16;
  if (own_op_)
    op_ =
        s.dtype == DType::bf16 ? create_op<DType::bf16>(s.redop) : create_op<DType::fp16>(s.redop);
  else
    op_ = s.redop == RedOp::sum ? MPI_SUM : s.redop == RedOp::max ? MPI_MAX : MPI_MIN;
}

MpiCollective::~MpiCollective() {
  if (own_op_) MPI_Op_free(&op_);
}

const void* MpiCollective::output() const {
  if (spec_.op == Collective::broadcast && !spec_.in_place && rank_ == spec_.root)
    return send_.data();
  return recv_.data();
}

double MpiCollective::seconds_per_call(int iterations) {
  const double t0 = MPI_Wtime();
  for (int i = 0; i < iterations; ++i) run();
  return (MPI_Wtime() - t0) / iterations;
}

void MpiCollective::run() {
  void* in = spec_.in_place ? MPI_IN_PLACE : static_cast<void*>(send_.data());
  void* out = recv_.data();
  const int in_count = static_cast<int>(shape_.in_count),
            out_count = static_cast<int>(shape_.out_count);
  switch (spec_.op) {
    case Collective::all_reduce:
      return mpi_check(MPI_Allreduce(in, out, in_count, type_, op_, comm_), "MPI_Allreduce");
    case Collective::all_gather:
      return mpi_check(MPI_Allgather(in, in_count, type_, out, in_count, type_, comm_),
                       "MPI_Allgather");
    case Collective::reduce_scatter:
      // MPI_Reduce_scatter with equal counts: OpenMPI 4.1's tuned _block variant reduces the
      // whole buffer on one rank first (not bandwidth-optimal), its general one does not.
      return mpi_check(MPI_Reduce_scatter(in, out, counts_.data(), type_, op_, comm_),
                       "MPI_Reduce_scatter");
    case Collective::broadcast: {
      void* buf = spec_.in_place || rank_ != spec_.root ? out : send_.data();
      return mpi_check(MPI_Bcast(buf, in_count, type_, spec_.root, comm_), "MPI_Bcast");
    }
    case Collective::reduce: {
      // In place, the root reduces into its buffer; the others send theirs.
      void* send = spec_.in_place ? (rank_ == spec_.root ? MPI_IN_PLACE : out) : send_.data();
      return mpi_check(MPI_Reduce(send, out, in_count, type_, op_, spec_.root, comm_),
                       "MPI_Reduce");
    }
    case Collective::all_to_all: {
      const int share = in_count / size_;
      return mpi_check(MPI_Alltoall(send_.data(), share, type_, out, share, type_, comm_),
                       "MPI_Alltoall");
    }
    case Collective::send_recv:
      return mpi_check(
          MPI_Sendrecv(send_.data(), in_count, type_, (rank_ + 1) % size_, 0, out, out_count, type_,
                       (rank_ + size_ - 1) % size_, 0, comm_, MPI_STATUS_IGNORE),
          "MPI_Sendrecv");
  }
}

}  // namespace bb::kernels
