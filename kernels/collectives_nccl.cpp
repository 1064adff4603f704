#include "kernels/collectives_nccl.h"

#include <algorithm>
#include <numeric>

#include "base/cuda_check.h"

namespace bb::kernels {
namespace {

using reference::DType;
using reference::RedOp;
using theory::Collective;

ncclDataType_t nccl_type(DType t) {
  return t == DType::fp32   ? ncclFloat32
         : t == DType::bf16 ? ncclBfloat16
         : t == DType::fp16 ? ncclFloat16
                            : ncclInt32;
}

ncclRedOp_t nccl_op(RedOp o) {
  return o == RedOp::sum ? ncclSum : o == RedOp::max ? ncclMax : ncclMin;
}

}  // namespace

void NcclCollectives::init_all(int ranks) {
  size_ = ranks;
  std::vector<int> devs(static_cast<std::size_t>(ranks));
  std::vector<ncclComm_t> comms(devs.size());
  std::iota(devs.begin(), devs.end(), 0);
  api_.check(api_.CommInitAll(comms.data(), ranks, devs.data()), "ncclCommInitAll");
  for (int d = 0; d < ranks; ++d) add_rank(d, d, comms[static_cast<std::size_t>(d)]);
}

void NcclCollectives::init_rank(int ranks, int rank, int device, const ncclUniqueId& id) {
  size_ = ranks;
  check_cuda(cudaSetDevice(device), "cudaSetDevice");
  ncclComm_t comm = nullptr;
  api_.check(api_.CommInitRank(&comm, ranks, id, rank), "ncclCommInitRank");
  add_rank(rank, device, comm);
}

void NcclCollectives::add_rank(int rank, int device, ncclComm_t comm) {
  LocalRank r{.rank = rank, .device = device, .comm = comm};
  check_cuda(cudaSetDevice(device), "cudaSetDevice");
  check_cuda(cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking), "cudaStreamCreate");
  check_cuda(cudaEventCreate(&r.start), "cudaEventCreate");
  check_cuda(cudaEventCreate(&r.stop), "cudaEventCreate");
  ranks_.push_back(r);
}

void NcclCollectives::destroy() {
  free_buffers();
  for (auto& r : ranks_) {
    cudaSetDevice(r.device);
    if (r.comm) api_.CommDestroy(r.comm);
    if (r.start) cudaEventDestroy(r.start);
    if (r.stop) cudaEventDestroy(r.stop);
    if (r.stream) cudaStreamDestroy(r.stream);
  }
  ranks_.clear();
}

void NcclCollectives::abort_all() {
  for (auto& r : ranks_)
    if (r.comm) api_.CommAbort(r.comm);
}

std::uint64_t NcclCollectives::prepare_and_verify(const CollectiveSpec& s,
                                                  const reference::CollectiveShape& shape,
                                                  const Fill& fill) {
  free_buffers();
  spec_ = s, shape_ = shape;
  const std::size_t esize = reference::dtype_bytes(s.dtype);
  in_bytes_ = shape.in_count * esize;
  out_bytes_ = std::max(shape.in_count, shape.out_count) * esize;
  std::vector<char> input(in_bytes_), output(out_bytes_);
  for (auto& r : ranks_) {
    check_cuda(cudaSetDevice(r.device), "cudaSetDevice");
    check_cuda(cudaMalloc(&r.send, std::max<std::size_t>(in_bytes_, 1)), "cudaMalloc");
    check_cuda(cudaMalloc(&r.recv, std::max<std::size_t>(out_bytes_, 1)), "cudaMalloc");
    fill(r.rank, input.data(), output.data());
    // On the rank's own stream, then waited for: the collectives run on that non-blocking stream,
    // which a cudaMemcpy on the legacy stream does not order against.
    check_cuda(cudaMemcpyAsync(r.send, input.data(), in_bytes_, cudaMemcpyHostToDevice, r.stream),
               "cudaMemcpyAsync (send buffer)");
    check_cuda(cudaMemcpyAsync(r.recv, output.data(), out_bytes_, cudaMemcpyHostToDevice, r.stream),
               "cudaMemcpyAsync (receive buffer)");
    check_cuda(cudaStreamSynchronize(r.stream), "cudaStreamSynchronize (upload)");
  }
  run();
  std::uint64_t wrong = 0;
  for (const auto& r : ranks_) {
    check_cuda(cudaSetDevice(r.device), "cudaSetDevice");
    check_cuda(cudaMemcpyAsync(output.data(), r.recv, out_bytes_, cudaMemcpyDeviceToHost, r.stream),
               "cudaMemcpyAsync (receive buffer)");
    check_cuda(cudaStreamSynchronize(r.stream), "cudaStreamSynchronize (download)");
    // NCCL's in-place reduce_scatter leaves rank r's part at offset r·count.
    const std::size_t at =
        s.in_place && s.op == Collective::reduce_scatter ? r.rank * shape.out_count * esize : 0;
    wrong += reference::count_wrong(s.op, s.redop, s.dtype, r.rank, size_, s.root, shape,
                                    output.data() + at);
  }
  return wrong;
}

void NcclCollectives::free_buffers() {
  for (auto& r : ranks_) {
    cudaSetDevice(r.device);
    if (r.send) cudaFree(r.send);
    if (r.recv) cudaFree(r.recv);
    r.send = r.recv = nullptr;
  }
}

std::vector<double> NcclCollectives::seconds_per_call(int iterations) {
  for (auto& r : ranks_) {
    check_cuda(cudaSetDevice(r.device), "cudaSetDevice");
    check_cuda(cudaEventRecord(r.start, r.stream), "cudaEventRecord");
  }
  for (int i = 0; i < iterations; ++i) run();
  std::vector<double> seconds;
  for (auto& r : ranks_) {
    check_cuda(cudaSetDevice(r.device), "cudaSetDevice");
    check_cuda(cudaEventRecord(r.stop, r.stream), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(r.stop), "cudaEventSynchronize");
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, r.start, r.stop), "cudaEventElapsedTime");
    seconds.push_back(ms * 1e-3 / iterations);
  }
  return seconds;
}

void NcclCollectives::run() {
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
        api_.check(api_.Recv(r.recv, count, type, (r.rank + size_ - 1) % size_, c, s), "ncclRecv");
        break;
    }
  }
  api_.check(api_.GroupEnd(), "ncclGroupEnd");
}

}  // namespace bb::kernels
