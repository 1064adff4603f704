#include "harness/watchdog.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace bb::lockstep {

Watchdog::Watchdog(Engine& engine, double timeout_s, std::string who)
    : engine_(engine), timeout_s_(std::min(timeout_s, 1e9)), who_(std::move(who)) {
  thread_ = std::thread([this] { watch(); });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void Watchdog::arm(std::string what) {
  std::lock_guard lock(mutex_);
  what_ = std::move(what);
  deadline_ = std::chrono::steady_clock::now() +
              std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                  std::chrono::duration<double>(timeout_s_));
  armed_ = true;
  wake_.notify_all();
}

void Watchdog::disarm() {
  std::lock_guard lock(mutex_);
  armed_ = false;
}

void Watchdog::watch() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    if (!armed_) {
      wake_.wait(lock);
      continue;
    }
    if (wake_.wait_until(lock, deadline_) == std::cv_status::timeout && armed_ && !stop_ &&
        std::chrono::steady_clock::now() >= deadline_) {
      engine_.abort(who_ + ": error: " + what_ + " did not complete within " +
                        fmt::format("{:g}", timeout_s_) +
                        " s (--timeout): aborting every rank; results so far are kept",
                    kExitHang);
    }
  }
}

}  // namespace bb::lockstep
