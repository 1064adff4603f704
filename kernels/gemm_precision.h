// The GEMM precision matrix: one C = A·B per precision mode of cuBLAS / cuBLASLt, and a host fp32
// GEMM, each with the error model its bound is computed from (theory/gemm_error.h). Layout "TN" for
// every mode (reference/gemm.h): A m×k row by row, B k×n column by column, C m×n column-major.
//
// Modes (kernels/gemm_precision.cu):
//   fp64       cublasGemmEx, fp64 data, CUBLAS_COMPUTE_64F
//   fp32       cublasGemmEx, fp32 data, CUBLAS_COMPUTE_32F_PEDANTIC (no tensor cores)
//   tf32       cublasGemmEx, fp32 data, CUBLAS_COMPUTE_32F_FAST_TF32 (inputs cut to tf32 inside)
//   fast-bf16  cublasGemmEx, fp32 data, CUBLAS_COMPUTE_32F_FAST_16BF (inputs cut to bf16 inside)
//   bf16x9     cublasGemmEx, fp32 data, CUBLAS_COMPUTE_32F_EMULATED_16BFX9 (each input split into
//              three bf16; Blackwell only — SKIP elsewhere)
//   fp16, bf16 cublasGemmEx, 16-bit data, CUBLAS_COMPUTE_32F, fp32 output
//   e4m3, e4m3-fast-accum  cuBLASLt, E4M3 data with per-tensor scales, CUBLAS_COMPUTE_32F, fp32
//              output, CUBLASLT_MATMUL_DESC_FAST_ACCUM 0 / 1 (sm_89+; K a multiple of 16)
// Host (kernels/gemm_precision_host.cpp): fp32 data, products and sums rounded to fp32, each entry
// summed in k order.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "reference/gemm.h"
#include "theory/gemm_error.h"
#include "theory/peaks.h"

struct CUstream_st;

