// The MPI transport: MPI's world as the run's processes, and MPI's collectives between them
// (kernels/collectives_mpi.h), verified against the reference here.
#include <optional>
#include <stdexcept>

#include "kernels/collectives_mpi.h"
#include "suites/collectives/transport.h"

namespace bb::collectives {
namespace {

class MpiProcesses final : public lockstep::Processes {
 public:
  MpiProcesses(int& argc, char**& argv) : world_(argc, argv) {}
  int rank() const override { return world_.rank(); }
  int size() const override { return world_.size(); }
  std::string launcher() const override { return "mpi"; }
  int on_this_node() const override { return world_.on_this_node(); }
  bool same_everywhere(const std::string& text, int& differing_rank) override {
    return world_.same_everywhere(text, differing_rank);
  }
  double min_over_all(double v) override { return world_.min_over_all(v); }
  void meet() override { world_.meet(); }
  [[noreturn]] void abort(const std::string& message, int exit_code) override {
    world_.abort(message, exit_code);
  }
  kernels::MpiWorld& world() { return world_; }

 private:
  kernels::MpiWorld world_;
};

class MpiTransport final : public Transport {
 public:
  explicit MpiTransport(kernels::MpiWorld& world) : world_(world) {
    kernels::keep_freed_memory_in_heap();
  }
  int world_ranks() const override { return world_.size(); }
  std::string description() const override { return world_.description(); }

  bool begin_group(int ranks) override {
    end_group();
    group_.emplace(world_, ranks);
    return group_->member();
  }
  void end_group() override {
    call_.reset();
    group_.reset();
  }

  // MPI counts are int (and OpenMPI sums reduce_scatter's counts in an int): larger messages are
  // left out on every rank alike.
  bool runs(const Spec&, const reference::CollectiveShape& shape) const override {
    constexpr std::size_t kIntMax = 2147483647;
    return shape.in_count <= kIntMax &&
           shape.out_count * static_cast<std::size_t>(group_->size()) <= kIntMax;
  }

  std::uint64_t prepare_and_verify(const Spec& s,
                                   const reference::CollectiveShape& shape) override {
    call_.emplace(s, shape, *group_);
    fill_buffers(s, shape, group_->rank(), group_->size(), call_->input(), call_->output_buffer());
    call_->run();
    return reference::count_wrong(s.op, s.redop, s.dtype, group_->rank(), group_->size(), s.root,
                                  shape, call_->output());
  }

  int group_ranks() const override { return group_->size(); }
  void barrier() override { group_->barrier(); }
  lockstep::LocalTimes time_here(int iterations) override {
    const double t = call_->seconds_per_call(iterations);
    return {t, t};
  }
  double max_over_group(double v) override { return group_->max(v); }
  double sum_over_group(double v) override { return group_->sum(v); }

  [[noreturn]] void abort(const std::string& message, int exit_code) override {
    world_.abort(message, exit_code);
  }

 private:
  kernels::MpiWorld& world_;
  std::optional<kernels::MpiGroup> group_;  // while a group is formed
  std::optional<kernels::MpiCollective> call_;
};

}  // namespace

std::unique_ptr<lockstep::Processes> open_mpi_processes(int& argc, char**& argv) {
  return std::make_unique<MpiProcesses>(argc, argv);
}

kernels::MpiWorld* mpi_world(lockstep::Processes& processes) {
  auto* mpi = dynamic_cast<MpiProcesses*>(&processes);
  return mpi ? &mpi->world() : nullptr;
}

std::unique_ptr<Transport> make_mpi_transport(lockstep::Processes& processes) {
  kernels::MpiWorld* world = mpi_world(processes);
  if (!world) throw std::runtime_error("the MPI transport needs MPI's processes (--transport mpi)");
  return std::make_unique<MpiTransport>(*world);
}

}  // namespace bb::collectives
