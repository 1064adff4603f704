// NCCL for training steps (suites/strategies): this process's one GPU as one rank of two
// communicators spanning the processes, `up` and `down` (which a message takes:
// suites/strategies/comm_plan.h), each with its own stream, and the calls a step makes on device
// buffers: a point-to-point send (enqueued, not waited for) and receive (waited for), a sum
// all-reduce of fp32 and an all-to-all of packed shares (grouped sends and receives, as NCCL's
// documentation writes an all-to-all). Every NCCL and CUDA status is checked (std::runtime_error).
// NCCL is loaded at run time (kernels/nccl_api.h). Built only with CUDA and NCCL.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>
#include <string>
#include <vector>

#include "kernels/nccl_api.h"

namespace bb::kernels {

class NcclSteps {
 public:
  NcclSteps() = default;       // loads libnccl.so.2; throws std::runtime_error without it
  ~NcclSteps() { destroy(); }  // not copyable, as NcclApi is not

  std::string library_version() const { return api_.version_text(); }  // "NCCL 2.27.3"
  // A new communicator's id, made by its rank 0 and shared with the other processes.
  ncclUniqueId unique_id() const { return api_.unique_id(); }
  // Joins both communicators (collective over the processes) on `device`, with `region_share` of
  // the device's free memory reserved (and poisoned) for the steps' buffers first.
  void init(int ranks, int rank, int device, const ncclUniqueId& up, const ncclUniqueId& down,
            double region_share);

  float* region() const { return region_; }
  std::size_t region_bytes() const { return region_bytes_; }

  // Enqueues `count` floats to `peer` on the stream of `up` or `down`; returns without waiting.
  void send(const float* data, std::size_t count, int peer, bool up);
  // Enqueues the receive on the same communicator's stream and waits for that stream.
  void receive(float* data, std::size_t count, int peer, bool up);
  // Waits for both streams (every send posted so far has been received).
  void complete_sends();
  // On `up`'s stream, waited for: the sum over the ranks of `count` floats, in place.
  void all_reduce_sum(float* data, std::size_t count);
  // The same, started on `up`'s stream and not waited for (it runs while the caller computes on
  // another stream); complete_all_reduces() waits for every one started.
  void start_all_reduce_sum(float* data, std::size_t count);
  void complete_all_reduces();
  // On `up`'s stream, waited for: send_counts[r] floats from send + send_offsets[r] to rank r and
  // recv_counts[r] floats from rank r to recv + recv_offsets[r], in one group (a zero count is
  // left out on both sides alike).
  void all_to_all(const float* send, const std::vector<std::size_t>& send_offsets,
                  const std::vector<std::size_t>& send_counts, float* recv,
                  const std::vector<std::size_t>& recv_offsets,
                  const std::vector<std::size_t>& recv_counts);

 private:
  struct Channel {
    ncclComm_t comm = nullptr;
    cudaStream_t stream = nullptr;
  };
  void destroy();

  NcclApi api_;
  Channel up_, down_;
  int device_ = 0, ranks_ = 1;
  float* region_ = nullptr;
  std::size_t region_bytes_ = 0;
};

}  // namespace bb::kernels
