// The GEMM precision matrix on the GPU (kernels/gemm_precision.h): cublasGemmEx for fp64, fp32
// (pedantic), tf32, fast-bf16, bf16x9, fp16 and bf16; cuBLASLt for E4M3 with per-tensor scales and
// fast accumulation off / on. Every call's status is checked; modes this device or library does not
// support are found by GemmRunner::unsupported (a SKIP for the caller), never by a crash.
// No kernels of our own: the versions are the library's.
#include <cublasLt.h>
#include <cublas_v2.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <source_location>
#include <stdexcept>
#include <string>
#include <tuple>

#include "base/cuda_check.h"
#include "kernels/gemm_precision.h"
#include "kernels/intensity.h"

namespace bb::kernels {
namespace {

bool is_fp8(GemmMode m) { return m == GemmMode::e4m3 || m == GemmMode::e4m3_fast_accum; }

struct GemmExTypes {
  cudaDataType_t input;
  cudaDataType_t output;
  cublasComputeType_t compute;
};

GemmExTypes gemm_ex_types(GemmMode m) {
  switch (m) {
    case GemmMode::fp64: return {CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F};
    case GemmMode::fp32: return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC};
    case GemmMode::tf32: return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32};
    case GemmMode::fast_bf16: return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_16BF};
    case GemmMode::bf16x9: return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_EMULATED_16BFX9};
    case GemmMode::fp16: return {CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F};
    case GemmMode::bf16: return {CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F};
    case GemmMode::e4m3:
    case GemmMode::e4m3_fast_accum: break;
  }
  throw std::invalid_argument("gemm_ex_types: not a cublasGemmEx mode");
}

// C = A^T-stored (k×m column-major, i.e. A row by row) times B (k×n column-major): op(A) = T.
cublasStatus_t gemm_ex(cublasHandle_t h, GemmMode mode, int m, int n, int k, const void* a,
                       const void* b, void* c) {
  const GemmExTypes t = gemm_ex_types(mode);
  // alpha and beta have the compute type's scalar type: double for 64F, float for the 32F kinds.
  const auto call = [&](auto one) {
    const decltype(one) zero = 0;
    return cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &one, a, t.input, k, b, t.input, k,
                        &zero, c, t.output, m, t.compute, CUBLAS_GEMM_DEFAULT);
  };
  return t.compute == CUBLAS_COMPUTE_64F ? call(1.0) : call(1.0f);
}

// Destructors do not throw: a failing release is reported and otherwise ignored.
void report(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    std::fprintf(stderr, "boundbench: %s: %s\n", what, cublasGetStatusString(s));
}

// One matmul descriptor attribute, its failure named "cublasLtMatmulDescSetAttribute(<name>)".
template <class V>
void set_attribute(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attribute,
                   const V& value, const char* name,
                   std::source_location loc = std::source_location::current()) {
  check_cublas(cublasLtMatmulDescSetAttribute(desc, attribute, &value, sizeof value),
               std::string("cublasLtMatmulDescSetAttribute(") + name + ")", loc);
}

void check_shape(int m, int n, int k, const void* a, const void* b, const void* c) {
  if (m < 1 || n < 1 || k < 1) throw std::invalid_argument("GemmRunner: m, n, k must be >= 1");
  if (!a || !b || !c) throw std::invalid_argument("GemmRunner: null matrix");
}

bool is_unsupported_status(cublasStatus_t s) {
  return s == CUBLAS_STATUS_NOT_SUPPORTED || s == CUBLAS_STATUS_ARCH_MISMATCH;
}

// A cuBLASLt fp8 matmul for one (mode, m, n, k): descriptors and the heuristic's algorithm, made
// once, so that the timed region holds only the launch.
struct LtPlan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulAlgo_t algo{};
  bool has_algo = false;
  std::string unsupported;  // why no algorithm, if none

  LtPlan() = default;
  LtPlan(const LtPlan&) = delete;
  LtPlan& operator=(const LtPlan&) = delete;
  ~LtPlan() {
    if (c) report(cublasLtMatrixLayoutDestroy(c), "cublasLtMatrixLayoutDestroy");
    if (b) report(cublasLtMatrixLayoutDestroy(b), "cublasLtMatrixLayoutDestroy");
    if (a) report(cublasLtMatrixLayoutDestroy(a), "cublasLtMatrixLayoutDestroy");
    if (desc) report(cublasLtMatmulDescDestroy(desc), "cublasLtMatmulDescDestroy");
  }
};

}  // namespace

struct GemmRunner::Impl {
  CublasHandle cublas;  // handle, 32 MiB workspace, no reduced-precision reductions
  cublasLtHandle_t lt = nullptr;
  float* scales = nullptr;  // device: [0] A's descale, [1] B's descale
  int cc_major = 0, cc_minor = 0;
  cublasEmulationStrategy_t emulation = CUBLAS_EMULATION_STRATEGY_DEFAULT;  // the handle's now
  std::map<std::tuple<int, int, int, int>, std::unique_ptr<LtPlan>> plans;

