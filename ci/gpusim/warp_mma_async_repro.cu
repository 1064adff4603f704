// warp_mma_async.patch: GPGPU-Sim (this commit) had no mma.sync (only wmma.*), no ldmatrix and no
// cp.async: its PTX parser reported "Syntax error" at each, and the launch then segfaulted. One
// warp: cp.async copies A (16×16) and B (16×8, row-major) into shared memory in a group, and 16
// more lanes copy nothing over 0xFF bytes (zero fill: 8 with src-size 0, 8 with ignore-src true;
// their source, D, still holds 0xFF bytes then, so a byte read shows);
// after wait_group, ldmatrix .x4 gives A's fragments, ldmatrix .x2 .trans B's (k pairs of one
// column), mma.sync m16n8k16 adds A·B to C = 0.5. Small integers: every product and sum is exact,
// so D must equal the host's product to the bit, in fp16 and bf16; and the zero-filled bytes must
// be 0. Prints the entries right: 192 of 192 in each type with the patch (exit 0). Before it:
// syntax error, then a segfault. Build: nvcc -arch=sm_80 -cudart shared warp_mma_async_repro.cu
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

template <bool kBf16>
__global__ void tile(const std::uint16_t* a, const std::uint16_t* b, float* d, std::uint32_t* pad) {
  __shared__ __align__(16) std::uint16_t sa[16 * 16], sb[16 * 8], zero[16 * 8];
  const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  for (int i = lane; i < 16 * 8 / 2; i += 32) reinterpret_cast<std::uint32_t*>(zero)[i] = ~0u;
  __syncwarp();
  const auto to = [](const void* p) {
    return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
  };
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, 16;\n" ::"r"(to(sa + 8 * lane)),
               "l"(a + 8 * lane)
               : "memory");
  if (lane < 16)
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16;\n" ::"r"(to(sb + 8 * lane)),
                 "l"(b + 8 * lane)
                 : "memory");
  else if (lane < 24)  // src-size 0
    asm volatile(
        "cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(to(zero + 8 * (lane - 16))), "l"(d),
        "r"(0)
        : "memory");
  else  // ignore-src true
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %2, 0;\ncp.async.cg.shared.global [%0], [%1], 16, "
        "p;\n}\n" ::"r"(to(zero + 8 * (lane - 16))),
        "l"(d), "r"(1)
        : "memory");
  asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;\n" ::: "memory");
  __syncwarp();
  // A: matrix i = lane / 8 holds rows 8(i % 2).., columns 8(i / 2)..; B: matrix i rows k 8i..
  std::uint32_t ra[4], rb[2];
  const int i = lane / 8, r = lane % 8;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(ra[0]), "=r"(ra[1]), "=r"(ra[2]), "=r"(ra[3])
               : "r"(to(sa + 16 * (r + 8 * (i % 2)) + 8 * (i / 2))));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n"
               : "=r"(rb[0]), "=r"(rb[1])
               : "r"(to(sb + 8 * (lane % 16))));
  float c[4] = {0.5f, 0.5f, 0.5f, 0.5f};
  if constexpr (kBf16)
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
  else
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
  for (int e = 0; e < 4; ++e) d[8 * (g + 8 * (e / 2)) + 2 * t + e % 2] = c[e];  // D row-major 16×8
  pad[lane] = reinterpret_cast<const std::uint32_t*>(zero)[lane];
  pad[32 + lane] = reinterpret_cast<const std::uint32_t*>(zero)[32 + lane];
}

template <bool kBf16>
int check(std::uint16_t* a, std::uint16_t* b, float* d, std::uint32_t* pad) {
  std::uint16_t ha[256], hb[128];
  float va[256], vb[128];
  for (int x = 0; x < 256; ++x) {
    va[x] = static_cast<float>(x * 7 % 11 - 5);
    ha[x] = kBf16 ? __bfloat16_as_ushort(__float2bfloat16(va[x]))
                  : __half_as_ushort(__float2half(va[x]));
  }
  for (int x = 0; x < 128; ++x) {
    vb[x] = static_cast<float>(x * 5 % 9 - 4);
    hb[x] = kBf16 ? __bfloat16_as_ushort(__float2bfloat16(vb[x]))
                  : __half_as_ushort(__float2half(vb[x]));
  }
  if (cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice) ||
      cudaMemcpy(b, hb, sizeof hb, cudaMemcpyHostToDevice) || cudaMemset(d, 0xFF, 512) ||
      cudaMemset(pad, 0xFF, 256))
    return -1;
  tile<kBf16><<<1, 32>>>(a, b, d, pad);
  float got[128];
  std::uint32_t zeros[64];
  if (cudaMemcpy(got, d, sizeof got, cudaMemcpyDeviceToHost) ||
      cudaMemcpy(zeros, pad, sizeof zeros, cudaMemcpyDeviceToHost))
    return -1;
  int good = 0;
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 8; ++n) {
      float want = 0.5f;
      for (int k = 0; k < 16; ++k) want += va[16 * m + k] * vb[8 * k + n];
      good += got[8 * m + n] == want;
    }
  for (std::uint32_t z : zeros) good += z == 0;
  return good;
}

int main() {
  std::uint16_t *a, *b;
  float* d;
  std::uint32_t* pad;
  if (cudaMalloc(&a, 512) || cudaMalloc(&b, 256) || cudaMalloc(&d, 512) || cudaMalloc(&pad, 256))
    return 2;
  const int f16 = check<false>(a, b, d, pad), bf16 = check<true>(a, b, d, pad);
  std::printf(
      "mma.sync m16n8k16 via cp.async + ldmatrix: fp16 %d, bf16 %d of 192 right (128 entries "
      "of D = A·B + 0.5 and 64 zero-filled words each)\n",
      f16, bf16);
  return f16 == 192 && bf16 == 192 ? 0 : 1;
}
