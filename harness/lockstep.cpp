#include "harness/lockstep.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <exception>
#include <thread>
#include <utility>

namespace bb::lockstep {
namespace {

double cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

}  // namespace

double sample_s(Engine& engine, int iterations, TimeReduction reduction) {
  engine.barrier();
  const LocalTimes here = engine.time_here(iterations);
  if (reduction == TimeReduction::max) return engine.max_over_group(here.slowest_s);
  return engine.sum_over_group(here.total_s) / engine.group_ranks();
}

Sampled sample_in_lockstep(Engine& engine, const SampleRule& rule) {
  Sampled out;
  const double pilot_s = sample_s(engine, 1, TimeReduction::max);
  out.iterations = static_cast<int>(std::clamp(std::ceil(rule.sample_time_s / pilot_s), 1.0, 1e5));
  if (rule.warmup > 0) sample_s(engine, std::min(rule.warmup, out.iterations), rule.reduction);
  const auto wall0 = std::chrono::steady_clock::now();
  const double cpu0 = cpu_seconds();
  for (int s = 0; s < rule.samples; ++s)
    out.times_s.push_back(sample_s(engine, out.iterations, rule.reduction));
  out.cpu_per_operation_s = (cpu_seconds() - cpu0) / rule.samples / out.iterations;
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return out;
}

Lockstep::Lockstep(Engine& engine, Settings settings)
    : engine_(engine),
      settings_(std::move(settings)),
      watchdog_(engine, settings_.timeout_s, settings_.who) {}

void Lockstep::measure(const std::string& what, const std::string& name,
                       const std::function<void()>& body) {
  watchdog_.arm(what);
  if (++measured_ == 2 && settings_.rank == settings_.simulate_hang)
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));  // the others wait
  try {
    body();
  } catch (const std::exception& e) {
    engine_.abort(settings_.who + ": error: " + name + " on rank " +
                      std::to_string(settings_.rank) + ": " + e.what(),
                  kExitFailed);
  }
  watchdog_.disarm();
}

}  // namespace bb::lockstep
