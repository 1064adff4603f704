// CUDA arithmetic-intensity kernels and the cuBLAS GEMM ceiling.
// Versions: 1 = FMA chain, grid-stride, each thread carries kIlp = 4 independent elements (fp64,
// fp32) or pairs (fp16, bf16: __half2 / __nv_bfloat162 with __hfma2) through k dependent FMAs per
// iteration, in place; a one-at-a-time loop finishes each thread's last (< 4) elements.
// GEMM: cublasGemmEx with the precision's data and compute types (kernels/intensity.h).
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "base/cuda_check.h"
#include "kernels/intensity.h"

namespace bb::kernels {
namespace {

constexpr int kIlp = 4;  // independent chains per thread: FMA latency hidden within a thread too
constexpr int kMaxThreadsPerBlock = 1024;
constexpr std::size_t kCublasWorkspaceBytes = std::size_t{32} << 20;

__device__ inline double fma_step(double x, double a, double b) { return fma(x, a, b); }
__device__ inline float fma_step(float x, float a, float b) { return fmaf(x, a, b); }
__device__ inline __half2 fma_step(__half2 x, __half2 a, __half2 b) { return __hfma2(x, a, b); }
__device__ inline __nv_bfloat162 fma_step(__nv_bfloat162 x, __nv_bfloat162 a, __nv_bfloat162 b) {
  return __hfma2(x, a, b);
}

// x[i] = (x[i]·a + b) applied k times, for i = first, first + stride, … < count.
template <class V>
__global__ void fma_chain_kernel(V* __restrict__ x, std::size_t count, int k, V a, V b) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (kIlp - 1) * stride < count; i += kIlp * stride) {
    V v[kIlp];
#pragma unroll
    for (int u = 0; u < kIlp; ++u) v[u] = x[i + u * stride];
#pragma unroll 4
    for (int j = 0; j < k; ++j) {
#pragma unroll
      for (int u = 0; u < kIlp; ++u) v[u] = fma_step(v[u], a, b);
    }
#pragma unroll
    for (int u = 0; u < kIlp; ++u) x[i + u * stride] = v[u];
  }
  for (; i < count; i += stride) {
    V v = x[i];
    for (int j = 0; j < k; ++j) v = fma_step(v, a, b);
    x[i] = v;
  }
}

// The kernel's vector type from a coefficient, which must be exact in the element type (so that
// the host reference sees the same coefficient).
template <class V>
V splat(double c);
template <>
double splat<double>(double c) {
  return c;
}
template <>
float splat<float>(double c) {
  const auto f = static_cast<float>(c);
  if (static_cast<double>(f) != c)
    throw std::invalid_argument("fma_chain_cuda: coefficient not exact in fp32");
  return f;
}
template <>
__half2 splat<__half2>(double c) {
  const __half h = __double2half(c);
  if (static_cast<double>(__half2float(h)) != c)
    throw std::invalid_argument("fma_chain_cuda: coefficient not exact in fp16");
  return __halves2half2(h, h);
}
template <>
__nv_bfloat162 splat<__nv_bfloat162>(double c) {
  const __nv_bfloat16 h = __double2bfloat16(c);
  if (static_cast<double>(__bfloat162float(h)) != c)
    throw std::invalid_argument("fma_chain_cuda: coefficient not exact in bf16");
  return __halves2bfloat162(h, h);
}

// n elements of the type; V holds `lanes` of them (2 for the paired types).
template <class V>
void launch_chain(void* x, std::size_t n, int lanes, int k, double a, double b, int blocks,
                  int threads, CUstream_st* stream) {
  if (k < 0) throw std::invalid_argument("fma_chain_cuda: k must be >= 0");
  if (blocks < 1) throw std::invalid_argument("fma_chain_cuda: blocks must be >= 1");
  if (threads < 1 || threads > kMaxThreadsPerBlock)
    throw std::invalid_argument("fma_chain_cuda: threads must be in [1, 1024]");
  if (n % lanes != 0)
    throw std::invalid_argument("fma_chain_cuda: n must be even for fp16 and bf16 (pairs)");
  if (n > 0 && x == nullptr) throw std::invalid_argument("fma_chain_cuda: x is null");
  if (reinterpret_cast<std::uintptr_t>(x) % alignof(V) != 0)
    throw std::invalid_argument("fma_chain_cuda: x must be aligned to " +
                                std::to_string(alignof(V)) + " bytes");
  const V va = splat<V>(a), vb = splat<V>(b);
  if (n == 0) return;
  fma_chain_kernel<V><<<blocks, threads, 0, stream>>>(static_cast<V*>(x), n / lanes, k, va, vb);
  check_launch("fma_chain_kernel");
}

