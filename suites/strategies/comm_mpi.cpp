// The strategies' communication over MPI: the world's processes as one group
// (kernels/collectives_mpi.h), polled with sleeps so that waiting ranks hold no core.
#include <cstdio>
#include <optional>
#include <stdexcept>

#include "kernels/collectives_mpi.h"
#include "suites/collectives/transport.h"
#include "suites/strategies/step_comm.h"

namespace bb::strategies {
namespace {

std::vector<int> offsets(const std::vector<int>& counts) {
  std::vector<int> o(counts.size(), 0);
  for (std::size_t r = 1; r < counts.size(); ++r) o[r] = o[r - 1] + counts[r - 1];
  return o;
}

class MpiComm final : public StepComm {
 public:
  // Collective over the world: its first `ranks` processes (member() false on the others).
  MpiComm(kernels::MpiWorld& world, int ranks) : world_(world), group_(world, ranks) {}
  bool member() const { return group_.member(); }

  int rank() const override { return group_.rank(); }
  std::string description() const override {
    return world_.library_version() + "; " + std::to_string(world_.size()) + " processes, " +
           std::to_string(world_.on_this_node()) + " on this node";
  }
  void send(const float* data, std::size_t count, int to, int tag) override {
    group_.send(data, count * sizeof(float), to, tag);
  }
  void receive(float* data, std::size_t count, int from, int tag) override {
    group_.receive(data, count * sizeof(float), from, tag);
  }
  void complete_sends() override { group_.complete_sends(); }
  void all_reduce_sum(float* data, std::size_t count) override {
    group_.all_reduce_sum(data, count);
  }
  void all_to_all(const float* send, const std::vector<int>& send_counts, float* recv,
                  const std::vector<int>& recv_counts) override {
    group_.all_to_all(send, send_counts, offsets(send_counts), recv, recv_counts,
                      offsets(recv_counts));
  }

  std::unique_ptr<StepComm> first_ranks(int ranks) override {
    auto group = std::make_unique<MpiComm>(world_, ranks);
    if (!group->member()) return nullptr;
    return group;
  }
  void meet_everyone() override { world_.meet(); }

  int group_ranks() const override { return group_.size(); }
  void barrier() override { group_.barrier(); }
  double max_over_group(double v) override { return group_.max(v); }
  double sum_over_group(double v) override { return group_.sum(v); }
  [[noreturn]] void abort(const std::string& message, int exit_code) override {
    std::fprintf(stderr, "%s\n", message.c_str());
    std::fflush(nullptr);
    world_.abort(exit_code);
  }

 private:
  kernels::MpiWorld& world_;
  kernels::MpiGroup group_;
};

}  // namespace

std::unique_ptr<StepComm> make_mpi_comm(lockstep::Processes& processes) {
  kernels::MpiWorld* world = collectives::mpi_world(processes);
  if (!world) throw std::runtime_error("the MPI engine needs MPI's processes (--engine mpi)");
  return std::make_unique<MpiComm>(*world, world->size());
}

}  // namespace bb::strategies
