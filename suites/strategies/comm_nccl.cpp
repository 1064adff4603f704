// The strategies' communication over NCCL: one process per GPU (its launcher's local rank picks
// the GPU: comm_plan.h), both NCCL communicators' unique ids made by rank 0 and broadcast over MPI
// (kernels/collectives_mpi.h), which also carries the harness's reductions, barriers and abort.
// The steps' host buffers stand for device buffers of the same sizes (comm_plan.h's DeviceMirror).
// NCCL matches point-to-point messages in the order they are posted, not by tag: the steps post
// them between two ranks in the same order on both (GPipe, 1F1B), so `tag` is not sent.
// Each call returns as the MPI engine's does (a send once posted, a receive or a collective once
// done on the GPU, waited for with cudaStreamSynchronize): the steps time themselves on the host
// clock around such calls, as they do over MPI.
#include <cstdint>
#include <mutex>
#include <stdexcept>

#include "harness/gpu.h"
#include "kernels/nccl_steps.h"
#include "suites/collectives/transport.h"
#include "suites/strategies/comm_plan.h"
#include "suites/strategies/group_comm.h"

namespace bb::strategies {
namespace {

// The share of the GPU's free memory reserved for the steps' buffers (the rest: NCCL's own
// buffers, cuBLAS and the GEMMs' operands).
constexpr double kRegionShareOfFree = 0.25;

class NcclComm final : public GroupComm {
 public:
  // Collective over the world: the first `ranks` processes (the others are no member and must
  // not use it).
  NcclComm(kernels::MpiWorld& world, int ranks, int gpus)
      : GroupComm(world, ranks), gpus_(gpus), mirror_(0) {
    device_ = gpu_for_process(collectives::launcher_local_rank(), world.rank(),
                              world.on_this_node(), gpus);
    if (!group_.member()) return;
    ncclUniqueId ids[2]{};
    if (group_.rank() == 0) {
      ids[0] = nccl_.unique_id();
      ids[1] = nccl_.unique_id();
    }
    group_.broadcast(ids, static_cast<int>(sizeof ids), 0);
    nccl_.init(group_.size(), group_.rank(), device_, ids[0], ids[1], kRegionShareOfFree);
    mirror_ = DeviceMirror(nccl_.region_bytes());
  }

  std::string description() const override {
    return nccl_.library_version() + "; " + std::to_string(world_.size()) +
           " processes, one GPU each (" + std::to_string(world_.on_this_node()) +
           " on this node; GPU " + std::to_string(device_) + " here)";
  }

  void send(const float* data, std::size_t count, int to, int) override {
    nccl_.send(on_device(data, count), count, to, direction(rank(), to) == Direction::up);
  }
  void receive(float* data, std::size_t count, int from, int) override {
    nccl_.receive(on_device(data, count), count, from, direction(from, rank()) == Direction::up);
  }
  void complete_sends() override { nccl_.complete_sends(); }
  void all_reduce_sum(float* data, std::size_t count) override {
    nccl_.all_reduce_sum(on_device(data, count), count);
  }
  void start_all_reduce_sum(float* data, std::size_t count) override {
    nccl_.start_all_reduce_sum(on_device(data, count), count);
  }
  void complete_all_reduces() override { nccl_.complete_all_reduces(); }
  std::unique_ptr<StepComm> first_ranks(int ranks) override {
    auto group = std::make_unique<NcclComm>(world_, ranks, gpus_);
    return group->member() ? std::move(group) : nullptr;
  }

  void all_to_all(const float* send, const std::vector<int>& send_counts, float* recv,
                  const std::vector<int>& recv_counts) override {
    const PackedShares out = pack_shares(send_counts, group_.size());
    const PackedShares in = pack_shares(recv_counts, group_.size());
    nccl_.all_to_all(on_device(send, out.total), out.offsets, out.counts, on_device(recv, in.total),
                     in.offsets, in.counts);
  }

 private:
  float* on_device(const float* host, std::size_t count) {
    const std::lock_guard<std::mutex> lock(mirror_mutex_);
    const std::size_t at =
        mirror_.offset(reinterpret_cast<std::uintptr_t>(host), count * sizeof(float));
    return reinterpret_cast<float*>(reinterpret_cast<char*>(nccl_.region()) + at);
  }

  kernels::NcclSteps nccl_;
  int gpus_ = 1, device_ = 0;
  std::mutex mirror_mutex_;
  DeviceMirror mirror_;
};

}  // namespace

std::unique_ptr<StepComm> make_nccl_comm(lockstep::Processes& processes) {
  kernels::MpiWorld* world = collectives::mpi_world(processes);
  if (!world) throw std::runtime_error("the NCCL engine needs MPI's processes");
  const GpuStatus gpus = query_gpus();
  if (!gpus.usable)
    throw std::invalid_argument("--engine nccl: no usable GPU (" + gpus.reason + ")");
  return std::make_unique<NcclComm>(*world, world->size(), static_cast<int>(gpus.devices.size()));
}

}  // namespace bb::strategies
