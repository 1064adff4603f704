// NCCL's collectives between GPUs: one process driving every local GPU (ncclCommInitAll), or one
// process per GPU under an MPI launcher, the NCCL unique id broadcast over MPI. Times are CUDA
// event times on every rank's stream, reduced over the ranks. NCCL is loaded at run time
// (nccl_api.h).
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "harness/cuda_check.h"
#include "kernels/nccl_api.h"
#ifdef BOUNDBENCH_WITH_MPI
#include "suites/collectives/mpi_processes.h"
#endif

namespace bb::collectives {
namespace {

using reference::DType;
using reference::RedOp;
using theory::Collective;

ncclDataType_t nccl_type(DType t) {
  switch (t) {
    case DType::fp32: return ncclFloat32;
    case DType::bf16: return ncclBfloat16;
    case DType::fp16: return ncclFloat16;
    case DType::int32: return ncclInt32;
  }
  return ncclFloat32;
}

ncclRedOp_t nccl_op(RedOp o) {
  return o == RedOp::sum ? ncclSum : o == RedOp::max ? ncclMax : ncclMin;
}

// One NCCL rank driven by this process.
struct LocalRank {
  int rank = 0, device = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  char* send = nullptr;
  char* recv = nullptr;
};

class NcclTransport final : public Transport {
 public:
  NcclTransport(Processes& p, int device_count) : procs_(p), devices_(device_count) {
#ifdef BOUNDBENCH_WITH_MPI
    mpi_ = p.size() > 1 ? dynamic_cast<MpiProcesses*>(&p) : nullptr;
#endif
    if (p.size() > 1 && !multi_process())
      throw std::runtime_error("NCCL across processes needs MPI to share its unique id");
  }
  ~NcclTransport() override { end_group(); }

  std::string name() const override { return "nccl"; }
  int world_ranks() const override { return multi_process() ? procs_.size() : devices_; }
  std::string description() const override {
    int v = 0;
    api_.check(api_.GetVersion(&v), "ncclGetVersion");
    return "NCCL " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
           std::to_string(v % 100) + "; " +
           (multi_process() ? std::to_string(procs_.size()) + " processes, one GPU each"
                            : "1 process, " + std::to_string(devices_) + " GPU(s)");
  }

  bool begin_group(int ranks) override {
    end_group();
    size_ = ranks;
    if (!multi_process()) {
      if (ranks > devices_) throw std::runtime_error("more NCCL ranks than GPUs");
      std::vector<int> devs(static_cast<std::size_t>(ranks));
      std::vector<ncclComm_t> comms(devs.size());
      for (int d = 0; d < ranks; ++d) devs[static_cast<std::size_t>(d)] = d;
      api_.check(api_.CommInitAll(comms.data(), ranks, devs.data()), "ncclCommInitAll");
      for (int d = 0; d < ranks; ++d) add_rank(d, d, comms[static_cast<std::size_t>(d)]);
      return true;
    }
#ifdef BOUNDBENCH_WITH_MPI
    group_ = mpi_->split_first(ranks);
    if (group_ == MPI_COMM_NULL) return false;
    int rank = 0;
    mpi_check(MPI_Comm_rank(group_, &rank), "MPI_Comm_rank");
    ncclUniqueId id{};
    if (rank == 0) api_.check(api_.GetUniqueId(&id), "ncclGetUniqueId");
    mpi_check(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, group_), "MPI_Bcast");
    const int device = local_device();
    check_cuda(cudaSetDevice(device), "cudaSetDevice");
    ncclComm_t comm = nullptr;
    api_.check(api_.CommInitRank(&comm, ranks, id, rank), "ncclCommInitRank");
    add_rank(rank, device, comm);
#endif
    return true;
  }

  void end_group() override {
    release();
    for (auto& r : ranks_) {
      cudaSetDevice(r.device);
      if (r.comm) api_.CommDestroy(r.comm);
      if (r.start) cudaEventDestroy(r.start);
      if (r.stop) cudaEventDestroy(r.stop);
      if (r.stream) cudaStreamDestroy(r.stream);
    }
    ranks_.clear();
#ifdef BOUNDBENCH_WITH_MPI
    if (group_ != MPI_COMM_NULL) MPI_Comm_free(&group_);
#endif
  }

  std::string unsupported(const Spec& s) const override {
    if (s.in_place && !has_in_place(s.op))
      return "NCCL has no in-place " + std::string(theory::collective_name(s.op));
    return "";
  }

