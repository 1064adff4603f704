// Ends a lockstep run when one operation takes longer than the timeout: a hung collective never
// returns, so the watchdog waits in its own thread and aborts every rank through the engine
// (results written so far stay on disk).
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "harness/lockstep_engine.h"

namespace bb::lockstep {

class Watchdog {
 public:
  // Timeouts beyond 10^9 s (31 years) are held there: a longer one would overflow the clock.
  // `who` starts the message ("boundbench collectives").
  Watchdog(Engine& engine, double timeout_s, std::string who);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // Starts the timeout of `what` ("all_reduce of 16 bytes on 2 ranks (…)"); past it, the engine
  // aborts with "<who>: error: <what> did not complete within <t> s (--timeout): …", exit 3.
  void arm(std::string what);
  void disarm();

 private:
  void watch();
  Engine& engine_;
  double timeout_s_;
  std::string who_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread thread_;
  std::string what_;
  std::chrono::steady_clock::time_point deadline_;
  bool armed_ = false, stop_ = false;
};

}  // namespace bb::lockstep
