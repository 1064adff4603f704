// CUDA memory-hierarchy kernels. Versions: 1 = read with float4 ld.global.cg loads (L2, not L1)
// per block chunk, strided scalar loads (8 independent loads in flight per thread), a one-thread
// pointer chase; block totals by a shared-memory tree in double.
#include <bit>

#include "base/cuda_check.h"
#include "kernels/hierarchy.h"

namespace bb::kernels {
namespace {

// The block's total of one value per thread, written by thread 0.
__device__ void block_total(double v, double* out) {
  __shared__ double tree[1024];
  tree[threadIdx.x] = v;
  __syncthreads();
  for (unsigned w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) tree[threadIdx.x] += tree[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = tree[0];
}

__global__ void read_kernel(const float4* __restrict__ x, std::size_t n16, int passes,
                            double* __restrict__ out) {
  const std::size_t chunk = (n16 + gridDim.x - 1) / gridDim.x;
  const std::size_t begin = blockIdx.x * chunk;
  const std::size_t end = begin + chunk < n16 ? begin + chunk : n16;
  float sum = 0;  // exact: the data are small integers and each thread's total stays below 2^24
  for (int p = 0; p < passes; ++p)
    for (std::size_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
      const float4 v = __ldcg(x + i);  // cached in L2 only: the sweep sees L2, then DRAM
      sum += (v.x + v.y) + (v.z + v.w);
    }
  block_total(sum, out);
}

// Warp w of the grid (its blocks' warps in order) reads, per round, kStridedLoads × 32 consecutive
// accesses: lane l the accesses base + l, base + 32 + l, …, base + 7·32 + l (base = w · 256, then
// + 256 × warps in the grid per round), each warp load one coalesced access pattern. The
// kStridedLoads loads are issued before any is added, into independent partial sums, so that each
// thread keeps kStridedLoads loads in flight (one at a time leaves a stride-1 read latency-bound
// far below DRAM bandwidth: kernels/hierarchy.h), and the bytes in flight at any moment are one
// contiguous stretch of the array: loads spaced a grid apart (i, i + step, …) kept 8 streams a
// grid apart open at once, and GPGPU-Sim's SM86_RTX3070 read stride 1 that way at 94 GB/s (21%
// of its DRAM peak, 101,043 cycles for 2^21 floats) while its STREAM copy reached 420 GB/s. The
// last round's loads past the end are predicated off, still issued together.
constexpr int kStridedLoads = kStridedLoadsInFlight;

__global__ void strided_kernel(const float* __restrict__ x, std::size_t accesses,
                               std::size_t stride, double* __restrict__ out) {
  constexpr unsigned per_warp = 32 * kStridedLoads;  // accesses a warp reads per round
  // The first access, warp · 256 + lane, in 32 bits (a grid has far fewer than 2^32 / 8 threads)
  // and with its add written out: nvcc packs the two disjoint bit fields with bfi.b64 (in 64 bits)
  // or prmt.b32 (in 32), and GPGPU-Sim mis-executes both (instructions.cc bfi_impl shifts 32-bit
  // masks by up to 63; prmt: kernels/quant.cu): lanes read other lanes' accesses and the strided
  // read's validation FAILed there.
  const unsigned thread = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned first32 = 0;
  asm("add.u32 %0, %1, %2;" : "=r"(first32) : "r"(thread / 32 * per_warp), "r"(thread % 32));
  const std::size_t first = first32;
  const std::size_t round = static_cast<std::size_t>(gridDim.x) * blockDim.x / 32 * per_warp;
  float part[kStridedLoads] = {};  // exact: small integers, each thread's total below 2^24
  for (std::size_t base = first; base < accesses; base += round) {
    float v[kStridedLoads];
#pragma unroll
    for (int u = 0; u < kStridedLoads; ++u) {  // all issued,
      const std::size_t i = base + static_cast<std::size_t>(u) * 32;
      v[u] = i < accesses ? x[i * stride] : 0.0f;
    }
#pragma unroll
    for (int u = 0; u < kStridedLoads; ++u) part[u] += v[u];  // then waited for
  }
  float sum = 0;
#pragma unroll
  for (int u = 0; u < kStridedLoads; ++u) sum += part[u];
  block_total(sum, out);
}

__global__ void chase_kernel(const std::uint32_t* __restrict__ next, std::uint64_t steps,
                             std::uint32_t* position) {
  std::uint32_t p = *position;
  for (std::uint64_t s = 0; s < steps; ++s) p = next[p];
  *position = p;
}

void check_block(const char* what, int blocks, int threads) {
  if (blocks < 1 || threads < 1 || threads > 1024 ||
      !std::has_single_bit(static_cast<unsigned>(threads)))
    throw std::invalid_argument(std::string(what) +
                                ": blocks >= 1 and threads a power of two <= 1024");
}

}  // namespace

void read_cuda(const void* x, std::size_t n16, int passes, double* out, int blocks, int threads,
               CUstream_st* stream) {
  check_block("read_cuda", blocks, threads);
  if (reinterpret_cast<std::uintptr_t>(x) % 16 != 0 || passes < 1)
    throw std::invalid_argument("read_cuda: 16-byte aligned data and passes >= 1");
  read_kernel<<<blocks, threads, 0, stream>>>(static_cast<const float4*>(x), n16, passes, out);
  check_launch("read_kernel");
}

void strided_read_cuda(const float* x, std::size_t accesses, std::size_t stride, double* out,
                       int blocks, int threads, CUstream_st* stream) {
  check_block("strided_read_cuda", blocks, threads);
  // The indexing strides by whole warps: a partial warp would re-read its neighbours' accesses.
  if (stride < 1 || threads < 32 || threads % 32 != 0)
    throw std::invalid_argument(
        "strided_read_cuda: stride >= 1 and whole warps (threads a multiple of 32)");
  strided_kernel<<<blocks, threads, 0, stream>>>(x, accesses, stride, out);
  check_launch("strided_kernel");
}

void chase_cuda(const std::uint32_t* next, std::uint64_t steps, std::uint32_t* position,
                CUstream_st* stream) {
  chase_kernel<<<1, 1, 0, stream>>>(next, steps, position);
  check_launch("chase_kernel");
}

}  // namespace bb::kernels