  void prepare(const Spec& s, const reference::CollectiveShape& shape) override {
    release();
    spec_ = s, shape_ = shape;
    const std::size_t esize = reference::dtype_bytes(s.dtype);
    in_bytes_ = shape.in_count * esize;
    out_bytes_ = std::max(shape.in_count, shape.out_count) * esize;
    for (auto& r : ranks_) {
      check_cuda(cudaSetDevice(r.device), "cudaSetDevice");
      check_cuda(cudaMalloc(&r.send, std::max<std::size_t>(in_bytes_, 1)), "cudaMalloc");
      check_cuda(cudaMalloc(&r.recv, std::max<std::size_t>(out_bytes_, 1)), "cudaMalloc");
    }
  }

  std::uint64_t run_and_verify() override {
    const std::size_t esize = reference::dtype_bytes(spec_.dtype);
    const int amplitude = reference::pattern_amplitude(spec_.dtype, size_);
    std::vector<char> input(in_bytes_), output(out_bytes_);
    for (auto& r : ranks_) {
      reference::fill_input(spec_.dtype, r.rank, amplitude, input.data(), shape_.in_count);
      reference::poison_output(spec_.dtype, output.data(), out_bytes_ / esize);
      if (spec_.in_place && (spec_.op != Collective::broadcast || r.rank == spec_.root)) {
        const std::size_t at = spec_.op == Collective::all_gather ? r.rank * in_bytes_ : 0;
        std::memcpy(output.data() + at, input.data(), in_bytes_);
      }
      check_cuda(cudaSetDevice(r.device), "cudaSetDevice");
      check_cuda(cudaMemcpy(r.send, input.data(), in_bytes_, cudaMemcpyHostToDevice), "cudaMemcpy");
      check_cuda(cudaMemcpy(r.recv, output.data(), out_bytes_, cudaMemcpyHostToDevice),
                 "cudaMemcpy");
    }
    run_once();
    unsigned long long wrong = 0;
    for (auto& r : ranks_) {
      check_cuda(cudaSetDevice(r.device), "cudaSetDevice");
      check_cuda(cudaStreamSynchronize(r.stream), "cudaStreamSynchronize");
      check_cuda(cudaMemcpy(output.data(), r.recv, out_bytes_, cudaMemcpyDeviceToHost),
                 "cudaMemcpy");
      // NCCL's in-place reduce_scatter leaves rank r's part at offset r·count.
      const std::size_t at = spec_.in_place && spec_.op == Collective::reduce_scatter
                                 ? r.rank * shape_.out_count * esize
                                 : 0;
      wrong += reference::count_wrong(spec_.op, spec_.redop, spec_.dtype, r.rank, size_, spec_.root,
                                      shape_, output.data() + at);
    }
    return static_cast<std::uint64_t>(sum_over_processes(static_cast<double>(wrong)));
  }

  double sample_s(int iterations, TimeReduction reduction) override {
    barrier();
    for (auto& r : ranks_) {
      check_cuda(cudaSetDevice(r.device), "cudaSetDevice");
      check_cuda(cudaEventRecord(r.start, r.stream), "cudaEventRecord");
    }
    for (int i = 0; i < iterations; ++i) run_once();
    double worst = 0, total = 0;
    for (auto& r : ranks_) {
      check_cuda(cudaSetDevice(r.device), "cudaSetDevice");
      check_cuda(cudaEventRecord(r.stop, r.stream), "cudaEventRecord");
      check_cuda(cudaEventSynchronize(r.stop), "cudaEventSynchronize");
      float ms = 0;
      check_cuda(cudaEventElapsedTime(&ms, r.start, r.stop), "cudaEventElapsedTime");
      const double t = ms * 1e-3 / iterations;
      worst = std::max(worst, t), total += t;
    }
    if (reduction == TimeReduction::max) return max_over_processes(worst);
    return sum_over_processes(total) / size_;
  }

  void release() override {
    for (auto& r : ranks_) {
      cudaSetDevice(r.device);
      if (r.send) cudaFree(r.send);
      if (r.recv) cudaFree(r.recv);
      r.send = r.recv = nullptr;
    }
  }

  [[noreturn]] void abort(const std::string& message, int exit_code) override {
    // One process's comms only (ncclCommAbort may wait for peers in other processes, which the
    // launcher ends anyway when this one exits).
    if (!multi_process())
      for (auto& r : ranks_)
        if (r.comm) api_.CommAbort(r.comm);
    procs_.abort(message, exit_code);
    std::_Exit(exit_code);  // not reached: Processes::abort does not return
  }

 private:
  bool multi_process() const {
#ifdef BOUNDBENCH_WITH_MPI
    return mpi_ != nullptr;
#else
    return false;
#endif
  }

