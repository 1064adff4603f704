// A GPGPU-Sim config (gpgpusim.config, which the simulator reads from its working directory): the
// options that set a simulated GPU's peaks (theory/simulated_gpu.h), and the device it names.
#pragma once

#include <string>
#include <string_view>

#include "harness/gpu.h"
#include "theory/simulated_gpu.h"

namespace bb {

// Parses the text of a gpgpusim.config ("-option value" lines, '#' comments; a later line wins, as
// in GPGPU-Sim's option parser). Throws std::runtime_error naming the first option that is missing
// or malformed.
theory::SimulatedGpuConfig parse_gpusim_config(std::string_view text);

// The config in the file at `path`; throws when it cannot be read or parsed.
theory::SimulatedGpuConfig read_gpusim_config(const std::string& path);

// GPGPU-Sim's timing model names its device "GPGPU-Sim timing [CONFIG] sm_XY N SMs F MHz"
// (ci/gpusim/timing.patch); the functional simulator "GPGPU-Sim_vGPGPU-Sim Simulator Version …".
bool is_timed_simulator(std::string_view device_name);

// Replaces `d`'s peaks with those of the simulated config: SMs and core clock as the simulator
// reports them are kept; fp32/fp64 CUDA-core, fp16 tensor and DRAM peaks come from `c`.
void fill_simulated_peaks(GpuDevice& d, const theory::SimulatedGpuConfig& c);

}  // namespace bb
