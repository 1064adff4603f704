// The NCCL transport: one process driving every local GPU, or one process per GPU under an MPI
// launcher, the NCCL unique id broadcast over MPI (kernels/collectives_mpi.h). Times are CUDA event
// times on every rank's stream (kernels/collectives_nccl.h), reduced over the ranks; outputs are
// filled here (fill_buffers) and verified against the reference there.
#include <algorithm>
#include <cstdlib>
#include <optional>
#include <stdexcept>

#include "kernels/collectives_nccl.h"
#include "suites/collectives/transport.h"
#ifdef BOUNDBENCH_WITH_MPI
#include "kernels/collectives_mpi.h"
#endif

namespace bb::collectives {
namespace {

class NcclTransport final : public Transport {
 public:
  NcclTransport(lockstep::Processes& p, int device_count)
      : procs_(p), mpi_(p.size() > 1 ? mpi_world(p) : nullptr), devices_(device_count) {
    if (p.size() > 1 && !multi_process())
      throw std::runtime_error("NCCL across processes needs MPI to share its unique id");
  }
  ~NcclTransport() override { end_group(); }

  int world_ranks() const override { return multi_process() ? procs_.size() : devices_; }
  std::string description() const override {
    return nccl_.library_version() + "; " +
           (multi_process() ? std::to_string(procs_.size()) + " processes, one GPU each"
                            : "1 process, " + std::to_string(devices_) + " GPU(s)");
  }

  bool begin_group(int ranks) override {
    end_group();
    size_ = ranks;
    if (!multi_process()) {
      if (ranks > devices_) throw std::runtime_error("more NCCL ranks than GPUs");
      nccl_.init_all(ranks);
      return true;
    }
#ifdef BOUNDBENCH_WITH_MPI
    group_.emplace(*mpi_, ranks);
    if (!group_->member()) return false;
    ncclUniqueId id{};
    if (group_->rank() == 0) id = nccl_.unique_id();
    group_->broadcast(&id, static_cast<int>(sizeof id), 0);
    nccl_.init_rank(ranks, group_->rank(), local_device(), id);
#endif
    return true;
  }

  void end_group() override {
    nccl_.destroy();
#ifdef BOUNDBENCH_WITH_MPI
    group_.reset();
#endif
  }

  std::uint64_t prepare_and_verify(const Spec& s,
                                   const reference::CollectiveShape& shape) override {
    return nccl_.prepare_and_verify(s, shape, [&](int rank, void* input, void* output) {
      fill_buffers(s, shape, rank, size_, input, output);
    });
  }

  int group_ranks() const override { return size_; }
  void barrier() override {
#ifdef BOUNDBENCH_WITH_MPI
    if (multi_process()) group_->barrier();
#endif
  }
  lockstep::LocalTimes time_here(int iterations) override {
    lockstep::LocalTimes here;
    for (double t : nccl_.seconds_per_call(iterations))
      here.slowest_s = std::max(here.slowest_s, t), here.total_s += t;
    return here;
  }
  double max_over_group(double v) override { return over_group(v, true); }
  double sum_over_group(double v) override { return over_group(v, false); }

  [[noreturn]] void abort(const std::string& message, int exit_code) override {
    // One process's comms only (ncclCommAbort may wait for peers in other processes, which the
    // launcher ends anyway when this one exits).
    if (!multi_process()) nccl_.abort_all();
    procs_.abort(message, exit_code);
    std::_Exit(exit_code);  // not reached: Processes::abort does not return
  }

 private:
  bool multi_process() const { return mpi_ != nullptr; }

  // The max or the sum over the group's processes (alone, this process's ranks hold one value).
  double over_group(double v, [[maybe_unused]] bool max) {
#ifdef BOUNDBENCH_WITH_MPI
    if (multi_process()) return max ? group_->max(v) : group_->sum(v);
#endif
    return v;
  }

  // The node-local rank picks the GPU (launchers export it); else the world rank.
  int local_device() const {
    const int local = launcher_local_rank();
    return (local >= 0 ? local : procs_.rank()) % devices_;
  }

  kernels::NcclCollectives nccl_;
  lockstep::Processes& procs_;
  kernels::MpiWorld* mpi_ = nullptr;  // across processes
#ifdef BOUNDBENCH_WITH_MPI
  std::optional<kernels::MpiGroup> group_;  // while a group is formed
#endif
  int devices_ = 0, size_ = 1;
};

}  // namespace

std::unique_ptr<Transport> make_nccl_transport(lockstep::Processes& processes, int device_count) {
  if (device_count < 1) throw std::runtime_error("NCCL needs a usable GPU");
  return std::make_unique<NcclTransport>(processes, device_count);
}

}  // namespace bb::collectives