  // The node-local rank picks the GPU (launchers export it); else the world rank.
  int local_device() const {
    int local = procs_.rank();
    for (const char* v : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"})
      if (const char* s = std::getenv(v)) local = std::atoi(s);
    return local % devices_;
  }

  void add_rank(int rank, int device, ncclComm_t comm) {
    LocalRank r;
    r.rank = rank, r.device = device, r.comm = comm;
    check_cuda(cudaSetDevice(device), "cudaSetDevice");
    check_cuda(cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking), "cudaStreamCreate");
    check_cuda(cudaEventCreate(&r.start), "cudaEventCreate");
    check_cuda(cudaEventCreate(&r.stop), "cudaEventCreate");
    ranks_.push_back(r);
  }

  void run_once() {
    const auto type = nccl_type(spec_.dtype);
    const auto op = nccl_op(spec_.redop);
    const std::size_t esize = reference::dtype_bytes(spec_.dtype);
    const std::size_t count = shape_.in_count, out_count = shape_.out_count;
    api_.check(api_.GroupStart(), "ncclGroupStart");
    for (auto& r : ranks_) {
      char* in = spec_.in_place ? r.recv : r.send;
      const auto c = r.comm;
      const auto s = r.stream;
      switch (spec_.op) {
        case Collective::all_reduce:
          api_.check(api_.AllReduce(in, r.recv, count, type, op, c, s), "ncclAllReduce");
          break;
        case Collective::all_gather:
          if (spec_.in_place) in = r.recv + r.rank * count * esize;
          api_.check(api_.AllGather(in, r.recv, count, type, c, s), "ncclAllGather");
          break;
        case Collective::reduce_scatter: {
          char* out = spec_.in_place ? r.recv + r.rank * out_count * esize : r.recv;
          api_.check(api_.ReduceScatter(in, out, out_count, type, op, c, s), "ncclReduceScatter");
          break;
        }
        case Collective::broadcast:
          api_.check(api_.Broadcast(in, r.recv, count, type, spec_.root, c, s), "ncclBroadcast");
          break;
        case Collective::reduce:
          api_.check(api_.Reduce(in, r.recv, count, type, op, spec_.root, c, s), "ncclReduce");
          break;
        case Collective::all_to_all: {
          const std::size_t share = count / static_cast<std::size_t>(size_);
          for (int peer = 0; peer < size_; ++peer) {
            const std::size_t at = static_cast<std::size_t>(peer) * share * esize;
            api_.check(api_.Send(r.send + at, share, type, peer, c, s), "ncclSend");
            api_.check(api_.Recv(r.recv + at, share, type, peer, c, s), "ncclRecv");
          }
          break;
        }
        case Collective::send_recv:
          api_.check(api_.Send(r.send, count, type, (r.rank + 1) % size_, c, s), "ncclSend");
          api_.check(api_.Recv(r.recv, count, type, (r.rank + size_ - 1) % size_, c, s),
                     "ncclRecv");
          break;
      }
    }
    api_.check(api_.GroupEnd(), "ncclGroupEnd");
  }

  void barrier() {
#ifdef BOUNDBENCH_WITH_MPI
    if (multi_process()) mpi_check(MPI_Barrier(group_), "MPI_Barrier");
#endif
  }
  double reduce_over_processes(double v, [[maybe_unused]] bool max) {
#ifdef BOUNDBENCH_WITH_MPI
    if (multi_process()) {
      double r = 0;
      mpi_check(MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, max ? MPI_MAX : MPI_SUM, group_),
                "MPI_Allreduce");
      return r;
    }
#endif
    return v;
  }
  double max_over_processes(double v) { return reduce_over_processes(v, true); }
  double sum_over_processes(double v) { return reduce_over_processes(v, false); }

  kernels::NcclApi api_;
  Processes& procs_;
#ifdef BOUNDBENCH_WITH_MPI
  MpiProcesses* mpi_ = nullptr;
  MPI_Comm group_ = MPI_COMM_NULL;
#endif
  int devices_ = 0, size_ = 1;
  std::vector<LocalRank> ranks_;
  Spec spec_;
  reference::CollectiveShape shape_;
  std::size_t in_bytes_ = 0, out_bytes_ = 0;
};

}  // namespace

std::unique_ptr<Transport> make_nccl_transport(Processes& processes, int device_count) {
  if (device_count < 1) throw std::runtime_error("NCCL needs a usable GPU");
  return std::make_unique<NcclTransport>(processes, device_count);
}

}  // namespace bb::collectives
