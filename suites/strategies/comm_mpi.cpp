// The strategies' communication over MPI: the world's processes as one group
// (kernels/collectives_mpi.h), polled with sleeps so that waiting ranks hold no core. MPI
// progresses a non-blocking all-reduce only inside its calls (OpenMPI has no progress thread), so
// while one is pending a progress thread of this rank tests it over and over (yielding between
// tests) and starts the next when it completes: a device's communication stream beside its
// compute.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <utility>

#include "suites/collectives/transport.h"
#include "suites/strategies/group_comm.h"

namespace bb::strategies {
namespace {

std::vector<int> offsets(const std::vector<int>& counts) {
  std::vector<int> o(counts.size(), 0);
  for (std::size_t r = 1; r < counts.size(); ++r) o[r] = o[r - 1] + counts[r - 1];
  return o;
}

class MpiComm final : public GroupComm {
 public:
  using GroupComm::GroupComm;
  ~MpiComm() override {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    if (progress_.joinable()) progress_.join();
  }

  std::string description() const override { return world_.description(); }
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
  // The rank's thread only queues; the progress thread makes every MPI call of the non-blocking
  // all-reduces (so that neither holds the lock through one).
  void start_all_reduce_sum(float* data, std::size_t count) override {
    if (!world_.thread_multiple())
      throw std::runtime_error(
          "the overlapped all-reduce needs MPI_THREAD_MULTIPLE (its progress thread), which this "
          "MPI library does not provide");
    std::lock_guard lock(mutex_);
    if (!progress_.joinable()) progress_ = std::thread([this] { progress(); });
    queued_.push_back({data, count});
    ++outstanding_;
    wake_.notify_all();
  }
  void complete_all_reduces() override {
    for (;;) {
      {
        std::lock_guard lock(mutex_);
        if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
        if (outstanding_ == 0) return;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(5));
    }
  }
  void all_to_all(const float* send, const std::vector<int>& send_counts, float* recv,
                  const std::vector<int>& recv_counts) override {
    group_.all_to_all(send, send_counts, offsets(send_counts), recv, recv_counts,
                      offsets(recv_counts));
  }

  std::unique_ptr<StepComm> first_ranks(int ranks) override {
    auto group = std::make_unique<MpiComm>(world_, ranks);
    return group->member() ? std::move(group) : nullptr;
  }

 private:
  // The progress thread. One all-reduce in flight at a time, as on a device's one communication
  // stream (and as the model has them, one after another): it starts the next queued one when the
  // last completes, testing the one in flight (MPI_Testall) over and over. It yields between tests
  // rather than sleeping: each of the all-reduce's rounds needs a test once its data has arrived,
  // and a sleeping thread on a busy machine waits a scheduler slice (milliseconds) to wake. Like
  // the blocking all-reduce it spins; the synthetic compute beside it holds no core.
  void progress() {
    bool in_flight = false;
    std::unique_lock lock(mutex_);
    while (!stop_) {
      if (!in_flight && queued_.empty()) {
        wake_.wait(lock);
        continue;
      }
      std::optional<std::pair<float*, std::size_t>> next;
      if (!in_flight) {
        next = queued_.front();
        queued_.pop_front();
      }
      lock.unlock();
      bool done = false;
      std::exception_ptr error;
      try {
        if (next) {
          group_.start_all_reduce_sum(next->first, next->second);
          in_flight = true;
        } else {
          done = group_.test_all_reduces();
        }
      } catch (...) {
        error = std::current_exception();
      }
      if (!done && !error) std::this_thread::yield();
      lock.lock();
      if (error) {
        error_ = error;
        queued_.clear();
        outstanding_ = 0;
        in_flight = false;
      } else if (done) {
        in_flight = false;
        --outstanding_;
      }
    }
  }

  std::mutex mutex_;  // the group's pending all-reduces, between this thread and progress()
  std::condition_variable wake_;
  std::deque<std::pair<float*, std::size_t>> queued_;  // started, not yet handed to MPI
  int outstanding_ = 0;                                // started, not yet completed
  bool stop_ = false;
  std::exception_ptr error_;
  std::thread progress_;
};

}  // namespace

std::unique_ptr<StepComm> make_mpi_comm(lockstep::Processes& processes) {
  kernels::MpiWorld* world = collectives::mpi_world(processes);
  if (!world) throw std::runtime_error("the MPI engine needs MPI's processes (--engine mpi)");
  return std::make_unique<MpiComm>(*world, world->size());
}

}  // namespace bb::strategies
