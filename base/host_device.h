// BB_HOST_DEVICE marks a function that nvcc compiles for both the host and the GPU; a plain C++
// compiler sees an ordinary function. The one macro: a function cannot say "both sides".
#pragma once

#if defined(__CUDACC__)
#define BB_HOST_DEVICE __host__ __device__
#else
#define BB_HOST_DEVICE
#endif
