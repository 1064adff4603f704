#include "suites/strategies/comm_plan.h"

#include <stdexcept>

namespace bb::strategies {

PackedShares pack_shares(const std::vector<int>& counts, int ranks) {
  if (ranks < 1 || counts.size() != static_cast<std::size_t>(ranks))
    throw std::invalid_argument("all-to-all: " + std::to_string(counts.size()) + " counts for " +
                                std::to_string(ranks) + " ranks");
  PackedShares s;
  for (int c : counts) {
    if (c < 0) throw std::invalid_argument("all-to-all: a negative count");
    s.offsets.push_back(s.total);
    s.counts.push_back(static_cast<std::size_t>(c));
    s.total += static_cast<std::size_t>(c);
  }
  return s;
}

Direction direction(int from, int to) { return from < to ? Direction::up : Direction::down; }

int gpu_for_process(int local_rank, int world_rank, int processes_on_node, int gpus) {
  if (gpus < 1) throw std::invalid_argument("no GPU to drive");
  if (processes_on_node > gpus)
    throw std::invalid_argument(std::to_string(processes_on_node) + " processes on this node but " +
                                std::to_string(gpus) + " GPU(s): start one process per GPU");
  return (local_rank >= 0 ? local_rank : world_rank) % gpus;
}

std::size_t DeviceMirror::offset(std::uintptr_t host, std::size_t bytes) {
  for (auto r = ranges_.rbegin(); r != ranges_.rend(); ++r)
    if (host >= r->host && host - r->host <= r->bytes && bytes <= r->bytes - (host - r->host))
      return r->at + (host - r->host);
  // 256-byte aligned, as cudaMalloc's own allocations are.
  const std::size_t at = (used_ + 255) / 256 * 256;
  if (at > region_bytes_ || bytes > region_bytes_ - at)
    throw std::runtime_error(
        "the NCCL engine's device buffers are spent: the steps need more than " +
        std::to_string(region_bytes_ >> 20) +
        " MiB (reserved on the GPU); ask for fewer --parameters or "
        "micro-batches");
  ranges_.push_back({host, bytes, at});
  used_ = at + bytes;
  return at;
}

}  // namespace bb::strategies
