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
// GPGPU-Sim (ci/gpusim.sh) implements none of mma.sync, ldmatrix or cp.async (its PTX parser
// stops at them). Built with BOUNDBENCH_GPUSIM_EMULATION the same functions compute the same
// results from the layouts above with shuffles and plain loads (cp.async as a synchronous copy),
// so the simulator proves everything around them: the fragment bookkeeping, swizzle, masks, online
// softmax, tile loop. The real instructions are the sm_80+ path of every other build.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace bb::kernels::flash {

template <class T>
struct Type;
template <>
struct Type<__half> {
  __device__ static float to_float(std::uint16_t bits) {
    return __half2float(__ushort_as_half(bits));
  }
  __device__ static std::uint16_t bits(float x) { return __half_as_ushort(__float2half_rn(x)); }
};
template <>
struct Type<__nv_bfloat16> {
  __device__ static float to_float(std::uint16_t bits) {
    return __bfloat162float(__ushort_as_bfloat16(bits));
  }
  __device__ static std::uint16_t bits(float x) {
    return __bfloat16_as_ushort(__float2bfloat16_rn(x));
  }
};

// Two floats rounded to T, `lo` in the low half (the lower column of a fragment pair).
template <class T>
__device__ inline std::uint32_t pack(float lo, float hi) {
#ifdef BOUNDBENCH_GPUSIM_EMULATION
  return static_cast<std::uint32_t>(Type<T>::bits(lo)) |
         static_cast<std::uint32_t>(Type<T>::bits(hi)) << 16;
#else
  if constexpr (std::is_same_v<T, __half>) {
    const __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&h);
  } else {
    const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&h);
  }
#endif
}

#ifdef BOUNDBENCH_GPUSIM_EMULATION
template <class T>
__device__ inline float half_of(std::uint32_t w, int upper) {
  return Type<T>::to_float(static_cast<std::uint16_t>(upper ? w >> 16 : w & 0xFFFFu));
}
#endif

// d += A·B, one m16n8k16 tile.
template <class T>
__device__ inline void mma(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                           std::uint32_t b1) {
#ifdef BOUNDBENCH_GPUSIM_EMULATION
  const int lane = static_cast<int>(threadIdx.x % 32), g = lane / 4, t = lane % 4;
  for (int src = 0; src < 4; ++src) {  // k = 2·src + {0, 1} (registers 0, 1) and 8 + … (2, 3)
    float av[4][2], bv[2][2][2];       // [register][element]; B: [column 2t + c][register][element]
    for (int r = 0; r < 4; ++r) {
      const std::uint32_t w = __shfl_sync(0xffffffffu, a[r], 4 * g + src);
      av[r][0] = half_of<T>(w, 0), av[r][1] = half_of<T>(w, 1);
    }
    for (int c = 0; c < 2; ++c) {  // column 2t + c lives in lanes 4·(2t + c) + src
      const std::uint32_t w0 = __shfl_sync(0xffffffffu, b0, 4 * (2 * t + c) + src);
      const std::uint32_t w1 = __shfl_sync(0xffffffffu, b1, 4 * (2 * t + c) + src);
      bv[c][0][0] = half_of<T>(w0, 0), bv[c][0][1] = half_of<T>(w0, 1);
      bv[c][1][0] = half_of<T>(w1, 0), bv[c][1][1] = half_of<T>(w1, 1);
    }
    for (int hk = 0; hk < 2; ++hk)  // k < 8 or k ≥ 8
      for (int e = 0; e < 2; ++e)   // the element of a pair
        for (int c = 0; c < 2; ++c) {
          d[c] += av[2 * hk][e] * bv[c][hk][e];          // row g
          d[2 + c] += av[2 * hk + 1][e] * bv[c][hk][e];  // row g + 8
        }
  }
#else
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
#endif
}

// Four 8×8 matrices of 16-bit elements from shared memory; `row` is this lane's row address
// (lanes 8i..8i+7: rows 0..7 of matrix i, 16 bytes each, 16-byte aligned).
template <bool kTrans>
__device__ inline void ldmatrix_x4(std::uint32_t (&r)[4], const void* row) {
#ifdef BOUNDBENCH_GPUSIM_EMULATION
  const int lane = static_cast<int>(threadIdx.x % 32), g = lane / 4, t = lane % 4;
  const auto at = reinterpret_cast<unsigned long long>(row);
  for (int i = 0; i < 4; ++i) {
    if (kTrans) {  // (2t, g) and (2t + 1, g) of matrix i
      const auto r0 =
          reinterpret_cast<const std::uint16_t*>(__shfl_sync(0xffffffffu, at, 8 * i + 2 * t));
      const auto r1 =
          reinterpret_cast<const std::uint16_t*>(__shfl_sync(0xffffffffu, at, 8 * i + 2 * t + 1));
      r[i] = static_cast<std::uint32_t>(r0[g]) | static_cast<std::uint32_t>(r1[g]) << 16;
    } else {  // (g, 2t..2t+1) of matrix i
      const auto rg =
          reinterpret_cast<const std::uint32_t*>(__shfl_sync(0xffffffffu, at, 8 * i + g));
      r[i] = rg[t];
    }
  }
#else
  const auto addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(row));
  if constexpr (kTrans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
#endif
}

// 16 bytes global → shared, asynchronously; zeros where !in (then `src` is not read).
__device__ inline void cp_async16(void* dst, const void* src, bool in) {
#ifdef BOUNDBENCH_GPUSIM_EMULATION
  *static_cast<uint4*>(dst) = in ? *static_cast<const uint4*>(src) : make_uint4(0, 0, 0, 0);
#else
  const auto addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(addr), "l"(src),
               "r"(in ? 16 : 0)
               : "memory");
#endif
}

__device__ inline void cp_async_commit() {
#ifndef BOUNDBENCH_GPUSIM_EMULATION
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

// Waits until at most kPending of this thread's groups are still in flight.
template <int kPending>
__device__ inline void cp_async_wait() {
#ifndef BOUNDBENCH_GPUSIM_EMULATION
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
#endif
}

}  // namespace bb::kernels::flash
