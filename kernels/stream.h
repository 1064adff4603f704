// STREAM kernels: host (OpenMP, vectorised) and CUDA launchers. The CUDA launchers exist only in
// CUDA builds (kernels/stream.cu); the host kernels always (kernels/stream_host.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

struct CUstream_st;

namespace bb::kernels {

// Host triad a[i] = b[i] + s*c[i] over OpenMP threads (static schedule: the same split as the
// first-touch initialisation), vectorised for AVX-512, AVX2 or SSE2 at run time.
void triad_host(double* a, const double* b, const double* c, double s, std::size_t n);
void triad_host(float* a, const float* b, const float* c, float s, std::size_t n);

// Fills x[i] = value(seed, i) in parallel with the same static schedule as triad_host, so each
// page is first touched by the thread that will stream it.
void fill_random_host(double* x, std::size_t n, std::uint64_t seed);
void fill_random_host(float* x, std::size_t n, std::uint64_t seed);
void fill_value_host(double* x, std::size_t n, double value);
void fill_value_host(float* x, std::size_t n, float value);

// CUDA triad: 16-byte accesses (double2 / float4), grid-stride; `blocks` × `threads` threads.
// Versions: 1 = vectorised grid-stride (this one).
void triad_cuda(double* a, const double* b, const double* c, double s, std::size_t n, int blocks,
                int threads, CUstream_st* stream);
void triad_cuda(float* a, const float* b, const float* c, float s, std::size_t n, int blocks,
                int threads, CUstream_st* stream);

}  // namespace bb::kernels

namespace bb::kernels {

// Host streaming read: the sum of x[0..n) over OpenMP threads (static split), vectorised.
double read_sum_host(const double* x, std::size_t n);

// Host pointer chase: follows next[] `steps` times from index 0 and returns where it ended.
std::uint32_t chase_host(const std::uint32_t* next, std::uint64_t steps);

}  // namespace bb::kernels
