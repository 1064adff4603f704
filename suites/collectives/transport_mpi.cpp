// MPI's collectives between processes. bf16 and fp16 have no MPI datatype: they travel as 16-bit
// integers with a user-defined reduction (decode, reduce, round to nearest even).
#include <malloc.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#include "suites/collectives/mpi_processes.h"

namespace bb::collectives {
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

class MpiTransport final : public Transport {
 public:
  explicit MpiTransport(MpiProcesses& p) : procs_(p) {
    // MPI allocates temporary buffers inside some collectives (OpenMPI's reduce_scatter from
    // 16 MiB); glibc serves large ones with fresh mmaps, so every call would page-fault them anew
    // and measure the kernel zeroing pages (~1.3 GB/s here). Keep freed memory in the heap
    // instead, as a caching allocator would.
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
  }
  ~MpiTransport() override { end_group(); }
  std::string name() const override { return "mpi"; }
  int world_ranks() const override { return procs_.size(); }
  std::string description() const override {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(version, &len);
    std::string v(version, static_cast<std::size_t>(len));
    if (const auto nl = v.find_first_of("\n,"); nl != std::string::npos) v.resize(nl);
    return v + "; " + std::to_string(procs_.size()) + " processes, " +
           std::to_string(procs_.on_this_node()) + " on this node";
  }

  bool begin_group(int ranks) override {
    end_group();
    group_ = procs_.split_first(ranks);
    if (group_ == MPI_COMM_NULL) return false;
    mpi_check(MPI_Comm_rank(group_, &rank_), "MPI_Comm_rank");
    mpi_check(MPI_Comm_size(group_, &size_), "MPI_Comm_size");
    return true;
  }
  void end_group() override {
    release();
    if (group_ != MPI_COMM_NULL) MPI_Comm_free(&group_);
  }

  std::string unsupported(const Spec& s) const override {
    if (s.in_place && !has_in_place(s.op))
      return "in-place " + std::string(theory::collective_name(s.op)) + " is not measured";
    return "";
  }

  void prepare(const Spec& s, const reference::CollectiveShape& shape) override {
    release();
    spec_ = s, shape_ = shape;
    const std::size_t esize = reference::dtype_bytes(s.dtype);
    send_.assign(shape.in_count * esize, std::byte{0});
    recv_.assign(std::max(shape.in_count, shape.out_count) * esize, std::byte{0});
    counts_.assign(static_cast<std::size_t>(size_), static_cast<int>(shape.out_count));
    type_ = s.dtype == DType::fp32    ? MPI_FLOAT
            : s.dtype == DType::int32 ? MPI_INT32_T
                                      : MPI_UINT16_T;
    if (s.dtype == DType::bf16)
      op_ = create_op<DType::bf16>(s.redop), own_op_ = true;
    else if (s.dtype == DType::fp16)
      op_ = create_op<DType::fp16>(s.redop), own_op_ = true;
    else
      op_ = s.redop == RedOp::sum ? MPI_SUM : s.redop == RedOp::max ? MPI_MAX : MPI_MIN;
  }

  std::uint64_t run_and_verify() override {
    const int amplitude = reference::pattern_amplitude(spec_.dtype, size_);
    reference::fill_input(spec_.dtype, rank_, amplitude, send_.data(), shape_.in_count);
    reference::poison_output(spec_.dtype, recv_.data(),
                             recv_.size() / reference::dtype_bytes(spec_.dtype));
    if (spec_.in_place) place_input_in_output();
    run_once();
    unsigned long long wrong = reference::count_wrong(spec_.op, spec_.redop, spec_.dtype, rank_,
                                                      size_, spec_.root, shape_, output());
    unsigned long long total = 0;
    mpi_check(MPI_Allreduce(&wrong, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, group_),
              "MPI_Allreduce");
    return total;
  }

  double sample_s(int iterations, TimeReduction reduction) override {
    mpi_check(MPI_Barrier(group_), "MPI_Barrier");
    const double t0 = MPI_Wtime();
    for (int i = 0; i < iterations; ++i) run_once();
    double t = (MPI_Wtime() - t0) / iterations, r = 0;
    mpi_check(MPI_Allreduce(&t, &r, 1, MPI_DOUBLE,
                            reduction == TimeReduction::max ? MPI_MAX : MPI_SUM, group_),
              "MPI_Allreduce");
    return reduction == TimeReduction::max ? r : r / size_;
  }

