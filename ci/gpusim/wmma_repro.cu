// WMMA 16x16x16 fp16 -> fp32 through shared memory (as the fused attention kernel does): loads of
// A (row-major) and B (col-major or row-major) from shared, mma, store to shared, copy out.
#include <cstdio>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

template <class BLayout>
__global__ void k(const __half* a, const __half* b, float* c, int shared) {
  __shared__ __half sa[256], sb[256];
  __shared__ float sc[256];
  for (int i = threadIdx.x; i < 256; i += 32) sa[i] = a[i], sb[i] = b[i];
  __syncwarp();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, BLayout> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  if (shared) {
    wmma::load_matrix_sync(fa, sa, 16);
    wmma::load_matrix_sync(fb, sb, 16);
  } else {
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
  }
  wmma::mma_sync(fc, fa, fb, fc);
  if (shared) {
    wmma::store_matrix_sync(sc, fc, 16, wmma::mem_row_major);
    __syncwarp();
    for (int i = threadIdx.x; i < 256; i += 32) c[i] = sc[i];
  } else {
    wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
  }
}

int main() {
  __half ha[256], hb[256];
  float fa[256], fb[256], got[256];
  for (int i = 0; i < 256; ++i) {
    fa[i] = (i % 7) - 3, fb[i] = (i % 5) - 2;
    ha[i] = __float2half(fa[i]), hb[i] = __float2half(fb[i]);
  }
  __half *da, *db;
  float* dc;
  cudaMalloc(&da, 512), cudaMalloc(&db, 512), cudaMalloc(&dc, 1024);
  cudaMemcpy(da, ha, 512, cudaMemcpyHostToDevice), cudaMemcpy(db, hb, 512, cudaMemcpyHostToDevice);
  int bad_total = 0;
  for (int col = 0; col < 2; ++col)
    for (int shared = 0; shared < 2; ++shared) {
      cudaMemset(dc, 0xFF, 1024);
      if (col) k<wmma::col_major><<<1, 32>>>(da, db, dc, shared);
      else k<wmma::row_major><<<1, 32>>>(da, db, dc, shared);
      cudaMemcpy(got, dc, 1024, cudaMemcpyDeviceToHost);
      int bad = 0;
      for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 16; ++j) {
          float want = 0;
          for (int x = 0; x < 16; ++x) want += fa[i * 16 + x] * (col ? fb[j * 16 + x] : fb[x * 16 + j]);
          if (got[i * 16 + j] != want) { if (!bad) std::printf("  first bad (%d,%d): got %g want %g\n", i, j, got[i*16+j], want); ++bad; }
        }
      std::printf("B %s, via %s memory: %d of 256 wrong\n", col ? "col-major" : "row-major",
                  shared ? "shared" : "global", bad);
      bad_total += bad;
    }
  return bad_total != 0;
}
