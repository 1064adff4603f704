#include "kernels/nccl_steps.h"

#include <stdexcept>

#include "base/cuda_check.h"

namespace bb::kernels {

void NcclSteps::init(int ranks, int rank, int device, const ncclUniqueId& up,
                     const ncclUniqueId& down, double region_share) {
  destroy();
  ranks_ = ranks, device_ = device;
  check_cuda(cudaSetDevice(device), "cudaSetDevice");
  std::size_t free_bytes = 0, total_bytes = 0;
  check_cuda(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  const auto region_bytes =
      static_cast<std::size_t>(static_cast<double>(free_bytes) * region_share) / 256 * 256;
  if (region_bytes == 0) throw std::runtime_error("NcclSteps: no free memory on the GPU");
  // The buffers first: no cudaMalloc once NCCL operations may be in flight.
  check_cuda(cudaMalloc(reinterpret_cast<void**>(&region_), region_bytes), "cudaMalloc (steps)");
  region_bytes_ = region_bytes;
  // Poison: a buffer that a step reads before anything arrived holds NaN, not zeros.
  check_cuda(cudaMemset(region_, 0xff, region_bytes), "cudaMemset (steps)");
  for (Channel* c : {&up_, &down_})
    check_cuda(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking), "cudaStreamCreate");
  api_.check(api_.CommInitRank(&up_.comm, ranks, up, rank), "ncclCommInitRank (up)");
  api_.check(api_.CommInitRank(&down_.comm, ranks, down, rank), "ncclCommInitRank (down)");
}

void NcclSteps::destroy() {
  if (!region_ && !up_.stream && !down_.stream) return;
  cudaSetDevice(device_);
  for (Channel* c : {&up_, &down_}) {
    if (c->comm) api_.CommDestroy(c->comm);
    if (c->stream) cudaStreamDestroy(c->stream);
    *c = Channel{};
  }
  if (region_) cudaFree(region_);
  region_ = nullptr;
  region_bytes_ = 0;
}

void NcclSteps::send(const float* data, std::size_t count, int peer, bool up) {
  const Channel& c = up ? up_ : down_;
  check_cuda(cudaSetDevice(device_), "cudaSetDevice");
  api_.check(api_.Send(data, count, ncclFloat32, peer, c.comm, c.stream), "ncclSend");
}

void NcclSteps::receive(float* data, std::size_t count, int peer, bool up) {
  const Channel& c = up ? up_ : down_;
  check_cuda(cudaSetDevice(device_), "cudaSetDevice");
  api_.check(api_.Recv(data, count, ncclFloat32, peer, c.comm, c.stream), "ncclRecv");
  check_cuda(cudaStreamSynchronize(c.stream), "cudaStreamSynchronize (ncclRecv)");
}

void NcclSteps::complete_sends() {
  check_cuda(cudaSetDevice(device_), "cudaSetDevice");
  check_cuda(cudaStreamSynchronize(up_.stream), "cudaStreamSynchronize (sends up)");
  check_cuda(cudaStreamSynchronize(down_.stream), "cudaStreamSynchronize (sends down)");
}

void NcclSteps::all_reduce_sum(float* data, std::size_t count) {
  check_cuda(cudaSetDevice(device_), "cudaSetDevice");
  api_.check(api_.AllReduce(data, data, count, ncclFloat32, ncclSum, up_.comm, up_.stream),
             "ncclAllReduce");
  check_cuda(cudaStreamSynchronize(up_.stream), "cudaStreamSynchronize (ncclAllReduce)");
}

void NcclSteps::start_all_reduce_sum(float* data, std::size_t count) {
  check_cuda(cudaSetDevice(device_), "cudaSetDevice");
  api_.check(api_.AllReduce(data, data, count, ncclFloat32, ncclSum, up_.comm, up_.stream),
             "ncclAllReduce (started)");
}

void NcclSteps::complete_all_reduces() {
  check_cuda(cudaSetDevice(device_), "cudaSetDevice");
  check_cuda(cudaStreamSynchronize(up_.stream), "cudaStreamSynchronize (started all-reduces)");
}

void NcclSteps::all_to_all(const float* send, const std::vector<std::size_t>& send_offsets,
                           const std::vector<std::size_t>& send_counts, float* recv,
                           const std::vector<std::size_t>& recv_offsets,
                           const std::vector<std::size_t>& recv_counts) {
  const auto peers = static_cast<std::size_t>(ranks_);
  if (send_offsets.size() != peers || send_counts.size() != peers || recv_offsets.size() != peers ||
      recv_counts.size() != peers)
    throw std::invalid_argument("NcclSteps::all_to_all: one share per rank");
  check_cuda(cudaSetDevice(device_), "cudaSetDevice");
  api_.check(api_.GroupStart(), "ncclGroupStart");
  for (std::size_t r = 0; r < peers; ++r) {
    const int peer = static_cast<int>(r);
    if (send_counts[r] > 0)
      api_.check(api_.Send(send + send_offsets[r], send_counts[r], ncclFloat32, peer, up_.comm,
                           up_.stream),
                 "ncclSend (all-to-all)");
    if (recv_counts[r] > 0)
      api_.check(api_.Recv(recv + recv_offsets[r], recv_counts[r], ncclFloat32, peer, up_.comm,
                           up_.stream),
                 "ncclRecv (all-to-all)");
  }
  api_.check(api_.GroupEnd(), "ncclGroupEnd");
  check_cuda(cudaStreamSynchronize(up_.stream), "cudaStreamSynchronize (all-to-all)");
}

}  // namespace bb::kernels