  void release() override {
    if (own_op_) MPI_Op_free(&op_);
    own_op_ = false;
    send_.clear(), send_.shrink_to_fit();
    recv_.clear(), recv_.shrink_to_fit();
  }

  [[noreturn]] void abort(const std::string& message, int exit_code) override {
    procs_.abort(message, exit_code);
  }

 private:
  // In place, the input starts where nccl-tests and MPI expect it inside the output buffer.
  void place_input_in_output() {
    const std::size_t esize = reference::dtype_bytes(spec_.dtype);
    std::size_t offset = 0;
    if (spec_.op == Collective::all_gather)
      offset = static_cast<std::size_t>(rank_) * shape_.in_count;
    if (spec_.op == Collective::broadcast && rank_ != spec_.root) return;  // receivers: poison
    std::memcpy(recv_.data() + offset * esize, send_.data(), send_.size());
  }

  const void* output() const {
    // An out-of-place broadcast's root keeps its data in the send buffer.
    if (spec_.op == Collective::broadcast && !spec_.in_place && rank_ == spec_.root)
      return send_.data();
    return recv_.data();
  }

  void run_once() {
    void* in = spec_.in_place ? MPI_IN_PLACE : static_cast<void*>(send_.data());
    void* out = recv_.data();
    const int in_count = static_cast<int>(shape_.in_count),
              out_count = static_cast<int>(shape_.out_count);
    switch (spec_.op) {
      case Collective::all_reduce:
        return mpi_check(MPI_Allreduce(in, out, in_count, type_, op_, group_), "MPI_Allreduce");
      case Collective::all_gather:
        return mpi_check(MPI_Allgather(in, in_count, type_, out, in_count, type_, group_),
                         "MPI_Allgather");
      case Collective::reduce_scatter:
        // MPI_Reduce_scatter with equal counts: OpenMPI 4.1's tuned _block variant reduces the
        // whole buffer on one rank first (not bandwidth-optimal), its general one does not.
        return mpi_check(MPI_Reduce_scatter(in, out, counts_.data(), type_, op_, group_),
                         "MPI_Reduce_scatter");
      case Collective::broadcast: {
        void* buf = spec_.in_place || rank_ != spec_.root ? out : send_.data();
        return mpi_check(MPI_Bcast(buf, in_count, type_, spec_.root, group_), "MPI_Bcast");
      }
      case Collective::reduce: {
        // In place, the root reduces into its buffer; the others send theirs.
        void* send = spec_.in_place ? (rank_ == spec_.root ? MPI_IN_PLACE : out) : send_.data();
        return mpi_check(MPI_Reduce(send, out, in_count, type_, op_, spec_.root, group_),
                         "MPI_Reduce");
      }
      case Collective::all_to_all: {
        const int share = in_count / size_;
        return mpi_check(MPI_Alltoall(send_.data(), share, type_, out, share, type_, group_),
                         "MPI_Alltoall");
      }
      case Collective::send_recv:
        return mpi_check(
            MPI_Sendrecv(send_.data(), in_count, type_, (rank_ + 1) % size_, 0, out, out_count,
                         type_, (rank_ + size_ - 1) % size_, 0, group_, MPI_STATUS_IGNORE),
            "MPI_Sendrecv");
    }
  }

  MpiProcesses& procs_;
  MPI_Comm group_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  Spec spec_;
  reference::CollectiveShape shape_;
  std::vector<std::byte> send_, recv_;
  std::vector<int> counts_;  // reduce_scatter: out_count for every rank
  MPI_Datatype type_ = MPI_FLOAT;
  MPI_Op op_ = MPI_SUM;
  bool own_op_ = false;
};

}  // namespace

std::unique_ptr<Transport> make_mpi_transport(Processes& processes) {
  auto* mpi = dynamic_cast<MpiProcesses*>(&processes);
  if (!mpi) throw std::runtime_error("the MPI transport needs MPI's processes (--transport mpi)");
  return std::make_unique<MpiTransport>(*mpi);
}

}  // namespace bb::collectives