  Impl() {
    int device = 0;
    check_cuda(cudaGetDevice(&device), "cudaGetDevice");
    check_cuda(cudaDeviceGetAttribute(&cc_major, cudaDevAttrComputeCapabilityMajor, device),
               "cudaDeviceGetAttribute(major)");
    check_cuda(cudaDeviceGetAttribute(&cc_minor, cudaDevAttrComputeCapabilityMinor, device),
               "cudaDeviceGetAttribute(minor)");
    check_cublas(cublasLtCreate(&lt), "cublasLtCreate");
    try {
      check_cuda(cudaMalloc(reinterpret_cast<void**>(&scales), 2 * sizeof(float)),
                 "cudaMalloc(fp8 scales)");
      const float ones[2] = {1, 1};
      check_cuda(cudaMemcpy(scales, ones, sizeof ones, cudaMemcpyHostToDevice),
                 "cudaMemcpy(fp8 scales)");
    } catch (...) {
      release();
      throw;
    }
  }
  ~Impl() { release(); }

  void release() noexcept {
    plans.clear();
    if (scales) {
      const cudaError_t s = cudaFree(scales);
      if (s != cudaSuccess)
        std::fprintf(stderr, "boundbench: cudaFree(fp8 scales): %s\n", cudaGetErrorString(s));
      scales = nullptr;
    }
    if (lt) {
      report(cublasLtDestroy(lt), "cublasLtDestroy");
      lt = nullptr;
    }
  }

  std::string device_cc() const {
    return std::to_string(cc_major) + "." + std::to_string(cc_minor);
  }

  LtPlan& plan(GemmMode mode, int m, int n, int k) {
    const auto key = std::make_tuple(static_cast<int>(mode), m, n, k);
    auto found = plans.find(key);
    if (found != plans.end()) return *found->second;
    // Made aside and kept only once complete: a throwing call leaves no half-made plan behind.
    auto made = std::make_unique<LtPlan>();
    LtPlan& p = *made;
    check_cublas(cublasLtMatmulDescCreate(&p.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F),
                 "cublasLtMatmulDescCreate");
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    set_attribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSA, ta, "TRANSA");
    set_attribute(p.desc, CUBLASLT_MATMUL_DESC_TRANSB, tb, "TRANSB");
    const float* a_scale = scales;
    const float* b_scale = scales + 1;
    set_attribute(p.desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, a_scale, "A_SCALE_POINTER");
    set_attribute(p.desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, b_scale, "B_SCALE_POINTER");
    const std::int8_t fast = mode == GemmMode::e4m3_fast_accum ? 1 : 0;
    set_attribute(p.desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, fast, "FAST_ACCUM");
    // A: k×m column-major (op T), B: k×n column-major, C = D: m×n fp32.
    const auto um = static_cast<std::uint64_t>(m), un = static_cast<std::uint64_t>(n),
               uk = static_cast<std::uint64_t>(k);
    check_cublas(cublasLtMatrixLayoutCreate(&p.a, CUDA_R_8F_E4M3, uk, um, k),
                 "cublasLtMatrixLayoutCreate(A)");
    check_cublas(cublasLtMatrixLayoutCreate(&p.b, CUDA_R_8F_E4M3, uk, un, k),
                 "cublasLtMatrixLayoutCreate(B)");
    check_cublas(cublasLtMatrixLayoutCreate(&p.c, CUDA_R_32F, um, un, m),
                 "cublasLtMatrixLayoutCreate(C)");
    cublasLtMatmulPreference_t pref = nullptr;
    check_cublas(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
    const std::uint64_t workspace = cublas.workspace_bytes();
    cublasStatus_t s = cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof workspace);
    cublasLtMatmulHeuristicResult_t result{};
    int found_count = 0;
    if (s == CUBLAS_STATUS_SUCCESS)
      s = cublasLtMatmulAlgoGetHeuristic(lt, p.desc, p.a, p.b, p.c, p.c, pref, 1, &result,
                                         &found_count);
    const cublasStatus_t destroyed = cublasLtMatmulPreferenceDestroy(pref);
    // NOT_SUPPORTED / ARCH_MISMATCH: a SKIP that names the status. Anything else (INVALID_VALUE
    // from a wrong descriptor included) is an error: fp8 coverage must not vanish quietly.
    if (is_unsupported_status(s)) {
      p.unsupported =
          std::string("cuBLASLt heuristic for E4M3 x E4M3 -> fp32: ") + cublasGetStatusString(s);
    } else {
      check_cublas(s, "cublasLtMatmulAlgoGetHeuristic");
      check_cublas(destroyed, "cublasLtMatmulPreferenceDestroy");
      if (found_count < 1 || result.state != CUBLAS_STATUS_SUCCESS) {
        p.unsupported =
            "cuBLASLt has no E4M3 algorithm for this shape on compute capability " + device_cc();
      } else {
        p.algo = result.algo;
        p.has_algo = true;
      }
    }
    return *(plans[key] = std::move(made));
  }

  cublasStatus_t launch(GemmMode mode, int m, int n, int k, const void* a, const void* b, void* c,
                        cudaStream_t stream) {
    if (is_fp8(mode)) {
      LtPlan& p = plan(mode, m, n, k);
      if (!p.has_algo) return CUBLAS_STATUS_NOT_SUPPORTED;
      const float one = 1, zero = 0;
      return cublasLtMatmul(lt, p.desc, &one, a, p.a, b, p.b, &zero, c, p.c, c, p.c, &p.algo,
                            cublas.workspace(), cublas.workspace_bytes(), stream);
    }
    cublasHandle_t h = cublas.get();
    cublas.bind(stream);  // host calls only when the stream changes, not in every timed launch
    // bf16x9: emulate whenever the library can (the default "performant" strategy may run native
    // fp32); the other modes keep the default. Set only when it changes, like the stream.
    const cublasEmulationStrategy_t wanted = mode == GemmMode::bf16x9
                                                 ? CUBLAS_EMULATION_STRATEGY_EAGER
                                                 : CUBLAS_EMULATION_STRATEGY_DEFAULT;
    if (wanted != emulation) {
      check_cublas(cublasSetEmulationStrategy(h, wanted), "cublasSetEmulationStrategy");
      emulation = wanted;
    }
    return gemm_ex(h, mode, m, n, k, a, b, c);
  }
};

