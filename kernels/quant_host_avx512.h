// The AVX-512 bodies of host int8 quantization, round to nearest and stochastic, and fused per
// group (kernels/quant_host.cpp picks them where the CPU has AVX-512 F/BW/VL/DQ): 16 values per
// step in fp32, bit-exact with reference/quant.h. Internal to the host kernels.
#pragma once

#include <cstddef>
#include <cstdint>

#include "theory/quant.h"

namespace bb::kernels::detail {

// q[i] = clamp(llround(x[i] / s + z)) for i < len, 8-bit codes (Q = std::int8_t or std::uint8_t).
void quantize_nearest_intrinsics(const float* x, std::size_t len, const theory::IntQuant& p,
                                 std::int8_t* q);
void quantize_nearest_intrinsics(const float* x, std::size_t len, const theory::IntQuant& p,
                                 std::uint8_t* q);

// q[i] = clamp(round_stochastic(x[i] / s + z, seed, first + i)) for i < len: element i's draw is
// the reference's (reference/quant.h), indexed by its position `first + i` in the tensor.
void quantize_stochastic_intrinsics(const float* x, std::size_t len, const theory::IntQuant& p,
                                    std::uint64_t seed, std::uint64_t first, std::int8_t* q);
void quantize_stochastic_intrinsics(const float* x, std::size_t len, const theory::IntQuant& p,
                                    std::uint64_t seed, std::uint64_t first, std::uint8_t* q);

// Groups [g0, g1) of `group` values (group ≥ 1), fused: params[g] =
// theory::int_quant_params(min, max, 8, scheme) of group g's range, then its codes as above
// (stochastic: draws indexed by position in x). Bit-exact with the range, the parameters and the
// codes taken one after the other.
void quantize_groups_intrinsics(const float* x, std::size_t group, theory::QuantScheme scheme,
                                bool stochastic, std::uint64_t seed, std::size_t g0, std::size_t g1,
                                std::int8_t* q, theory::IntQuant* params);
void quantize_groups_intrinsics(const float* x, std::size_t group, theory::QuantScheme scheme,
                                bool stochastic, std::uint64_t seed, std::size_t g0, std::size_t g1,
                                std::uint8_t* q, theory::IntQuant* params);

}  // namespace bb::kernels::detail
