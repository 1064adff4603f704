// GPGPU-Sim parsed a PTX integer literal into a 32-bit int (atoi, sscanf "%x"): a 64-bit immediate
// kept only its low 32 bits. nvcc writes 64-bit constants as immediates, e.g. 2^(k-127) as a double
// from an E8M0 code k is (k << 52) + 896·2^52 (`add.s64 ..., 4035225266123964416`: added 0, so
// every MX scale came out 2^(k-1023) and every dequantized value 0), and splitmix64's multipliers.
// Prints the three results: 4035225266123964543 18446744069414584320 11400714819323198485 on a
// GPU and with ci/gpusim/*.patch; 127 0 2135587861 (the low halves of the immediates) without.
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

__global__ void immediates(const std::uint64_t* in, std::uint64_t* out) {
  out[0] = in[0] + 0x3800000000000000ull;  // add.s64 with a 64-bit immediate
  out[1] = in[1] & 0xFFFFFFFF00000000ull;  // and.b64
  out[2] = in[2] * 0x9E3779B97F4A7C15ull;  // mul.lo.s64
}

int main() {
  const std::uint64_t in[3] = {127, ~std::uint64_t{0}, 1};
  const std::uint64_t want[3] = {0x3800000000000000ull + 127, 0xFFFFFFFF00000000ull,
                                 0x9E3779B97F4A7C15ull};
  std::uint64_t *d_in, *d_out, got[3] = {};
  if (cudaMalloc(&d_in, sizeof in) || cudaMalloc(&d_out, sizeof got) ||
      cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice))
    return 2;
  immediates<<<1, 1>>>(d_in, d_out);
  if (cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost)) return 2;
  std::printf("64-bit immediates: %llu %llu %llu\n", static_cast<unsigned long long>(got[0]),
              static_cast<unsigned long long>(got[1]), static_cast<unsigned long long>(got[2]));
  return got[0] == want[0] && got[1] == want[1] && got[2] == want[2] ? 0 : 1;
}
