#include "harness/results.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "harness/drift.h"

namespace bb {

using json = nlohmann::json;

namespace {

// JSON has no NaN: an unknown number is null.
json number_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json per_precision(const std::array<double, theory::kPrecisionCount>& values) {
  json j = json::object();
  for (auto p : theory::kAllPrecisions) {
    const double v = values[static_cast<std::size_t>(p)];
    if (v > 0) j[std::string(theory::precision_name(p))] = v;
  }
  return j;
}

json to_json(const GpuDevice& d) {
  json ridge = json::object();
  for (auto p : theory::kAllPrecisions)
    if (d.peak_flop_per_s(p) > 0 && d.peak_dram_bytes_per_s > 0)
      ridge[std::string(theory::precision_name(p))] =
          d.peak_flop_per_s(p) / d.peak_dram_bytes_per_s;
  return {{"index", d.index},
          {"name", d.name},
          {"uuid", d.uuid},
          {"arch", d.arch()},
          {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
          {"sm_count", d.sm_count},
          {"sm_clock_hz", d.sm_clock_hz},
          {"memory_clock_hz", d.memory_clock_hz},
          {"bus_width_bits", d.bus_width_bits},
          {"memory_bytes", d.memory_bytes},
          {"l2_bytes", d.l2_bytes},
          {"shared_memory_per_sm_bytes", d.shared_memory_per_sm_bytes},
          {"registers_per_sm", d.registers_per_sm},
          {"max_threads_per_sm", d.max_threads_per_sm},
          {"max_blocks_per_sm", d.max_blocks_per_sm},
          {"peak_dram_bytes_per_s", d.peak_dram_bytes_per_s},
          {"arch_in_peak_table", d.arch_in_table},
          {"peak_cuda_core_flop_per_s", per_precision(d.peak_cuda_core_flop_per_s)},
          {"peak_tensor_flop_per_s", per_precision(d.peak_tensor_flop_per_s)},
          {"ridge_point_flop_per_byte", ridge}};
}

}  // namespace

json to_json(const HostInfo& h) {
  json caches = json::array();
  for (const auto& c : h.caches)
    caches.push_back({{"level", c.level},
                      {"type", c.type},
                      {"size_bytes", c.size_bytes},
                      {"shared_by_cpus", c.shared_by_cpus}});
  return {{"cpu_model", h.cpu_model},
          {"logical_cpus", h.logical_cpus},
          {"physical_cores", h.physical_cores},
          {"caches", caches},
          {"last_level_cache_bytes", h.last_level_cache_bytes()},
          {"isa", h.isa},
          {"memory_bytes", h.memory_bytes},
          {"cpu_clock_hz", h.cpu_clock_hz},
          {"hostname", h.hostname},
          {"peak_fp64_flop_per_s_estimate", h.peak_fp64_flop_per_s_estimate()},
          {"clock_is_max", h.clock_is_max},
          {"virtualized", h.virtualized},
          {"hypervisor", h.hypervisor},
          {"peak_estimate_basis",
           std::to_string(h.fp64_simd_lanes()) +
               " fp64 lanes x 2 FMA units (assumed) x 2 flop x physical cores x clock"}};
}

json to_json(const GpuStatus& s) {
  json devices = json::array();
  for (const auto& d : s.devices) devices.push_back(to_json(d));
  return {{"built_with_cuda", s.built_with_cuda},
          {"usable", s.usable},
          {"reason", s.reason},
          {"driver_version", s.driver_version},
          {"runtime_version", s.runtime_version},
          {"cublas_version", s.cublas_version},
          {"cublaslt_version", s.cublaslt_version},
          {"nccl_version", s.nccl_version},
          {"devices", devices}};
}

void add_summary(json& entry, const Summary& s, std::span<const double> samples_s) {
  entry["samples"] = s.samples;
  entry["min_s"] = s.min_s;
  entry["median_s"] = s.median_s;
  entry["mean_s"] = s.mean_s;
  entry["max_s"] = s.max_s;
  entry["rel_noise"] = s.rel_noise;
  entry["mad_s"] = s.mad_s;
  entry["rel_mad"] = s.rel_mad;
  entry["median_ci_low_s"] = s.median_ci_low_s;
  entry["median_ci_high_s"] = s.median_ci_high_s;
  entry["median_ci_coverage"] = s.median_ci_coverage;
  entry["median_ci_confidence"] = s.median_ci_confidence;
  entry["samples_s"] = kept_samples(samples_s);
  // Drift from the file's own samples, so that anyone can recompute it.
  const auto kept = entry["samples_s"].get<std::vector<double>>();
  if (const auto d = sample_drift(kept)) entry["drift"] = drift_json(*d);
}

json to_json(const Check& c) {
  json j = {{"suite", c.suite},
            {"name", c.name},
            {"law", c.law},
            {"kind", check_kind_name(c.kind)},
            {"predicted", number_or_null(c.predicted)},
            {"measured", number_or_null(c.measured)},
            {"tolerance", number_or_null(c.tolerance)},
            {"verdict", verdict_name(c.verdict)},
            {"reason", c.reason}};
  // What the verdict was judged on, where a builder of harness/checks.h made it: an infinite end
  // of the band (one-sided) is null.
  if (!std::isnan(c.interval.low) || !std::isnan(c.interval.high)) {
    j["measured_low"] = number_or_null(c.interval.low);
    j["measured_high"] = number_or_null(c.interval.high);
    j["measured_coverage"] = number_or_null(c.interval.coverage);
  }
  if (!std::isnan(c.band.low) || !std::isnan(c.band.high)) {
    j["band_low"] = number_or_null(c.band.low);
    j["band_high"] = number_or_null(c.band.high);
  }
  return j;
}

void write_file_atomically(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw std::runtime_error("cannot write " + path + ": " + std::strerror(err));
    }
    done += static_cast<std::size_t>(n);
  }
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  if (!synced || std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error("cannot write " + path + ": " + std::strerror(err));
  }
}

void ensure_writable(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  std::error_code ec;  // the non-throwing overloads: a permission error is bad input, not a crash
  if (fs::is_directory(p, ec))
    throw std::invalid_argument("cannot write " + path + ": is a directory");
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec))
    throw std::invalid_argument("cannot write " + path + ": directory " + dir.string() +
                                (ec && ec != std::errc::no_such_file_or_directory
                                     ? " cannot be read: " + ec.message()
                                     : " does not exist"));
  if (::access(dir.c_str(), W_OK) != 0)
    throw std::invalid_argument("cannot write " + path + ": " + std::strerror(errno));
}

ResultsFile::ResultsFile(std::string path, json context) : path_(std::move(path)) {
  context["boundbench"]["complete"] = false;
  doc_ = {
      {"context", std::move(context)}, {"benchmarks", json::array()}, {"checks", json::array()}};
  write();
}

void ResultsFile::add(const std::vector<json>& benchmarks, const std::vector<Check>& checks) {
  for (const auto& b : benchmarks) doc_["benchmarks"].push_back(b);
  for (const auto& c : checks) doc_["checks"].push_back(to_json(c));
  write();
}

void ResultsFile::add_figures(const std::string& suite, json figures) {
  doc_["figures"][suite] = std::move(figures);
  write();
}

void ResultsFile::edit(const std::function<void(json&)>& change) {
  change(doc_);
  write();
}

void ResultsFile::finish() {
  doc_["context"]["boundbench"]["complete"] = true;
  write();
}

void ResultsFile::write() const { write_file_atomically(path_, doc_.dump(2) + "\n"); }

}  // namespace bb
