// Host STREAM with non-temporal stores. Versions: 1 = OpenMP static schedule (the split of the
// first-touch fills), four vectors per step, GCC vector extensions for the arithmetic and the
// ISA's streaming store (AVX-512 vmovntpd/ps, AVX2 and SSE2 their narrower forms) for the written
// array, aligned to the vector by a scalar head, a scalar tail, one sfence per thread. A streaming
// store writes whole lines without reading them first: the write-allocate read that a plain store
// costs is not paid, so the bytes moved are the STREAM count (theory/stream.h) exactly.
#include <immintrin.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>

#include "kernels/stream.h"
#include "kernels/thread_ranges.h"

namespace bb::kernels {
namespace {

template <StreamOp kOp, class T>
inline T element(const T* a, const T* b, const T* c, T s, std::size_t i) {
  if constexpr (kOp == StreamOp::copy) return a[i];
  if constexpr (kOp == StreamOp::mul) return s * c[i];
  if constexpr (kOp == StreamOp::add) return a[i] + b[i];
  if constexpr (kOp == StreamOp::triad) return b[i] + s * c[i];
  return a[i] + (b[i] + s * c[i]);  // nstream
}

// The array op writes: c (copy, add), b (mul), a (triad, nstream).
template <StreamOp kOp, class T>
T* written(T* a, T* b, T* c) {
  if constexpr (kOp == StreamOp::copy || kOp == StreamOp::add) return c;
  if constexpr (kOp == StreamOp::mul) return b;
  return a;
}

// [lo, hi) with vectors of V (sizeof(V) bytes) stored by `store`.
template <StreamOp kOp, class V, class T, class Store>
inline void nt_range(T* a, T* b, T* c, T s, std::size_t lo, std::size_t hi, Store store) {
  constexpr std::size_t lanes = sizeof(V) / sizeof(T);
  T* out = written<kOp>(a, b, c);
  std::size_t i = lo;
  for (; i < hi && reinterpret_cast<std::uintptr_t>(out + i) % sizeof(V) != 0; ++i)
    out[i] = element<kOp>(a, b, c, s, i);
  const V vs = V{} + s;
  // Four vectors (four 64-byte lines with AVX-512) per step, loads first, as likwid-bench's
  // *_mem_avx512 kernels: more misses in flight per iteration; then one vector at a time.
  for (; i + 4 * lanes <= hi; i += 4 * lanes) {
    V r[4];
    for (std::size_t u = 0; u < 4; ++u) {
      const std::size_t k = i + u * lanes;
      V va, vb, vc;
      std::memcpy(&va, a + k, sizeof(V));
      std::memcpy(&vb, b + k, sizeof(V));
      std::memcpy(&vc, c + k, sizeof(V));
      if constexpr (kOp == StreamOp::copy) r[u] = va;
      if constexpr (kOp == StreamOp::mul) r[u] = vs * vc;
      if constexpr (kOp == StreamOp::add) r[u] = va + vb;
      if constexpr (kOp == StreamOp::triad) r[u] = vb + vs * vc;
      if constexpr (kOp == StreamOp::nstream) r[u] = va + (vb + vs * vc);
    }
    for (std::size_t u = 0; u < 4; ++u) store(out + i + u * lanes, r[u]);
  }
  for (; i + lanes <= hi; i += lanes) {
    V va, vb, vc, r;
    std::memcpy(&va, a + i, sizeof(V));
    std::memcpy(&vb, b + i, sizeof(V));
    std::memcpy(&vc, c + i, sizeof(V));
    if constexpr (kOp == StreamOp::copy) r = va;
    if constexpr (kOp == StreamOp::mul) r = vs * vc;
    if constexpr (kOp == StreamOp::add) r = va + vb;
    if constexpr (kOp == StreamOp::triad) r = vb + vs * vc;
    if constexpr (kOp == StreamOp::nstream) r = va + (vb + vs * vc);
    store(out + i, r);
  }
  for (; i < hi; ++i) out[i] = element<kOp>(a, b, c, s, i);
}

template <class V, class T, class Store>
inline void nt_dispatch(StreamOp op, T* a, T* b, T* c, T s, std::size_t lo, std::size_t hi,
                        Store store) {
  switch (op) {
    case StreamOp::copy: nt_range<StreamOp::copy, V>(a, b, c, s, lo, hi, store); break;
    case StreamOp::mul: nt_range<StreamOp::mul, V>(a, b, c, s, lo, hi, store); break;
    case StreamOp::add: nt_range<StreamOp::add, V>(a, b, c, s, lo, hi, store); break;
    case StreamOp::triad: nt_range<StreamOp::triad, V>(a, b, c, s, lo, hi, store); break;
    case StreamOp::nstream: nt_range<StreamOp::nstream, V>(a, b, c, s, lo, hi, store); break;
    case StreamOp::dot: break;
  }
  _mm_sfence();  // streaming stores are weakly ordered: visible before the parallel region ends
}

using v8d = double __attribute__((vector_size(64)));
using v16f = float __attribute__((vector_size(64)));
using v4d = double __attribute__((vector_size(32)));
using v8f = float __attribute__((vector_size(32)));
using v2d = double __attribute__((vector_size(16)));
using v4f = float __attribute__((vector_size(16)));

// The streaming stores, one per ISA and type (the intrinsics need the ISA's target; the range
// functions below are flattened, so that each is inlined there).
struct StoreAvx512 {
  [[gnu::target("avx512f")]] void operator()(double* p, v8d v) const { _mm512_stream_pd(p, v); }
  [[gnu::target("avx512f")]] void operator()(float* p, v16f v) const { _mm512_stream_ps(p, v); }
};
struct StoreAvx2 {
  [[gnu::target("avx2")]] void operator()(double* p, v4d v) const { _mm256_stream_pd(p, v); }
  [[gnu::target("avx2")]] void operator()(float* p, v8f v) const { _mm256_stream_ps(p, v); }
};
struct StoreSse2 {
  void operator()(double* p, v2d v) const { _mm_stream_pd(p, v); }
  void operator()(float* p, v4f v) const { _mm_stream_ps(p, v); }
};

template <class T>
[[gnu::target("avx512f"), gnu::flatten]] void nt_avx512(StreamOp op, T* a, T* b, T* c, T s,
                                                        std::size_t lo, std::size_t hi) {
  using V = std::conditional_t<sizeof(T) == 8, v8d, v16f>;
  nt_dispatch<V>(op, a, b, c, s, lo, hi, StoreAvx512{});
}
template <class T>
[[gnu::target("avx2"), gnu::flatten]] void nt_avx2(StreamOp op, T* a, T* b, T* c, T s,
                                                   std::size_t lo, std::size_t hi) {
  using V = std::conditional_t<sizeof(T) == 8, v4d, v8f>;
  nt_dispatch<V>(op, a, b, c, s, lo, hi, StoreAvx2{});
}
template <class T>
[[gnu::flatten]] void nt_sse2(StreamOp op, T* a, T* b, T* c, T s, std::size_t lo, std::size_t hi) {
  using V = std::conditional_t<sizeof(T) == 8, v2d, v4f>;
  nt_dispatch<V>(op, a, b, c, s, lo, hi, StoreSse2{});
}

template <class T>
void stream_nt(StreamOp op, T* a, T* b, T* c, T s, std::size_t n) {
  if (op == StreamOp::dot) throw std::invalid_argument("non-temporal STREAM: dot writes no array");
  const auto range = __builtin_cpu_supports("avx512f") ? nt_avx512<T>
                     : __builtin_cpu_supports("avx2")  ? nt_avx2<T>
                                                       : nt_sse2<T>;
  for_each_thread_range(n, [&](std::size_t lo, std::size_t hi) { range(op, a, b, c, s, lo, hi); });
}

}  // namespace

const char* stream_host_nt_isa() {
  return __builtin_cpu_supports("avx512f") ? "avx512"
         : __builtin_cpu_supports("avx2")  ? "avx2"
                                           : "sse2";
}

void stream_host_nt(StreamOp op, double* a, double* b, double* c, double s, std::size_t n) {
  stream_nt(op, a, b, c, s, n);
}
void stream_host_nt(StreamOp op, float* a, float* b, float* c, float s, std::size_t n) {
  stream_nt(op, a, b, c, s, n);
}

}  // namespace bb::kernels
