// CUDA STREAM kernels. Versions: 1 = triad with 16-byte loads/stores (double2 / float4) in a
// grid-stride loop; a scalar loop finishes the tail when n is not a multiple of the vector width.
#include "harness/cuda_check.h"
#include "kernels/stream.h"

namespace bb::kernels {
namespace {

template <class T>
struct Vec16;
template <>
struct Vec16<double> {
  using type = double2;
  static constexpr int width = 2;
};
template <>
struct Vec16<float> {
  using type = float4;
  static constexpr int width = 4;
};

__device__ inline double2 triad_op(double2 b, double2 c, double s) {
  return make_double2(b.x + s * c.x, b.y + s * c.y);
}
__device__ inline float4 triad_op(float4 b, float4 c, float s) {
  return make_float4(b.x + s * c.x, b.y + s * c.y, b.z + s * c.z, b.w + s * c.w);
}

template <class T>
__global__ void triad_kernel(T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c,
                             T s, std::size_t n) {
  using V = typename Vec16<T>::type;
  constexpr int w = Vec16<T>::width;
  const std::size_t vec_n = n / w;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  auto* av = reinterpret_cast<V*>(a);
  const auto* bv = reinterpret_cast<const V*>(b);
  const auto* cv = reinterpret_cast<const V*>(c);
  for (std::size_t i = first; i < vec_n; i += stride) av[i] = triad_op(bv[i], cv[i], s);
  for (std::size_t i = vec_n * w + first; i < n; i += stride) a[i] = b[i] + s * c[i];
}

template <class T>
void launch_triad(T* a, const T* b, const T* c, T s, std::size_t n, int blocks, int threads,
                  CUstream_st* stream) {
  // 16-byte accesses need 16-byte-aligned arrays (cudaMalloc gives 256).
  if ((reinterpret_cast<std::uintptr_t>(a) | reinterpret_cast<std::uintptr_t>(b) |
       reinterpret_cast<std::uintptr_t>(c)) %
          16 !=
      0)
    throw std::invalid_argument("triad_cuda: arrays must be 16-byte aligned");
  triad_kernel<T><<<blocks, threads, 0, stream>>>(a, b, c, s, n);
  check_launch("triad_kernel");
}

}  // namespace

void triad_cuda(double* a, const double* b, const double* c, double s, std::size_t n, int blocks,
                int threads, CUstream_st* stream) {
  launch_triad(a, b, c, s, n, blocks, threads, stream);
}

void triad_cuda(float* a, const float* b, const float* c, float s, std::size_t n, int blocks,
                int threads, CUstream_st* stream) {
  launch_triad(a, b, c, s, n, blocks, threads, stream);
}

}  // namespace bb::kernels
