// NCCL's collectives between GPUs: the NCCL ranks this process drives (every local GPU through
// ncclCommInitAll, or its one GPU of a communicator spanning processes through ncclCommInitRank),
// their streams, events and device buffers, and one call (kernels/collectives.h) on all of them,
// verified against the reference (reference/collectives.h) and timed with CUDA events on each
// rank's stream. NCCL is loaded at run time (kernels/nccl_api.h).
// Built only with CUDA and NCCL.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kernels/collectives.h"
#include "kernels/nccl_api.h"

namespace bb::kernels {

class NcclCollectives {
 public:
  NcclCollectives() = default;       // loads libnccl.so.2; throws std::runtime_error without it
  ~NcclCollectives() { destroy(); }  // not copyable, as NcclApi is not

  std::string library_version() const { return api_.version_text(); }  // "NCCL 2.21.5"

  // Ranks 0 … ranks−1 of a new communicator on GPUs 0 … ranks−1, all driven by this process.
  void init_all(int ranks);
  // A new communicator's id, made by its rank 0 and shared with the other processes.
  ncclUniqueId unique_id() const { return api_.unique_id(); }
  // This process's one rank of a communicator of `ranks` ranks spanning processes.
  void init_rank(int ranks, int rank, int device, const ncclUniqueId& id);
  // Frees the buffers, then destroys the communicators, events and streams.
  void destroy();
  // Not collective: ncclCommAbort on this process's communicators.
  void abort_all();

  // Writes one rank's host buffers before a verified call: its input (in_count elements) and its
  // output (max(in_count, out_count) elements).
  using Fill = std::function<void(int rank, void* input, void* output)>;
  // Device buffers for `spec` on every local rank, of the sizes above (the buffers of the previous
  // call are freed first), written by `fill` on the host and copied to the rank's GPU; then the
  // call once, and the wrong elements (reference::count_wrong) of every local rank's output.
  std::uint64_t prepare_and_verify(const CollectiveSpec& spec,
                                   const reference::CollectiveShape& shape, const Fill& fill);
  // The call on every local rank, as one NCCL group.
  void run();
  // Seconds per call on each local rank (CUDA events around `iterations` back-to-back calls).
  std::vector<double> seconds_per_call(int iterations);

 private:
  struct LocalRank {
    int rank = 0, device = 0;
    ncclComm_t comm = nullptr;
    cudaStream_t stream = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr;
    char* send = nullptr;
    char* recv = nullptr;
  };
  void add_rank(int rank, int device, ncclComm_t comm);
  void free_buffers();

  NcclApi api_;
  std::vector<LocalRank> ranks_;
  int size_ = 1;  // ranks of the communicator, over every process
  CollectiveSpec spec_;
  reference::CollectiveShape shape_;
  std::size_t in_bytes_ = 0, out_bytes_ = 0;
};

}  // namespace bb::kernels
