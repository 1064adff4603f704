// Block-scaled quantization on the GPU (kernels/block_quant.h), the host kernel's arithmetic
// (encode_small: branch-free, so a warp does not diverge on the rounding):
// each thread takes 4 consecutive elements (one float4); the 8 (MX) or 4 (NVFP4) threads of a block
// reduce its amax with warp shuffles; codes leave as one 32-bit (8-bit elements) or 16-bit (FP4)
// store per thread. Per-tensor schemes first reduce the amax into BlockQuantState.
#include <cuda_runtime_api.h>

#include <algorithm>

#include "base/cuda_check.h"
#include "kernels/block_quant.h"

namespace bb::kernels {
namespace {

constexpr int kThreads = 256;
constexpr unsigned kFullMask = 0xFFFFFFFFu;

unsigned grid_for(std::size_t threads) {
  return static_cast<unsigned>(
      std::clamp<std::size_t>((threads + kThreads - 1) / kThreads, 1, 8192));
}

// The tensor's amax (fp32 bits: non-negative floats order as integers) and its non-finite count.
__global__ void tensor_amax(const float4* x, std::size_t n4, BlockQuantState* state) {
  float amax = 0;
  unsigned long long bad = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n4;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const float4 v = x[i];
    const float e[4] = {v.x, v.y, v.z, v.w};
    for (int k = 0; k < 4; ++k) {
      bad += isfinite(e[k]) ? 0 : 1;
      amax = fmaxf(amax, fabsf(e[k]));
    }
  }
  for (int o = 16; o > 0; o /= 2) {
    amax = fmaxf(amax, __shfl_xor_sync(kFullMask, amax, o));
    bad += __shfl_xor_sync(kFullMask, bad, o);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicMax(&state->amax_bits, __float_as_uint(amax));
    if (bad) atomicAdd(&state->nonfinite, bad);
  }
}

struct ElementArgs {
  reference::Fp32Target element, e4m3;
  SmallTarget element_small, e4m3_small;
  BlockScheme scheme;
  int emax, margin;
  double element_max;
};

// One float4 per thread; `lanes` threads (block / 4) share a scale. The loop runs over whole
// warps (inactive lanes carry zeros) so that every shuffle has all 32 lanes.
template <bool FourBit>
__global__ void block_quantize_kernel(ElementArgs a, const float4* x, std::size_t n4,
                                      BlockQuantState* state, std::uint8_t* codes,
                                      std::uint8_t* scale_codes) {
  const int lanes = a.scheme == BlockScheme::nvfp4 ? 4 : 8;
  double tensor_scale = 1;
  if (a.scheme == BlockScheme::fp8_tensor || a.scheme == BlockScheme::nvfp4) {
    const double amax = __uint_as_float(state->amax_bits);
    tensor_scale =
        a.scheme == BlockScheme::fp8_tensor
            ? (amax > 0 ? static_cast<float>(ldexp(amax, a.margin) / a.element_max) : 1.0f)
            : (amax > 0 ? static_cast<float>(amax / (448.0 * 6.0)) : 1.0f);
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) state->tensor_scale = static_cast<float>(tensor_scale);
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  const std::size_t padded = (n4 + 31) / 32 * 32;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < padded;
       i += stride) {
    const bool active = i < n4;
    const float4 v = active ? x[i] : make_float4(0, 0, 0, 0);
    const float e[4] = {v.x, v.y, v.z, v.w};
    std::uint32_t c[4];
    if (a.scheme == BlockScheme::fp8_tensor) {
      for (int k = 0; k < 4; ++k)
        c[k] = encode_small(a.element_small,
                            fp32_round_to_odd_bits(static_cast<double>(e[k]) / tensor_scale));
    } else {
      float ab = fmaxf(fmaxf(fabsf(e[0]), fabsf(e[1])), fmaxf(fabsf(e[2]), fabsf(e[3])));
      unsigned long long bad = 0;
      for (int k = 0; k < 4; ++k) bad += isfinite(e[k]) ? 0 : 1;
      for (int o = 1; o < lanes; o *= 2) ab = fmaxf(ab, __shfl_xor_sync(kFullMask, ab, o));
      if (bad && a.scheme != BlockScheme::nvfp4) atomicAdd(&state->nonfinite, bad);  // MX
      std::uint32_t sc;
      if (a.scheme == BlockScheme::nvfp4) {
        sc = e4m3_code_up(a.e4m3_small, a.e4m3, ab / (6.0 * tensor_scale));
        const double scale = decode_small(a.e4m3, sc) * tensor_scale;
        for (int k = 0; k < 4; ++k)
          c[k] = encode_small(a.element_small,
                              fp32_round_to_odd_bits(static_cast<double>(e[k]) / scale));
      } else {
        const int x_exp = mx_exponent(ab, a.emax, a.element_max, a.scheme == BlockScheme::mx_floor);
        sc = static_cast<std::uint32_t>(x_exp + 127);
        const float inv = exp2_float(-x_exp);
        for (int k = 0; k < 4; ++k)
          c[k] = encode_small(a.element_small, __float_as_uint(e[k] * inv));
      }
      if (active && i % lanes == 0) scale_codes[i / lanes] = static_cast<std::uint8_t>(sc);
    }
    if (!active) continue;
    if constexpr (FourBit) {
      reinterpret_cast<std::uint16_t*>(codes)[i] =
          static_cast<std::uint16_t>(c[0] | c[1] << 4 | c[2] << 8 | c[3] << 12);
    } else {
      reinterpret_cast<std::uint32_t*>(codes)[i] = c[0] | c[1] << 8 | c[2] << 16 | c[3] << 24;
    }
  }
}

