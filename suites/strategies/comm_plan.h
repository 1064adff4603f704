// What the strategies' engines decide without a process or a device, kept apart so that it can be
// tested here (tests/strategies_comm_test.cpp): where each peer's share of an all-to-all lies in
// its packed buffer, which NCCL communicator a point-to-point message travels on, which GPU a
// process drives, and where on the GPU a step's buffer lives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bb::strategies {

// An all-to-all's shares in a packed buffer: counts[r] elements for rank r, from offsets[r]
// (rank order, no gaps), and the whole buffer's elements. Throws std::invalid_argument when the
// counts are not one per rank or one is negative.
struct PackedShares {
  std::vector<std::size_t> offsets, counts;
  std::size_t total = 0;
};
PackedShares pack_shares(const std::vector<int>& counts, int ranks);

// NCCL has no tags: sends and receives between two ranks match in the order they are posted on a
// communicator, and an operation on a communicator's stream starts only after the previous one
// ended. With one communicator a stage that sends forward and then receives a gradient from the
// same neighbour would wait behind its own send, which waits for the neighbour's receive: 1F1B
// deadlocks (MPI's non-blocking send does not). So each message travels on the communicator of
// its direction: `up` from a lower rank to a higher one (activations), `down` the other way
// (gradients, and the last stage to the first). Both ends compute the same answer.
enum class Direction { up, down };
Direction direction(int from, int to);

// The GPU a process drives, one process per GPU: its node-local rank (the first of
// OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, SLURM_LOCALID that is set, as `local_rank`, else
// -1) modulo the GPUs it sees, else its world rank modulo them. Throws std::invalid_argument when
// more processes share the node than it has GPUs (NCCL refuses two ranks on one GPU).
int gpu_for_process(int local_rank, int world_rank, int processes_on_node, int gpus);

// The steps hand the engine their own (host) buffers; the NCCL engine moves device buffers of the
// same sizes instead, carved from one region reserved before the first step (no allocation while
// a NCCL operation is in flight: cudaMalloc may wait for the device, and with it for a peer). A
// host range maps into the region through the first mapped range that contains it; otherwise it
// gets a new range of its own. Live host buffers never overlap, so neither do their device
// ranges; their contents are never copied (the steps' data is not read back, and a copy would
// time the host link, not the step).
class DeviceMirror {
 public:
  explicit DeviceMirror(std::size_t region_bytes) : region_bytes_(region_bytes) {}
  // The byte offset in the region of `bytes` bytes at host address `host`. Throws
  // std::runtime_error when the region is spent.
  std::size_t offset(std::uintptr_t host, std::size_t bytes);
  std::size_t used_bytes() const { return used_; }
  std::size_t ranges() const { return ranges_.size(); }

 private:
  struct Range {
    std::uintptr_t host;
    std::size_t bytes, at;
  };
  std::size_t region_bytes_, used_ = 0;
  std::vector<Range> ranges_;  // newest last; looked up newest first
};

}  // namespace bb::strategies
