// CUDA STREAM kernels. Versions: 1 = grid-stride loops of 4-, 8- or 16-byte accesses (one aligned
// Pack of N elements per thread access), a scalar loop for the tail; dot reduces each thread's sum
// in a shared-memory tree and writes one double per block. 2 = as 1, with 16 bytes in flight per
// thread and array at every width: a narrow access is unrolled 16 / width times, independent
// loads issued before any use (one 4-byte load in flight per thread cannot cover DRAM latency:
// bytes in flight, not instructions per byte, limit the narrow variants).
#include <bit>

#include "base/cuda_check.h"
#include "kernels/stream.h"

namespace bb::kernels {
namespace {

// N elements loaded or stored as one access of sizeof(T)·N bytes.
template <class T, int N>
struct alignas(sizeof(T) * N) Pack {
  T v[N];
};

// Accesses of `bytes` a thread issues before it uses any: 16 bytes in flight per array.
constexpr int unroll_for(std::size_t bytes) {
  return bytes >= 16 ? 1 : static_cast<int>(16 / bytes);
}

struct Grid {
  std::size_t first, stride;
};
__device__ inline Grid grid() {
  return {static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x,
          static_cast<std::size_t>(gridDim.x) * blockDim.x};
}

template <StreamOp Op, class T>
__device__ inline void apply(T& a, T& b, T& c, T s) {
  if constexpr (Op == StreamOp::copy) c = a;
  if constexpr (Op == StreamOp::mul) b = s * c;
  if constexpr (Op == StreamOp::add) c = a + b;
  if constexpr (Op == StreamOp::triad) a = b + s * c;
  if constexpr (Op == StreamOp::nstream) a += b + s * c;
}

// Loads only the arrays the op reads and stores only the one it writes.
template <StreamOp Op, class T, int N>
__global__ void stream_kernel(T* __restrict__ a, T* __restrict__ b, T* __restrict__ c, T s,
                              std::size_t n) {
  using P = Pack<T, N>;
  constexpr bool reads_a = Op == StreamOp::copy || Op == StreamOp::add || Op == StreamOp::nstream;
  constexpr bool reads_b = Op == StreamOp::add || Op == StreamOp::triad || Op == StreamOp::nstream;
  constexpr bool reads_c = Op == StreamOp::mul || Op == StreamOp::triad || Op == StreamOp::nstream;
  auto* av = reinterpret_cast<P*>(a);
  auto* bv = reinterpret_cast<P*>(b);
  auto* cv = reinterpret_cast<P*>(c);
  constexpr int U = unroll_for(sizeof(P));
  const auto step = [&](std::size_t i, const P& x0, const P& y0, const P& z0) {
    P x = x0, y = y0, z = z0;
#pragma unroll
    for (int k = 0; k < N; ++k) apply<Op>(x.v[k], y.v[k], z.v[k], s);
    if constexpr (Op == StreamOp::mul)
      bv[i] = y;
    else if constexpr (Op == StreamOp::copy || Op == StreamOp::add)
      cv[i] = z;
    else
      av[i] = x;
  };
  const Grid g = grid();
  const std::size_t vec_n = n / N;
  std::size_t i = g.first;
  for (; i + (U - 1) * g.stride < vec_n; i += U * g.stride) {
    P x[U]{}, y[U]{}, z[U]{};
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if constexpr (reads_a) x[u] = av[i + u * g.stride];
      if constexpr (reads_b) y[u] = bv[i + u * g.stride];
      if constexpr (reads_c) z[u] = cv[i + u * g.stride];
    }
#pragma unroll
    for (int u = 0; u < U; ++u) step(i + u * g.stride, x[u], y[u], z[u]);
  }
  for (; i < vec_n; i += g.stride) {
    P x{}, y{}, z{};
    if constexpr (reads_a) x = av[i];
    if constexpr (reads_b) y = bv[i];
    if constexpr (reads_c) z = cv[i];
    step(i, x, y, z);
  }
  for (std::size_t j = vec_n * N + g.first; j < n; j += g.stride) apply<Op>(a[j], b[j], c[j], s);
}

template <class T, int N>
__global__ void dot_kernel(const T* __restrict__ a, const T* __restrict__ b, std::size_t n,
                           double* __restrict__ partial) {
  using P = Pack<T, N>;
  __shared__ T tree[1024];
  const auto* av = reinterpret_cast<const P*>(a);
  const auto* bv = reinterpret_cast<const P*>(b);
  const Grid g = grid();
  const std::size_t vec_n = n / N;
  constexpr int U = unroll_for(sizeof(P));
  T sum = 0;
  std::size_t i = g.first;
  for (; i + (U - 1) * g.stride < vec_n; i += U * g.stride) {
    P x[U], y[U];
#pragma unroll
    for (int u = 0; u < U; ++u) x[u] = av[i + u * g.stride], y[u] = bv[i + u * g.stride];
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int k = 0; k < N; ++k) sum += x[u].v[k] * y[u].v[k];
  }
  for (; i < vec_n; i += g.stride) {
    const P x = av[i], y = bv[i];
#pragma unroll
    for (int k = 0; k < N; ++k) sum += x.v[k] * y.v[k];
  }
  for (std::size_t j = vec_n * N + g.first; j < n; j += g.stride) sum += a[j] * b[j];
  tree[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) tree[threadIdx.x] += tree[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = static_cast<double>(tree[0]);
}

void check_geometry(const char* what, int access_bytes, std::size_t element_bytes, int blocks,
                    int threads, std::initializer_list<const void*> arrays) {
  if (access_bytes != 4 && access_bytes != 8 && access_bytes != 16)
    throw std::invalid_argument(std::string(what) + ": access width must be 4, 8 or 16 bytes");
  if (static_cast<std::size_t>(access_bytes) < element_bytes)
    throw std::invalid_argument(std::string(what) + ": access narrower than the element");
  if (blocks < 1 || threads < 1 || threads > 1024)
    throw std::invalid_argument(std::string(what) + ": blocks >= 1 and 1 <= threads <= 1024");
  for (const void* p : arrays)
    if (reinterpret_cast<std::uintptr_t>(p) % static_cast<std::uintptr_t>(access_bytes) != 0)
      throw std::invalid_argument(std::string(what) + ": arrays must be aligned to the access");
}

template <StreamOp Op, class T>
void launch_op(int access_bytes, T* a, T* b, T* c, T s, std::size_t n, int blocks, int threads,
               CUstream_st* stream) {
  switch (access_bytes / static_cast<int>(sizeof(T))) {
    case 1: stream_kernel<Op, T, 1><<<blocks, threads, 0, stream>>>(a, b, c, s, n); break;
    case 2: stream_kernel<Op, T, 2><<<blocks, threads, 0, stream>>>(a, b, c, s, n); break;
    case 4: stream_kernel<Op, T, 4><<<blocks, threads, 0, stream>>>(a, b, c, s, n); break;
    default: throw std::invalid_argument("stream_cuda: unsupported access width");
  }
  check_launch("stream_kernel");
}

template <class T>
void launch_stream(StreamOp op, int access_bytes, T* a, T* b, T* c, T s, std::size_t n, int blocks,
                   int threads, CUstream_st* stream) {
  check_geometry("stream_cuda", access_bytes, sizeof(T), blocks, threads, {a, b, c});
  switch (op) {
    case StreamOp::copy:
      return launch_op<StreamOp::copy>(access_bytes, a, b, c, s, n, blocks, threads, stream);
    case StreamOp::mul:
      return launch_op<StreamOp::mul>(access_bytes, a, b, c, s, n, blocks, threads, stream);
    case StreamOp::add:
      return launch_op<StreamOp::add>(access_bytes, a, b, c, s, n, blocks, threads, stream);
    case StreamOp::triad:
      return launch_op<StreamOp::triad>(access_bytes, a, b, c, s, n, blocks, threads, stream);
    case StreamOp::nstream:
      return launch_op<StreamOp::nstream>(access_bytes, a, b, c, s, n, blocks, threads, stream);
    case StreamOp::dot: break;
  }
  throw std::invalid_argument("stream_cuda: dot has its own launcher (dot_cuda)");
}

template <class T>
void launch_dot(int access_bytes, const T* a, const T* b, std::size_t n, double* partial,
                int blocks, int threads, CUstream_st* stream) {
  check_geometry("dot_cuda", access_bytes, sizeof(T), blocks, threads, {a, b});
  if (!std::has_single_bit(static_cast<unsigned>(threads)))
    throw std::invalid_argument("dot_cuda: threads must be a power of two");
  switch (access_bytes / static_cast<int>(sizeof(T))) {
    case 1: dot_kernel<T, 1><<<blocks, threads, 0, stream>>>(a, b, n, partial); break;
    case 2: dot_kernel<T, 2><<<blocks, threads, 0, stream>>>(a, b, n, partial); break;
    case 4: dot_kernel<T, 4><<<blocks, threads, 0, stream>>>(a, b, n, partial); break;
    default: throw std::invalid_argument("dot_cuda: unsupported access width");
  }
  check_launch("dot_kernel");
}

}  // namespace

