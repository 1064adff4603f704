// The FlashAttention-2-class fused kernel (attention_flash.cu), for attention.cu's dispatch: T is
// __half or __nv_bfloat16, D 64 or 128; layouts and arguments as attention_fused_cuda (checked
// there).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "reference/attention.h"

namespace bb::kernels {

// Query rows a block of the fused kernel serves (8 warps of 16 rows).
inline constexpr std::size_t kFlashRows = 128;

namespace flash {
template <class T, int D>
void launch(const reference::AttentionDims& s, const T* q, const T* k, const T* v, float* o,
            cudaStream_t stream);
}  // namespace flash

}  // namespace bb::kernels
