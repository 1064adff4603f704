// Integer quantization on the GPU, the same arithmetic as quant_host.cpp and reference/quant.h:
// per-group range (two passes: chunks of ≤ 64 Ki elements, then their groups), the parameters of
// theory/quant.h computed on the device, and quantize/dequantize as grid-stride loops in double.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "base/cuda_check.h"
#include "kernels/quant.h"
#include "reference/quant.h"

namespace bb::kernels {
namespace {

constexpr int kThreads = 256;

__global__ void chunk_minmax(const float* x, std::size_t chunk, float* lo, float* hi) {
  __shared__ float s_lo[kThreads], s_hi[kThreads];
  const float* p = x + blockIdx.x * chunk;
  float l = INFINITY, h = -INFINITY;
  for (std::size_t i = threadIdx.x; i < chunk; i += blockDim.x)
    l = fminf(l, p[i]), h = fmaxf(h, p[i]);
  s_lo[threadIdx.x] = l, s_hi[threadIdx.x] = h;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) {
      s_lo[threadIdx.x] = fminf(s_lo[threadIdx.x], s_lo[threadIdx.x + s]);
      s_hi[threadIdx.x] = fmaxf(s_hi[threadIdx.x], s_hi[threadIdx.x + s]);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) lo[blockIdx.x] = s_lo[0], hi[blockIdx.x] = s_hi[0];
}

// theory::int_quant_params, on the device (theory/ has no CUDA); the GPU test compares the two.
__device__ theory::IntQuant int_quant_params_device(double min, double max, bool symmetric) {
  theory::IntQuant p;
  if (symmetric) {
    p.q_max = 127, p.q_min = -127, p.zero_point = 0;
    const double amax = fmax(fabs(min), fabs(max));
    p.scale = amax > 0 ? amax / 127.0 : 1.0;
    return p;
  }
  p.q_min = 0, p.q_max = 255;
  const double lo = fmin(min, 0.0), hi = fmax(max, 0.0);
  p.scale = hi > lo ? (hi - lo) / 255.0 : 1.0;
  p.zero_point = llround(-lo / p.scale);
  return p;
}

__global__ void group_params(const float* lo, const float* hi, std::size_t groups,
                             std::size_t per_group, bool symmetric, theory::IntQuant* params) {
  const std::size_t g = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (g >= groups) return;
  float l = lo[g * per_group], h = hi[g * per_group];
  for (std::size_t c = 1; c < per_group; ++c)
    l = fminf(l, lo[g * per_group + c]), h = fmaxf(h, hi[g * per_group + c]);
  params[g] = int_quant_params_device(l, h, symmetric);
}

template <class Q>
__global__ void quantize(const float* x, std::size_t n, std::size_t group,
                         const theory::IntQuant* params, bool stochastic, std::uint64_t seed,
                         Q* q) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const theory::IntQuant p = params[i / group];
    const double v = static_cast<double>(x[i]) / p.scale + static_cast<double>(p.zero_point);
    // Nearest: ties away from zero, as std::llround.
    const double r = stochastic ? reference::round_stochastic(v, seed, i) : round(v);
    q[i] =
        static_cast<Q>(fmin(fmax(r, static_cast<double>(p.q_min)), static_cast<double>(p.q_max)));
  }
}

template <class Q>
__global__ void dequantize(const Q* q, std::size_t n, std::size_t group,
                           const theory::IntQuant* params, float* x) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const theory::IntQuant p = params[i / group];
    x[i] = static_cast<float>(p.scale *
                              (static_cast<double>(q[i]) - static_cast<double>(p.zero_point)));
  }
}

unsigned grid_for(std::size_t n) {
  return static_cast<unsigned>(std::min<std::size_t>((n + kThreads - 1) / kThreads, 65536));
}

}  // namespace

void quant_params_cuda(const float* x, std::size_t n, std::size_t group, bool symmetric,
                       float* chunk_lo, float* chunk_hi, theory::IntQuant* params,
                       CUstream_st* stream) {
  const std::size_t chunk = quant_chunk_elements(group), chunks = n / chunk;
  if (group == 0 || n % group != 0 || chunks > 0x7FFFFFFFu)
    throw std::invalid_argument("quant_params_cuda: the group size must divide n");
  chunk_minmax<<<static_cast<unsigned>(chunks), kThreads, 0, stream>>>(x, chunk, chunk_lo,
                                                                       chunk_hi);
  check_launch("chunk_minmax");
  const std::size_t groups = n / group;
  group_params<<<static_cast<unsigned>((groups + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
      chunk_lo, chunk_hi, groups, group / chunk, symmetric, params);
  check_launch("group_params");
}

template <class Q>
void quantize_cuda(const float* x, std::size_t n, std::size_t group, const theory::IntQuant* params,
                   bool stochastic, std::uint64_t seed, Q* q, CUstream_st* stream) {
  quantize<Q><<<grid_for(n), kThreads, 0, stream>>>(x, n, group, params, stochastic, seed, q);
  check_launch("quantize");
}

template <class Q>
void dequantize_cuda(const Q* q, std::size_t n, std::size_t group, const theory::IntQuant* params,
                     float* x, CUstream_st* stream) {
  dequantize<Q><<<grid_for(n), kThreads, 0, stream>>>(q, n, group, params, x);
  check_launch("dequantize");
}

template void quantize_cuda(const float*, std::size_t, std::size_t, const theory::IntQuant*, bool,
                            std::uint64_t, std::int8_t*, CUstream_st*);
template void quantize_cuda(const float*, std::size_t, std::size_t, const theory::IntQuant*, bool,
                            std::uint64_t, std::uint8_t*, CUstream_st*);
template void dequantize_cuda(const std::int8_t*, std::size_t, std::size_t, const theory::IntQuant*,
                              float*, CUstream_st*);
template void dequantize_cuda(const std::uint8_t*, std::size_t, std::size_t,
                              const theory::IntQuant*, float*, CUstream_st*);

}  // namespace bb::kernels
