// NCCL's collectives between GPUs: the NCCL ranks this process drives (every local GPU through
// ncclCommInitAll, or its one GPU of a communicator spanning processes through ncclCommInitRank),
// their streams, events and device buffers, and one call (kernels/collectives.h) on all of them,
// timed with CUDA events on each rank's stream. NCCL is loaded at run time (kernels/nccl_api.h).
// Built only with CUDA and NCCL.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>
#include <string>
#include <vector>

#include "kernels/collectives.h"
#include "kernels/nccl_api.h"

namespace bb::kernels {

class NcclCollectives {
 public:
  NcclCollectives() = default;  // loads libnccl.so.2; throws std::runtime_error without it
  ~NcclCollectives() { destroy(); }
  NcclCollectives(const NcclCollectives&) = delete;
  NcclCollectives& operator=(const NcclCollectives&) = delete;

  std::string library_version() const;  // "NCCL 2.21.5"

  // Ranks 0 … ranks−1 of a new communicator on GPUs 0 … ranks−1, all driven by this process.
  void init_all(int ranks);
  // A new communicator's id, made by its rank 0 and shared with the other processes.
  ncclUniqueId unique_id() const;
  // This process's one rank of a communicator of `ranks` ranks spanning processes.
  void init_rank(int ranks, int rank, int device, const ncclUniqueId& id);
  // Frees the buffers, then destroys the communicators, events and streams.
  void destroy();
  // Not collective: ncclCommAbort on this process's communicators.
  void abort_all();

  std::size_t local_ranks() const { return ranks_.size(); }
  int rank(std::size_t local) const { return ranks_[local].rank; }

  // Device buffers for `spec` on every local rank: an input of in_count elements and an output of
  // max(in_count, out_count) (the buffers of the previous call are freed first).
  void allocate(const CollectiveSpec& spec, const reference::CollectiveShape& shape);
  // Copies host input and output buffers (of the sizes above) to local rank `local`'s GPU.
  void upload(std::size_t local, const void* input, const void* output);
  // Waits for local rank `local`'s stream and copies its output buffer to `output`.
  void download(std::size_t local, void* output);
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