struct GemmTypes {
  cudaDataType_t input;
  cudaDataType_t output;
  cublasComputeType_t compute;
};

GemmTypes gemm_types(GemmPrecision p) {
  switch (p) {
    case GemmPrecision::fp64: return {CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F};
    case GemmPrecision::fp32: return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC};
    case GemmPrecision::tf32: return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32};
    case GemmPrecision::fp16: return {CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F};
    case GemmPrecision::bf16: return {CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F};
  }
  throw std::invalid_argument("gemm_cuda: unknown precision");
}

}  // namespace

void fma_chain_cuda(FmaType type, void* x, std::size_t n, int k, double a, double b, int blocks,
                    int threads, CUstream_st* stream) {
  switch (type) {
    case FmaType::fp64: return launch_chain<double>(x, n, 1, k, a, b, blocks, threads, stream);
    case FmaType::fp32: return launch_chain<float>(x, n, 1, k, a, b, blocks, threads, stream);
    case FmaType::fp16: return launch_chain<__half2>(x, n, 2, k, a, b, blocks, threads, stream);
    case FmaType::bf16:
      return launch_chain<__nv_bfloat162>(x, n, 2, k, a, b, blocks, threads, stream);
  }
  throw std::invalid_argument("fma_chain_cuda: unknown type");
}

CublasHandle::CublasHandle() {
  check_cublas(cublasCreate(&handle_), "cublasCreate");
  try {
    check_cublas(cublasSetMathMode(handle_, CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION),
                 "cublasSetMathMode");
    check_cuda(cudaMalloc(&workspace_, kCublasWorkspaceBytes), "cudaMalloc(cuBLAS workspace)");
    workspace_bytes_ = kCublasWorkspaceBytes;
  } catch (...) {
    release();
    throw;
  }
}

CublasHandle::~CublasHandle() { release(); }

void CublasHandle::bind(CUstream_st* stream) {
  if (bound_ && stream_ == stream) return;
  bound_ = false;  // until both calls succeed
  check_cublas(cublasSetStream(handle_, stream), "cublasSetStream");
  // cublasSetStream resets the workspace to cuBLAS's default pool: hand it the handle's own.
  check_cublas(cublasSetWorkspace(handle_, workspace_, workspace_bytes_), "cublasSetWorkspace");
  bound_ = true;
  stream_ = stream;
}

void CublasHandle::release() noexcept {
  // Destructors do not throw: a failing release is reported and otherwise ignored.
  if (workspace_) {
    const cudaError_t status = cudaFree(workspace_);
    if (status != cudaSuccess)
      std::fprintf(stderr, "boundbench: cudaFree(cuBLAS workspace): %s\n",
                   cudaGetErrorString(status));
    workspace_ = nullptr;
  }
  if (handle_) {
    const cublasStatus_t status = cublasDestroy(handle_);
    if (status != CUBLAS_STATUS_SUCCESS)
      std::fprintf(stderr, "boundbench: cublasDestroy: %s\n", cublasGetStatusString(status));
    handle_ = nullptr;
  }
}

void gemm_cuda(GemmPrecision p, int n, const void* a, const void* b, void* c, CublasHandle& handle,
               CUstream_st* stream) {
  if (n < 1) throw std::invalid_argument("gemm_cuda: n must be >= 1");
  if (!a || !b || !c) throw std::invalid_argument("gemm_cuda: null matrix");
  const GemmTypes t = gemm_types(p);
  handle.bind(stream);
  // alpha and beta have the compute type's scalar type: double for 64F, float for the 32F kinds.
  const auto call = [&](auto one) {
    const decltype(one) zero = 0;
    check_cublas(cublasGemmEx(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, t.input, n,
                              b, t.input, n, &zero, c, t.output, n, t.compute, CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx");
  };
  t.compute == CUBLAS_COMPUTE_64F ? call(1.0) : call(1.0f);
}

}  // namespace bb::kernels
