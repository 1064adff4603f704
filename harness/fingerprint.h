// The machine a run was measured on, as a fingerprint that `compare` holds two runs to: CPU
// identity (vendor, family, model, stepping, microcode), topology, caches, memory, hypervisor, and
// per GPU its name, UUID, SMs, memory, clocks and driver/runtime versions (CUDA builds only).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/gpu.h"
#include "harness/host_info.h"

namespace bb {

// The fingerprint a results file records as context.boundbench.fingerprint. "gpus" is present only
// in a CUDA build (empty when it finds no usable GPU).
nlohmann::json machine_fingerprint(const HostInfo& host, const GpuStatus& gpus);

struct RecordedFingerprint {
  nlohmann::json fields;  // the fingerprint's layout
  bool legacy = false;    // rebuilt from an older file's context (no family, microcode, UUID)
};
// The fingerprint of a results file; for a file written before fingerprints, the fields its
// context.boundbench.host and .gpus record (CPU model name, CPUs, cores, caches, memory, GPU name,
// SMs, memory, clocks, versions), marked legacy.
RecordedFingerprint recorded_fingerprint(const nlohmann::json& doc);

// Each field that both fingerprints record and that differs, as "cpu.model_name 'A' vs 'B'" (cache
// and memory sizes in KiB/MiB/GiB). A field that only one records is not a difference.
std::vector<std::string> fingerprint_differences(const nlohmann::json& a, const nlohmann::json& b);

}  // namespace bb
