// The smallest kernel that can be checked: one thread of one block writes one int. Its time is a
// kernel launch's, as CUDA events see it (the harness's GPU launch overhead: harness/bound.h).
#pragma once

struct CUstream_st;

namespace bb::kernels {

// Enqueues the write of `value` to `*out` on `stream`. Throws std::runtime_error on a launch error.
void launch_mark(int* out, int value, CUstream_st* stream);

}  // namespace bb::kernels