template <bool FourBit>
__global__ void block_dequantize_kernel(ElementArgs a, const std::uint8_t* codes,
                                        const std::uint8_t* scale_codes,
                                        const BlockQuantState* state, std::size_t n4, float4* x) {
  const int lanes = a.scheme == BlockScheme::nvfp4 ? 4 : 8;
  const double g = state->tensor_scale;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n4;
       i += std::size_t{gridDim.x} * blockDim.x) {
    std::uint32_t packed;
    if constexpr (FourBit) {
      packed = reinterpret_cast<const std::uint16_t*>(codes)[i];
    } else {
      packed = reinterpret_cast<const std::uint32_t*>(codes)[i];
    }
    const int width = FourBit ? 4 : 8;
    const std::uint32_t mask = FourBit ? 0xFu : 0xFFu;
    double scale = 1;
    if (a.scheme == BlockScheme::nvfp4)
      scale = decode_small(a.e4m3, scale_codes[i / lanes]);
    else if (a.scheme != BlockScheme::fp8_tensor)
      scale = decode_e8m0(scale_codes[i / lanes]);
    float out[4];
    for (int k = 0; k < 4; ++k)
      out[k] =
          static_cast<float>(decode_small(a.element, (packed >> (k * width)) & mask) * scale * g);
    x[i] = make_float4(out[0], out[1], out[2], out[3]);
  }
}

ElementArgs element_args(const BlockQuantSpec& spec) {
  const theory::FormatSpec& f = theory::format_spec(spec.element);
  const reference::Fp32Target element = reference::fp32_target(f, true),
                              e4m3 = reference::fp32_target(
                                  theory::format_spec(theory::Format::e4m3), true);
  return {element,
          e4m3,
          small_target(element),
          small_target(e4m3),
          spec.scheme,
          theory::max_exponent(f),
          spec.margin,
          theory::max_finite(f)};
}

}  // namespace

void block_quantize_cuda(const BlockQuantSpec& spec, const float* x, std::size_t n,
                         BlockQuantState* state, std::uint8_t* codes, std::uint8_t* scale_codes,
                         CUstream_st* stream) {
  spec.validate(n);
  const std::size_t n4 = n / 4;
  check_cuda(cudaMemsetAsync(state, 0, sizeof(BlockQuantState), stream), "cudaMemsetAsync");
  const auto* x4 = reinterpret_cast<const float4*>(x);
  if (spec.scheme == BlockScheme::fp8_tensor || spec.scheme == BlockScheme::nvfp4) {
    tensor_amax<<<grid_for(n4), kThreads, 0, stream>>>(x4, n4, state);
    check_launch("tensor_amax");
  }
  const auto kernel = spec.four_bit() ? block_quantize_kernel<true> : block_quantize_kernel<false>;
  kernel<<<grid_for(n4), kThreads, 0, stream>>>(element_args(spec), x4, n4, state, codes,
                                                scale_codes);
  check_launch("block_quantize");
}

void block_dequantize_cuda(const BlockQuantSpec& spec, const std::uint8_t* codes,
                           const std::uint8_t* scale_codes, const BlockQuantState* state,
                           std::size_t n, float* x, CUstream_st* stream) {
  spec.validate(n);
  const auto kernel =
      spec.four_bit() ? block_dequantize_kernel<true> : block_dequantize_kernel<false>;
  kernel<<<grid_for(n / 4), kThreads, 0, stream>>>(element_args(spec), codes, scale_codes, state,
                                                   n / 4, reinterpret_cast<float4*>(x));
  check_launch("block_dequantize");
}

}  // namespace bb::kernels
