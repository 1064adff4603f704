#include "base/cuda_check.h"
#include "kernels/empty.h"

namespace bb::kernels {
namespace {

__global__ void mark(int* out, int value) { *out = value; }

}  // namespace

void launch_mark(int* out, int value, CUstream_st* stream) {
  mark<<<1, 1, 0, stream>>>(out, value);
  check_launch("mark");
}

}  // namespace bb::kernels
