// Arithmetic-intensity kernels (mixbench-style; Konstantinidis & Cotronis 2017): every element is
// loaded once, put through k dependent fused multiply-adds x = x·a + b, and stored back in place,
// so bytes per element are fixed (2 × element size) while flop per element = 2k.
#pragma once

#include <cstddef>

struct CUstream_st;
struct cublasContext;  // cublasHandle_t is cublasContext*

namespace bb::kernels {

// Host: OpenMP static split; AVX-512 (8 vectors in flight), AVX2+FMA (8 vectors) or scalar
// std::fma, picked at run time. Results are bit-identical on every path (each step is one
// correctly rounded fma). Versions: 1 = intrinsics, 8 independent vector chains per thread.
void fma_chain_host(double* x, std::size_t n, int k, double a, double b);
void fma_chain_host(float* x, std::size_t n, int k, float a, float b);
// The instruction set the host kernels use here: "avx512f", "avx2+fma" or "scalar".
const char* fma_chain_host_isa();

// CUDA: grid-stride, each thread carries 4 independent elements through the chain (fp64, fp32;
// fp16 and bf16 as pairs: __half2 / __nv_bfloat162 with __hfma2, counting 2 flop per lane).
// `x` holds n elements of the type (n even for the paired types).
enum class FmaType { fp64, fp32, fp16, bf16 };
void fma_chain_cuda(FmaType type, void* x, std::size_t n, int k, double a, double b, int blocks,
                    int threads, CUstream_st* stream);
// Throws std::invalid_argument for k < 0, blocks < 1, threads outside [1, 1024], x null (n > 0)
// or not aligned to the element (pair), n odd for fp16/bf16, or a, b not exact in the type.

// The GEMM ceiling per precision: cuBLAS C = A·B for square n×n column-major matrices, through
// cublasGemmEx. Inputs, accumulation (compute type) and output:
//   fp64: fp64, CUBLAS_COMPUTE_64F, fp64          fp32: fp32, CUBLAS_COMPUTE_32F_PEDANTIC, fp32
//   tf32: fp32 rounded to tf32 in the tensor cores, CUBLAS_COMPUTE_32F_FAST_TF32, fp32
//   fp16: fp16, CUBLAS_COMPUTE_32F, fp16          bf16: bf16, CUBLAS_COMPUTE_32F, bf16
enum class GemmPrecision { fp64, fp32, tf32, fp16, bf16 };

// Unit roundoffs of the GEMM's error model (reference::gemm_entry_reference): each input on its
// way into the multiplier, the accumulator, the output. tf32 keeps 10 of fp32's 23 fraction bits:
// 2^-10 covers both rounding and truncation. Tensor cores accumulate fp32 with truncation, not
// rounding (Fasi, Higham, Mikaitis & Pranesh, "Numerical behavior of NVIDIA tensor cores", PeerJ
// Comput. Sci. 7:e330, 2021): 2^-23 rather than 2^-24 for tf32, fp16 and bf16.
struct GemmRoundoffs {
  double input;
  double accumulate;
  double output;
};
constexpr GemmRoundoffs gemm_roundoffs(GemmPrecision p) {
  switch (p) {
    case GemmPrecision::fp64: return {0, 0x1p-53, 0x1p-53};
    case GemmPrecision::fp32: return {0, 0x1p-24, 0x1p-24};
    case GemmPrecision::tf32: return {0x1p-10, 0x1p-23, 0x1p-24};
    case GemmPrecision::fp16: return {0, 0x1p-23, 0x1p-11};
    case GemmPrecision::bf16: return {0, 0x1p-23, 0x1p-8};
  }
  return {1, 1, 1};
}

// A cuBLAS handle and its own workspace (32 MiB, cuBLAS's recommendation for Hopper), owned by
// whoever runs GEMMs (a case instance): no global state. Its math mode forbids reductions in the
// output type (CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION), which the error model assumes.
// Create it with the intended device current.
class CublasHandle {
 public:
  CublasHandle();
  ~CublasHandle();  // never throws; a failing release is reported on stderr
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;

  cublasContext* get() const { return handle_; }  // cublasHandle_t
  void* workspace() const { return workspace_; }
  std::size_t workspace_bytes() const { return workspace_bytes_; }
  // Points the handle at `stream` with its own workspace (cublasSetStream, which resets the
  // workspace, then cublasSetWorkspace) only when the stream changes: host API calls stay out of
  // the timed launches (the warm-up sample, on the same stream, binds it).
  void bind(CUstream_st* stream);

 private:
  void release() noexcept;
  cublasContext* handle_ = nullptr;
  void* workspace_ = nullptr;
  std::size_t workspace_bytes_ = 0;
  bool bound_ = false;
  CUstream_st* stream_ = nullptr;
};

// Enqueues C = A·B on `stream` (alpha 1, beta 0: C is written, never read). Throws
// std::invalid_argument for n < 1 or null matrices; every cuBLAS status is checked.
void gemm_cuda(GemmPrecision p, int n, const void* a, const void* b, void* c, CublasHandle& handle,
               CUstream_st* stream);

}  // namespace bb::kernels
