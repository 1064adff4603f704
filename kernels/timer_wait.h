// A GPU wait of a declared duration (the strategies' synthetic compute on a GPU): one thread of
// one block reads the SM's %globaltimer (PTX ISA: a 64-bit nanosecond global timer) until the
// duration has passed since its first read, sleeping 256 ns between reads (__nanosleep) so that
// it takes almost nothing from the SM it sits on. It holds that one SM slot, not a host core.
// The timer's update interval depends on the GPU (PTX documents only the unit), so a wait ends up
// to one update late, after the launch; the caller times the whole wait on its own clock.
#pragma once

#include <cstdint>

struct CUstream_st;

namespace bb::kernels {

// Enqueues the wait on `stream`. Throws std::runtime_error on a launch error.
void launch_timer_wait(std::uint64_t duration_ns, CUstream_st* stream);

}  // namespace bb::kernels
