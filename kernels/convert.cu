// GPU format conversions checked exhaustively: every fp32 bit pattern of a range converted by
// CUDA's device conversion (cvt instructions where the architecture has them; FP6/FP4 are software
// before sm_100) and by the
// reference rounding (reference/formats_fast.h, the same code the host sweeps use), compared on
// the device. Versions: 1 = grid-stride over the patterns, per-block tallies, one atomic per block.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#include <cuda_fp8.h>

#include "base/cuda_check.h"
#include "kernels/convert.h"
#include "reference/formats_fast.h"

namespace bb::kernels {
namespace {

__device__ std::uint32_t convert(DeviceConversion c, float x) {
  switch (c) {
    case DeviceConversion::fp16: return __half_as_ushort(__float2half_rn(x));
    case DeviceConversion::bf16: return __bfloat16_as_ushort(__float2bfloat16_rn(x));
    case DeviceConversion::e4m3_satfinite:
      return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3);
    case DeviceConversion::e4m3: return __nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E4M3);
    case DeviceConversion::e5m2_satfinite:
      return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2);
    case DeviceConversion::e5m2: return __nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E5M2);
    case DeviceConversion::e2m3: return __nv_cvt_float_to_fp6(x, __NV_E2M3, cudaRoundNearest);
    case DeviceConversion::e3m2: return __nv_cvt_float_to_fp6(x, __NV_E3M2, cudaRoundNearest);
    case DeviceConversion::e2m1: return __nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundNearest);
  }
  return 0;
}

__global__ void sweep_kernel(DeviceConversion c, reference::Fp32Target target, std::uint64_t first,
                             std::uint64_t count, ConvertSweepResult* result) {
  __shared__ unsigned long long block_checked, block_bad;
  if (threadIdx.x == 0) block_checked = block_bad = 0;
  __syncthreads();
  unsigned long long checked = 0, bad = 0;
  const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < count; i += step) {
    const auto bits = static_cast<std::uint32_t>(first + i);
    const float x = __uint_as_float(bits);
    const std::uint32_t got = convert(c, x);
    const std::uint32_t want = reference::encode_fp32_nearest(target, bits);
    // NaN payloads are the implementation's: a NaN input must give a NaN (formats without NaN:
    // the same code, +max).
    const bool same = x != x && target.specials != theory::Specials::none
                          ? reference::is_nan_code(target, got)
                          : got == want;
    ++checked;
    if (!same) {
      ++bad;
      // The lowest disagreeing input is kept; the codes are of a disagreeing input (the lowest
      // one unless two threads race on them: a diagnostic, not the verdict).
      if (atomicMin(&result->first_input, bits) > bits) {
        result->reference_code = want;
        result->device_code = got;
      }
    }
  }
  atomicAdd(&block_checked, checked);
  atomicAdd(&block_bad, bad);
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicAdd(&result->checked, block_checked);
    atomicAdd(&result->mismatches, block_bad);
  }
}

reference::Fp32Target conversion_target(DeviceConversion c) {
  using theory::Format;
  const auto spec = [](Format f) -> const theory::FormatSpec& { return theory::format_spec(f); };
  switch (c) {
    case DeviceConversion::fp16: return reference::fp32_target(spec(Format::fp16), false);
    case DeviceConversion::bf16: return reference::fp32_target(spec(Format::bf16), false);
    case DeviceConversion::e4m3_satfinite: return reference::fp32_target(spec(Format::e4m3), true);
    case DeviceConversion::e4m3: return reference::fp32_target(spec(Format::e4m3), false);
    case DeviceConversion::e5m2_satfinite: return reference::fp32_target(spec(Format::e5m2), true);
    case DeviceConversion::e5m2: return reference::fp32_target(spec(Format::e5m2), false);
    case DeviceConversion::e2m3: return reference::fp32_target(spec(Format::e2m3), true);
    case DeviceConversion::e3m2: return reference::fp32_target(spec(Format::e3m2), true);
    case DeviceConversion::e2m1: return reference::fp32_target(spec(Format::e2m1), true);
  }
  throw std::invalid_argument("conversion_target: unknown conversion");
}

}  // namespace

void convert_sweep_cuda(DeviceConversion c, std::uint64_t first, std::uint64_t count,
                        ConvertSweepResult* result, int blocks, int threads, CUstream_st* stream) {
  if (blocks < 1 || threads < 1 || threads > 1024)
    throw std::invalid_argument("convert_sweep_cuda: blocks >= 1, 1 <= threads <= 1024");
  if (first + count > (std::uint64_t{1} << 32))
    throw std::invalid_argument("convert_sweep_cuda: the range ends past 2^32");
  sweep_kernel<<<blocks, threads, 0, stream>>>(c, conversion_target(c), first, count, result);
  check_launch("sweep_kernel");
}

}  // namespace bb::kernels