namespace bb::kernels {

enum class GemmMode { fp64, fp32, tf32, fast_bf16, bf16x9, fp16, bf16, e4m3, e4m3_fast_accum };

struct GemmModeSpec {
  GemmMode mode;
  const char* name;
  reference::GemmStorage input;  // what A and B hold
  bool fp64_output;              // C in fp64 (fp64 mode), else fp32
  theory::Precision peak;        // whose peak bounds its TFLOP/s (GpuDevice::peak_flop_per_s)
  const char* library;           // the call and compute type, for reports
  theory::GemmErrorModel model;  // the rounding its bound assumes
  const char* model_source;      // where the model's numbers come from
};

// Tensor cores accumulate in fp32 with truncation (Fasi, Higham, Mikaitis & Pranesh, "Numerical
// behavior of NVIDIA tensor cores", PeerJ Comput. Sci. 7:e330, 2021): 2^-23, not 2^-24. Their fp32
// → tf32 / bf16 input conversion is not documented: the truncation unit 2^(1−p) covers both
// rounding and truncation. fp8 (Hopper): products summed 32 per instruction into an accumulator
// that keeps about 14 bits (DeepSeek-V3 report, §3.3.2; to verify on the GPU), each product aligned
// and truncated (theory::gemm_roundings charges one 2^-13 per product in the stage); cuBLASLt
// promotes into fp32 (round to nearest) unless fast accumulation is on —
// its interval is not documented: 128 products is assumed (DeepSeek's choice).
inline constexpr double kTensorAccumulate = 0x1p-23;
inline constexpr GemmModeSpec kGemmModes[] = {
    {GemmMode::fp64,
     "fp64",
     reference::GemmStorage::fp64,
     true,
     theory::Precision::fp64,
     "cublasGemmEx CUBLAS_COMPUTE_64F",
     {0, 0, 0x1p-53, 1, 0, 0, 0, 0},
     "fp64 arithmetic, u = 2^-53"},
    {GemmMode::fp32,
     "fp32",
     reference::GemmStorage::fp32,
     false,
     theory::Precision::fp32,
     "cublasGemmEx CUBLAS_COMPUTE_32F_PEDANTIC",
     {0, 0, 0x1p-24, 1, 0, 0, 0, 0},
     "fp32 FMA on CUDA cores, u = 2^-24"},
    {GemmMode::tf32,
     "tf32",
     reference::GemmStorage::fp32,
     false,
     theory::Precision::tf32,
     "cublasGemmEx CUBLAS_COMPUTE_32F_FAST_TF32",
     {0x1p-10, 0, kTensorAccumulate, 1, 0, 0, 0, 0, true},
     "inputs cut to tf32 (2^(1-11)), tensor-core fp32 accumulation with truncation (2^-23)"},
    {GemmMode::fast_bf16,
     "fast-bf16",
     reference::GemmStorage::fp32,
     false,
     theory::Precision::bf16,
     "cublasGemmEx CUBLAS_COMPUTE_32F_FAST_16BF",
     {0x1p-7, 0, kTensorAccumulate, 1, 0, 0, 0, 0, true},
     "inputs cut to bf16 (2^(1-8)), tensor-core fp32 accumulation with truncation (2^-23)"},
    {GemmMode::bf16x9,
     "bf16x9",
     reference::GemmStorage::fp32,
     false,
     theory::Precision::bf16,
     "cublasGemmEx CUBLAS_COMPUTE_32F_EMULATED_16BFX9",
     {0, 0x1p-6, kTensorAccumulate, 9, 0, 0, 0, 0, true},
     "x = x0 + x1 + x2 in bf16 exactly, sum of |pieces| <= (1 + 2^-6)|x|; 9k exact products "
     "accumulated in fp32 with truncation (2^-23)"},
    {GemmMode::fp16,
     "fp16",
     reference::GemmStorage::fp16,
     false,
     theory::Precision::fp16,
     "cublasGemmEx CUDA_R_16F inputs, CUBLAS_COMPUTE_32F, fp32 output",
     {0, 0, kTensorAccumulate, 1, 0, 0, 0, 0, true},
     "exact products, tensor-core fp32 accumulation (2^-23)"},
    {GemmMode::bf16,
     "bf16",
     reference::GemmStorage::bf16,
     false,
     theory::Precision::bf16,
     "cublasGemmEx CUDA_R_16BF inputs, CUBLAS_COMPUTE_32F, fp32 output",
     {0, 0, kTensorAccumulate, 1, 0, 0, 0, 0, true},
     "exact products, tensor-core fp32 accumulation (2^-23)"},
    {GemmMode::e4m3,
     "e4m3",
     reference::GemmStorage::e4m3,
     false,
     theory::Precision::fp8,
     "cublasLtMatmul E4M3 x E4M3, scales, CUBLAS_COMPUTE_32F, fp32 output, FAST_ACCUM 0",
     {0, 0, 0x1p-24, 1, 0, 0x1p-13, 32, 128, true},
     "exact products; 32 per instruction into a ~14-bit accumulator (2^-13), promoted to fp32 "
     "every "
     "128 (assumed)"},
    {GemmMode::e4m3_fast_accum,
     "e4m3-fast-accum",
     reference::GemmStorage::e4m3,
     false,
     theory::Precision::fp8,
     "cublasLtMatmul E4M3 x E4M3, scales, CUBLAS_COMPUTE_32F, fp32 output, FAST_ACCUM 1",
     {0, 0, 0x1p-24, 1, 0, 0x1p-13, 32, 0, true},
     "exact products; 32 per instruction into a ~14-bit accumulator (2^-13), never promoted"},
};

inline const GemmModeSpec& gemm_mode_spec(GemmMode m) {
  for (const auto& s : kGemmModes)
    if (s.mode == m) return s;
  return kGemmModes[0];
}

// The host fp32 GEMM's model: products and sums rounded to nearest fp32, γ_k(2^-24).
inline constexpr theory::GemmErrorModel kHostFp32Model{0, 0, 0x1p-24, 1, 0, 0, 0, 0};

// Host: C = A·B in fp32, each entry a recursive sum in k order of fl(a·b) (no FMA: the project
// compiles with -ffp-contract=off). OpenMP over rows of C; B is packed k-major once per call so
// that a row of C is a vector of independent sums. Throws std::invalid_argument for m, n, k < 1.
void gemm_fp32_host(const float* a, const float* b, float* c, int m, int n, int k);

// CUDA (gemm_precision.cu). Why the mode cannot run on a device of this compute capability at
// inner dimension k, from what is known without asking the library (nullopt: ask it).
std::optional<std::string> gemm_device_unsupported(GemmMode mode, int cc_major, int cc_minor,
                                                   int k);

// A runner owns the cuBLAS and cuBLASLt handles, their workspace and the
// fp8 scale scalars on the device; create it with the intended device current.
class GemmRunner {
 public:
  GemmRunner();
  ~GemmRunner();
  GemmRunner(const GemmRunner&) = delete;
  GemmRunner& operator=(const GemmRunner&) = delete;

  // Why the mode cannot run here at this size (the device's compute capability, K not a multiple
  // of 16 for fp8, the library answering CUBLAS_STATUS_NOT_SUPPORTED or no cuBLASLt algorithm),
  // or nullopt when it can. Runs the GEMM once on the given operands to find out (C is written).
  std::optional<std::string> unsupported(GemmMode mode, int m, int n, int k, const void* a,
                                         const void* b, void* c);
  // fp8: the descale factors the library multiplies the product by (1 / each input's scale).
  void set_fp8_descales(double a_descale, double b_descale);
  // Enqueues C = A·B on `stream`. Throws on any failing CUDA / cuBLAS status (including a mode
  // this device does not support: call unsupported() first).
  void run(GemmMode mode, int m, int n, int k, const void* a, const void* b, void* c,
           CUstream_st* stream);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace bb::kernels
