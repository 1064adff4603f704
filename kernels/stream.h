// STREAM kernels (theory/stream.h): host (OpenMP, vectorised) and CUDA launchers. The CUDA
// launchers exist only in CUDA builds (kernels/stream.cu); the host kernels always
// (kernels/stream_host.cpp). Arrays a, b, c as in BabelStream; each op reads and writes the arrays
// its formula names.
#pragma once

#include <cstddef>
#include <cstdint>

#include "theory/stream.h"

struct CUstream_st;

namespace bb::kernels {

using theory::StreamOp;

// Host: OpenMP threads (static schedule: the same split as the first-touch fills), vectorised for
// AVX-512, AVX2 or SSE2 at run time. `op` is copy, mul, add, triad or nstream.
// Versions: 1 = plain loops, compiler-vectorised, plain stores.
void stream_host(StreamOp op, double* a, double* b, double* c, double s, std::size_t n);
void stream_host(StreamOp op, float* a, float* b, float* c, float s, std::size_t n);
// The same with non-temporal (streaming) stores for the written array (kernels/stream_nt_host.cpp):
// no write-allocate read, so the bytes moved are the STREAM count. Not dot (it writes nothing:
// std::invalid_argument). stream_host_nt_isa() names the vector width used.
void stream_host_nt(StreamOp op, double* a, double* b, double* c, double s, std::size_t n);
void stream_host_nt(StreamOp op, float* a, float* b, float* c, float s, std::size_t n);
const char* stream_host_nt_isa();

// Host dot product Σ a_i b_i in the element type, each thread over its static share with
// kDotHostLanes independent partial sums (so that the add latency does not bound the bandwidth).
inline constexpr std::size_t kDotHostLanes = 64;
double dot_host(const double* a, const double* b, std::size_t n);
float dot_host(const float* a, const float* b, std::size_t n);
// The most roundings a term of dot_host goes through (reference::dot_abs_tolerance).
std::size_t dot_host_depth(std::size_t n, int threads);

// Fills x[i] = value(seed, i) in parallel with the same static schedule as the kernels, so each
// page is first touched by the thread that will stream it.
void fill_random_host(double* x, std::size_t n, std::uint64_t seed);
void fill_random_host(float* x, std::size_t n, std::uint64_t seed);
void fill_value_host(double* x, std::size_t n, double value);
void fill_value_host(float* x, std::size_t n, float value);

// CUDA: grid-stride loops of `access_bytes`-wide loads and stores (4, 8 or 16 bytes per thread
// access; at least the element size). `blocks` × `threads` threads.
// Versions: 1 = vectorised grid-stride, scalar tail.
void stream_cuda(StreamOp op, int access_bytes, double* a, double* b, double* c, double s,
                 std::size_t n, int blocks, int threads, CUstream_st* stream);
void stream_cuda(StreamOp op, int access_bytes, float* a, float* b, float* c, float s,
                 std::size_t n, int blocks, int threads, CUstream_st* stream);

// CUDA dot: each thread sums its grid-stride share in the element type, each block reduces its
// threads (shared-memory tree) and writes partial[blockIdx] as a double; the caller sums the
// `blocks` partials. `threads` a power of two ≤ 1024.
void dot_cuda(int access_bytes, const double* a, const double* b, std::size_t n, double* partial,
              int blocks, int threads, CUstream_st* stream);
void dot_cuda(int access_bytes, const float* a, const float* b, std::size_t n, double* partial,
              int blocks, int threads, CUstream_st* stream);
// The most roundings a term of dot_cuda goes through before the partials are summed in long double.
std::size_t dot_cuda_depth(std::size_t n, int access_bytes, std::size_t element_bytes, int blocks,
                           int threads);

}  // namespace bb::kernels