GemmRunner::GemmRunner() : impl_(std::make_unique<Impl>()) {}
GemmRunner::~GemmRunner() = default;

std::optional<std::string> gemm_device_unsupported(GemmMode mode, int cc_major, int cc_minor,
                                                   int k) {
  const int cc = cc_major * 10 + cc_minor;
  const std::string device = std::to_string(cc_major) + "." + std::to_string(cc_minor);
  if (is_fp8(mode) && cc < 89)
    return "E4M3 GEMM needs compute capability 8.9 or newer; this device is " + device;
  if (is_fp8(mode) && k % 16 != 0)
    return "cuBLASLt E4M3 GEMM needs K a multiple of 16; K = " + std::to_string(k);
  if (mode == GemmMode::bf16x9 && cc_major < 10)
    return "BF16x9 emulation is a Blackwell (compute capability 10.0+) feature of cuBLAS; this "
           "device is " +
           device + " (cuBLAS would run native fp32 or refuse)";
  if ((mode == GemmMode::bf16 || mode == GemmMode::fast_bf16 || mode == GemmMode::tf32) && cc < 80)
    return "bf16 / tf32 tensor cores need compute capability 8.0 or newer; this device is " +
           device;
  return std::nullopt;
}

std::optional<std::string> GemmRunner::unsupported(GemmMode mode, int m, int n, int k,
                                                   const void* a, const void* b, void* c) {
  check_shape(m, n, k, a, b, c);
  if (auto why = gemm_device_unsupported(mode, impl_->cc_major, impl_->cc_minor, k)) return why;
  if (is_fp8(mode)) {
    const LtPlan& p = impl_->plan(mode, m, n, k);
    if (!p.has_algo) return p.unsupported;
  }
  const cublasStatus_t s = impl_->launch(mode, m, n, k, a, b, c, nullptr);
  if (is_unsupported_status(s))
    return std::string(gemm_mode_spec(mode).library) + ": " + cublasGetStatusString(s);
  check_cublas(s, gemm_mode_spec(mode).library);
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize (GEMM probe)");
  return std::nullopt;
}

void GemmRunner::set_fp8_descales(double a_descale, double b_descale) {
  const float host[2] = {static_cast<float>(a_descale), static_cast<float>(b_descale)};
  if (static_cast<double>(host[0]) != a_descale || static_cast<double>(host[1]) != b_descale)
    throw std::invalid_argument("set_fp8_descales: descales must be exact in fp32");
  check_cuda(cudaMemcpy(impl_->scales, host, sizeof host, cudaMemcpyHostToDevice),
             "cudaMemcpy(fp8 descales)");
}

void GemmRunner::run(GemmMode mode, int m, int n, int k, const void* a, const void* b, void* c,
                     CUstream_st* stream) {
  check_shape(m, n, k, a, b, c);
  check_cublas(impl_->launch(mode, m, n, k, a, b, c, stream), gemm_mode_spec(mode).library);
}

}  // namespace bb::kernels
