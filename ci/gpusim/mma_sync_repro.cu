// GPGPU-Sim (this commit, with ci/gpusim/*.patch) has no mma.sync (only wmma.*), no ldmatrix and
// no cp.async: its PTX parser reports "Syntax error" at each of them (seen one at a time, with the
// other two replaced by plain code) and the launch then segfaults. The fused attention kernel uses
// all three; ci/gpusim.sh builds it with BOUNDBENCH_GPUSIM_EMULATION
// (kernels/attention_flash_ops.cuh) instead. A 16×8×16 product of ones through cp.async, ldmatrix
// and mma.sync: prints 128 of 128 entries equal to 16 on an sm_80+ GPU (expected; not run on one
// here); under the simulator: syntax error, then segmentation fault at the launch.
#include <cstdint>
#include <cstdio>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

__global__ void one_tile(const __half* a, float* d) {  // a: 16×16 ones, row-major; B = the same
  __shared__ __align__(16) __half s[16 * 16];
  const int lane = threadIdx.x;
  const auto dst = static_cast<std::uint32_t>(__cvta_generic_to_shared(s + 8 * lane));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(a + 8 * lane));
  asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;\n" ::: "memory");
  __syncwarp();
  std::uint32_t r[4];
  const auto row = static_cast<std::uint32_t>(
      __cvta_generic_to_shared(s + 16 * (lane % 16) + 8 * (lane / 16)));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(row));
  float c[4] = {0, 0, 0, 0};
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[0]), "r"(r[2]));
  for (int i = 0; i < 4; ++i) d[4 * lane + i] = c[i];
}

int main() {
  __half ha[256];
  for (auto& x : ha) x = __float2half(1.0f);
  __half* a;
  float* d;
  float got[128] = {};
  if (cudaMalloc(&a, sizeof ha) || cudaMalloc(&d, sizeof got) ||
      cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice))
    return 2;
  one_tile<<<1, 32>>>(a, d);
  if (cudaMemcpy(got, d, sizeof got, cudaMemcpyDeviceToHost)) return 2;
  int ok = 0;
  for (float x : got) ok += x == 16.0f;
  std::printf("mma.sync m16n8k16: %d of 128 entries are 16 (D = A·B of ones, k = 16)\n", ok);
  return ok == 128 ? 0 : 1;
}