void stream_cuda(StreamOp op, int access_bytes, double* a, double* b, double* c, double s,
                 std::size_t n, int blocks, int threads, CUstream_st* stream) {
  launch_stream(op, access_bytes, a, b, c, s, n, blocks, threads, stream);
}

void stream_cuda(StreamOp op, int access_bytes, float* a, float* b, float* c, float s,
                 std::size_t n, int blocks, int threads, CUstream_st* stream) {
  launch_stream(op, access_bytes, a, b, c, s, n, blocks, threads, stream);
}

void dot_cuda(int access_bytes, const double* a, const double* b, std::size_t n, double* partial,
              int blocks, int threads, CUstream_st* stream) {
  launch_dot(access_bytes, a, b, n, partial, blocks, threads, stream);
}

void dot_cuda(int access_bytes, const float* a, const float* b, std::size_t n, double* partial,
              int blocks, int threads, CUstream_st* stream) {
  launch_dot(access_bytes, a, b, n, partial, blocks, threads, stream);
}

std::size_t dot_cuda_depth(std::size_t n, int access_bytes, std::size_t element_bytes, int blocks,
                           int threads) {
  // Per thread: its product, then one addition per element it owns — N elements per vector access
  // times its share ceil((n/N) / grid) of the accesses, plus at most one tail element — then
  // log2(threads) tree levels and the host's sum of the partials.
  const std::size_t per = static_cast<std::size_t>(access_bytes) / element_bytes;
  const auto grid = static_cast<std::size_t>(blocks) * static_cast<std::size_t>(threads);
  const std::size_t per_thread = per * ((n / per + grid - 1) / grid) + 1;
  const auto tree = static_cast<std::size_t>(std::bit_width(static_cast<unsigned>(threads)) - 1);
  return 1 + per_thread + tree + 1;
}

}  // namespace bb::kernels
