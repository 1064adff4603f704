#include "kernels/collectives_mpi.h"

#include <malloc.h>

#include <algorithm>
#include <limits>

namespace bb::kernels {
namespace {

using reference::DType;
using reference::RedOp;
using theory::Collective;

template <DType T, RedOp O>
void reduce16(void* in, void* inout, int* len, MPI_Datatype*) {
  for (int i = 0; i < *len; ++i) {
    const auto k = static_cast<std::size_t>(i);
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

}  // namespace

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
  if (s.dtype == DType::bf16)
    op_ = create_op<DType::bf16>(s.redop), own_op_ = true;
  else if (s.dtype == DType::fp16)
    op_ = create_op<DType::fp16>(s.redop), own_op_ = true;
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
