// The warp-level operations of the FlashAttention-2-class kernel (attention_flash.cu): mma.sync
// m16n8k16 (fp16/bf16 in, fp32 accumulation), ldmatrix .x4 (and .trans), 16-byte cp.async with
// zero fill and its groups. Fragment layouts: PTX ISA, "Matrix fragments for mma.m16n8k16"
// and "ldmatrix" (g = lane / 4, t = lane % 4):
//   A 16×16 (row): a0 (g, 2t..2t+1), a1 (g+8, 2t..), a2 (g, 2t+8..), a3 (g+8, 2t+8..)
//   B 16×8 (col):  b0 (k 2t..2t+1, n g), b1 (k 2t+8.., n g)
//   C/D 16×8 f32:  c0, c1 (g, 2t and 2t+1), c2, c3 (g+8, 2t and 2t+1)
//   ldmatrix .x4:  lanes 8i..8i+7 give the row addresses of matrix i; register i of a lane holds
//                  matrix i's (g, 2t..2t+1), with .trans its (2t, g) and (2t+1, g).
//
// GPGPU-Sim runs these instructions as written through ci/gpusim/warp_mma_async.patch (their
// functional semantics from the layouts above, their timing as its tensor core, shared-memory
// loads and LDGSTS).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace bb::kernels::flash {

// Two floats rounded to T, `lo` in the low half (the lower column of a fragment pair).
template <class T>
__device__ inline std::uint32_t pack(float lo, float hi) {
  if constexpr (std::is_same_v<T, __half>) {
    const __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&h);
  } else {
    const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&h);
  }
}

// d += A·B, one m16n8k16 tile.
template <class T>
__device__ inline void mma(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                           std::uint32_t b1) {
  if constexpr (std::is_same_v<T, __half>)
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  else
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Four 8×8 matrices of 16-bit elements from shared memory; `row` is this lane's row address
// (lanes 8i..8i+7: rows 0..7 of matrix i, 16 bytes each, 16-byte aligned).
template <bool kTrans>
__device__ inline void ldmatrix_x4(std::uint32_t (&r)[4], const void* row) {
  const auto addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(row));
  if constexpr (kTrans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

// 16 bytes global → shared, asynchronously; zeros where !in (then `src` is not read).
__device__ inline void cp_async16(void* dst, const void* src, bool in) {
  const auto addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(addr), "l"(src),
               "r"(in ? 16 : 0)
               : "memory");
}

__device__ inline void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

// Waits until at most kPending of this thread's groups are still in flight.
template <int kPending>
__device__ inline void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

}  // namespace bb::kernels::flash
