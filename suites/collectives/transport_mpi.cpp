// The MPI transport: MPI's world as the run's processes, and MPI's collectives between them
// (kernels/collectives_mpi.h), verified against the reference here.
#include <cstdio>
#include <optional>
#include <stdexcept>

#include "kernels/collectives_mpi.h"
#include "kernels/mpi_world.h"
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
    std::fprintf(stderr, "%s\n", message.c_str());
    std::fflush(nullptr);
    world_.abort(exit_code);
  }
  kernels::MpiWorld& world() { return world_; }

 private:
  kernels::MpiWorld world_;
};

class MpiTransport final : public Transport {
 public:
  explicit MpiTransport(MpiProcesses& processes) : procs_(processes), world_(processes.world()) {
    kernels::keep_freed_memory_in_heap();
  }
  ~MpiTransport() override { end_group(); }
  int world_ranks() const override { return world_.size(); }
  std::string description() const override {
    return world_.library_version() + "; " + std::to_string(world_.size()) + " processes, " +
           std::to_string(world_.on_this_node()) + " on this node";
  }

  bool begin_group(int ranks) override {
    end_group();
    group_ = kernels::MpiGroup(world_, ranks);
    return group_.member();
  }
  void end_group() override {
    release();
    group_ = kernels::MpiGroup();
  }

  std::string unsupported(const Spec& s, const reference::CollectiveShape& shape) const override {
    if (s.in_place && !has_in_place(s.op))
      return "in-place " + std::string(theory::collective_name(s.op)) + " is not measured";
    // MPI counts are int (and OpenMPI sums reduce_scatter's counts in an int): larger messages are
    // left out on every rank alike.
    constexpr std::size_t kIntMax = 2147483647;
    if (shape.in_count > kIntMax ||
        shape.out_count * static_cast<std::size_t>(group_.size()) > kIntMax)
      return "more elements than MPI's int counts hold";
    return "";
  }

  void prepare(const Spec& s, const reference::CollectiveShape& shape) override {
    release();
    call_.emplace(s, shape, group_);
    spec_ = s, shape_ = shape;
  }

  std::uint64_t run_and_verify() override {
    const int ranks = group_.size(), rank = group_.rank();
    const int amplitude = reference::pattern_amplitude(spec_.dtype, ranks);
    reference::fill_input(spec_.dtype, rank, amplitude, call_->input(), shape_.in_count);
    reference::poison_output(spec_.dtype, call_->output_buffer(), call_->output_buffer_elements());
    if (spec_.in_place) call_->place_input_in_output();
    call_->run();
    const std::uint64_t wrong = reference::count_wrong(spec_.op, spec_.redop, spec_.dtype, rank,
                                                       ranks, spec_.root, shape_, call_->output());
    return group_.sum(wrong);
  }

  int group_ranks() const override { return group_.size(); }
  void barrier() override { group_.barrier(); }
  lockstep::LocalTimes time_here(int iterations) override {
    const double t = call_->seconds_per_call(iterations);
    return {t, t};
  }
  double max_over_group(double v) override { return group_.max(v); }
  double sum_over_group(double v) override { return group_.sum(v); }

  void release() override { call_.reset(); }

  [[noreturn]] void abort(const std::string& message, int exit_code) override {
    procs_.abort(message, exit_code);
  }

 private:
  MpiProcesses& procs_;
  kernels::MpiWorld& world_;
  kernels::MpiGroup group_;
  Spec spec_;
  reference::CollectiveShape shape_;
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
  auto* mpi = dynamic_cast<MpiProcesses*>(&processes);
  if (!mpi) throw std::runtime_error("the MPI transport needs MPI's processes (--transport mpi)");
  return std::make_unique<MpiTransport>(*mpi);
}

}  // namespace bb::collectives
