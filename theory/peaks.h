// Theoretical peaks of a GPU from its architecture: FLOP/s per precision, DRAM bandwidth, ridge
// point. Formulas only: no CUDA, no I/O. The per-architecture rates and their sources are in
// peaks.cpp.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace bb::theory {

enum class Precision { fp64, fp32, tf32, fp16, bf16, fp8, int8 };
inline constexpr std::size_t kPrecisionCount = 7;
inline constexpr std::array<Precision, kPrecisionCount> kAllPrecisions = {
    Precision::fp64, Precision::fp32, Precision::tf32, Precision::fp16,
    Precision::bf16, Precision::fp8,  Precision::int8};

std::string_view precision_name(Precision p);
std::optional<Precision> precision_from_name(std::string_view name);

// Dense (no sparsity) operations per clock per SM; an FMA counts as 2 flop, an int8 multiply-add as
// 2 op. 0 means the unit does not support that precision. Indexed by
// static_cast<size_t>(Precision). Where products of one compute capability differ (e.g. GeForce
// parts run fp16 tensor ops with fp32 accumulation at half rate), the table holds the full-rate
// (data-centre) figure: it is an upper bound.
struct ArchPeaks {
  int cc_major = 0;
  int cc_minor = 0;
  std::string_view architecture;   // "Hopper"
  std::string_view example_parts;  // "H100, H200"
  std::array<double, kPrecisionCount> cuda_core_flop_per_clock_per_sm{};
  std::array<double, kPrecisionCount> tensor_flop_per_clock_per_sm{};
  std::string_view source;  // datasheet / whitepaper the numbers come from
};

std::span<const ArchPeaks> arch_peaks_table();
// Exact compute-capability match; nullptr when the architecture is not in the table.
const ArchPeaks* find_arch_peaks(int cc_major, int cc_minor);

// peak = (flop per clock per SM) × SMs × SM clock. With the device's maximum boost clock this is an
// upper bound (datasheets quote tensor peaks at a lower sustained clock, e.g. H100 SXM at 1830
// MHz).
double peak_flop_per_s(double flop_per_clock_per_sm, int sm_count, double sm_clock_hz);

// Peak DRAM bandwidth = 2 (double data rate) × memory clock × bus width / 8 (nvbench's formula).
double peak_dram_bytes_per_s(double memory_clock_hz, int bus_width_bits);

}  // namespace bb::theory
