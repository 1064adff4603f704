// Memory-hierarchy kernels: repeated reads of a working set (bandwidth per level), strided reads
// (access granularity) and pointer chases (latency per level). Host versions always
// (kernels/hierarchy_host.cpp); CUDA launchers in CUDA builds (kernels/hierarchy.cu).
#pragma once

#include <cstddef>
#include <cstdint>

struct CUstream_st;

namespace bb::kernels {

// Host: every OpenMP thread sums its static share of x[0, n) `passes` times with 64 independent
// partial sums (vectorised; the add latency never bounds a cache level's bandwidth) and the
// threads' totals are added in thread order. Exact for small-integer data.
// Versions: 1 = GCC vector extensions, target_clones for AVX-512 / AVX2 / SSE2.
double read_host(const double* x, std::size_t n, int passes);

// Host: Σ x[i·stride] for i in [0, accesses), the accesses split statically over the threads.
double strided_read_host(const double* x, std::size_t accesses, std::size_t stride);

// Host pointer chase: follows next[] `steps` times from index `start` and returns where it ended
// (the next sample starts there: successive samples walk on around the cycle).
std::uint32_t chase_host(const std::uint32_t* next, std::uint64_t steps, std::uint32_t start = 0);

// CUDA read: the working set of n16 16-byte words (float4) is split into `blocks` contiguous
// chunks; block b reads chunk b `passes` times with loads cached in L2 only (ld.global.cg: a
// working set that fits the L2 is served by it from the second pass on; the per-SM L1s, which
// would add a step at SMs × L1 just below the L2 size, are left out), adds the four components of
// every load and writes its total to out[b].
// `threads` a power of two ≤ 1024.
void read_cuda(const void* x, std::size_t n16, int passes, double* out, int blocks, int threads,
               CUstream_st* stream);

// CUDA pointer chase: one thread follows next[] `steps` times from *position and stores where it
// ended back into *position.
void chase_cuda(const std::uint32_t* next, std::uint64_t steps, std::uint32_t* position,
                CUstream_st* stream);

// CUDA strided read: reads x[i·stride] (4-byte floats) for i in [0, accesses), each block adding
// up its share and writing its total to out[blockIdx]. Rounds of threads × 8 accesses per block:
// access i belongs to block (i mod (blocks × threads × 8)) / (threads × 8), and each warp reads 8
// consecutive groups of 32 (lane l: base + l, base + 32 + l, …, base + 224 + l).
// Each thread issues its 8 loads before it adds any, into independent partial sums: the bytes in
// flight that DRAM bandwidth
// needs (Little's law: BW × latency, 4.8 TB/s × ~0.6 µs ≈ 2.9 MB on an H200; 2 blocks of 1024
// per SM at 32 registers keep 64 warps × 8 × 128 B = 64 KiB per SM, ≈ 8.6 MB over 132 SMs, at
// stride 1 — an estimate from the SASS, not a measurement). One load at a time kept 1.08 MB in
// flight: stride 1 latency-bound at ≈ 1.7–2.2 TB/s.
// `threads` a power of two, 32 … 1024.
inline constexpr int kStridedLoadsInFlight = 8;
void strided_read_cuda(const float* x, std::size_t accesses, std::size_t stride, double* out,
                       int blocks, int threads, CUstream_st* stream);

}  // namespace bb::kernels
