#include <algorithm>

#include "harness/gpu.h"

namespace bb {

double GpuDevice::peak_flop_per_s(theory::Precision p) const {
  const auto i = static_cast<std::size_t>(p);
  return std::max(peak_cuda_core_flop_per_s[i], peak_tensor_flop_per_s[i]);
}

void fill_gpu_peaks(GpuDevice& d) {
  d.peak_dram_bytes_per_s = theory::peak_dram_bytes_per_s(d.memory_clock_hz, d.bus_width_bits);
  const theory::ArchPeaks* arch = theory::find_arch_peaks(d.cc_major, d.cc_minor);
  d.arch_in_table = arch != nullptr;
  if (!arch) return;
  for (std::size_t i = 0; i < theory::kPrecisionCount; ++i) {
    d.peak_cuda_core_flop_per_s[i] = theory::peak_flop_per_s(
        arch->cuda_core_flop_per_clock_per_sm[i], d.sm_count, d.sm_clock_hz);
    d.peak_tensor_flop_per_s[i] =
        theory::peak_flop_per_s(arch->tensor_flop_per_clock_per_sm[i], d.sm_count, d.sm_clock_hz);
  }
}

}  // namespace bb
