#include "harness/gpusim_config.h"

#include <charconv>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace bb {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// "-option value  # comment" lines; quotes around a value dropped; the last occurrence wins.
std::map<std::string, std::string, std::less<>> options_of(std::string_view text) {
  std::map<std::string, std::string, std::less<>> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    line = trim(line);
    if (line.empty() || line.front() != '-') continue;
    const std::size_t space = line.find_first_of(" \t");
    if (space == std::string_view::npos) continue;
    std::string value(trim(line.substr(space)));
    // A quoted value may continue on the next lines (SM7_QV100's -gpgpu_dram_timing_opt).
    while (value.front() == '"' && (value.size() < 2 || value.back() != '"') && pos < text.size()) {
      end = text.find('\n', pos);
      if (end == std::string_view::npos) end = text.size();
      value += trim(text.substr(pos, end - pos));
      pos = end + 1;
    }
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
      value = value.substr(1, value.size() - 2);
    out[std::string(line.substr(0, space))] = value;
  }
  return out;
}

const std::string& option(const std::map<std::string, std::string, std::less<>>& o,
                          std::string_view name) {
  const auto it = o.find(name);
  if (it == o.end()) throw std::runtime_error("gpgpusim.config: no " + std::string(name));
  return it->second;
}

// The numbers of a list such as "1132.0:1132.0:1132.0:850.0" or "2,2,2,2,4" (`seps` between them).
std::vector<double> numbers(std::string_view name, std::string_view value, std::string_view seps) {
  std::vector<double> out;
  std::size_t pos = 0;
  while (pos <= value.size()) {
    std::size_t end = value.find_first_of(seps, pos);
    if (end == std::string_view::npos) end = value.size();
    const std::string_view item = trim(value.substr(pos, end - pos));
    double v = 0;
    const auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc{} || p != item.data() + item.size())
      throw std::runtime_error("gpgpusim.config: " + std::string(name) + " '" + std::string(value) +
                               "' is not a list of numbers");
    out.push_back(v);
    pos = end + 1;
  }
  return out;
}

double nth(const std::map<std::string, std::string, std::less<>>& o, std::string_view name,
           std::size_t i, std::string_view seps = ",") {
  const std::vector<double> v = numbers(name, option(o, name), seps);
  if (v.size() <= i)
    throw std::runtime_error("gpgpusim.config: " + std::string(name) + " has no entry " +
                             std::to_string(i + 1));
  return v[i];
}

int whole(const std::map<std::string, std::string, std::less<>>& o, std::string_view name,
          std::size_t i = 0, std::string_view seps = ",") {
  return static_cast<int>(nth(o, name, i, seps));
}

// "nbk=16:CCD=4:RRD=12:…": the value of `key`.
int timing_value(const std::map<std::string, std::string, std::less<>>& o, std::string_view key) {
  const std::string& t = option(o, "-gpgpu_dram_timing_opt");
  std::size_t pos = 0;
  while (pos < t.size()) {
    std::size_t end = t.find(':', pos);
    if (end == std::string::npos) end = t.size();
    const std::string_view item = trim(std::string_view(t).substr(pos, end - pos));
    if (item.starts_with(key) && item.size() > key.size() && item[key.size()] == '=')
      return static_cast<int>(
          numbers("-gpgpu_dram_timing_opt", item.substr(key.size() + 1), ",").front());
    pos = end + 1;
  }
  throw std::runtime_error("gpgpusim.config: -gpgpu_dram_timing_opt has no " + std::string(key));
}

}  // namespace

theory::SimulatedGpuConfig parse_gpusim_config(std::string_view text) {
  const auto o = options_of(text);
  theory::SimulatedGpuConfig c;
  c.clusters = whole(o, "-gpgpu_n_clusters");
  c.cores_per_cluster = whole(o, "-gpgpu_n_cores_per_cluster");
  c.warp_size = whole(o, "-gpgpu_shader_core_pipeline", 1, ":");
  c.core_clock_hz = nth(o, "-gpgpu_clock_domains", 0, ":") * 1e6;
  c.dram_clock_hz = nth(o, "-gpgpu_clock_domains", 3, ":") * 1e6;
  c.sp_units = whole(o, "-gpgpu_num_sp_units");
  c.fp32_fma_initiation_cycles = whole(o, "-ptx_opcode_initiation_fp", 3);
  c.dp_units = whole(o, "-gpgpu_num_dp_units");
  c.fp64_fma_initiation_cycles = whole(o, "-ptx_opcode_initiation_dp", 3);
  const bool tensor =
      o.contains("-gpgpu_tensor_core_avail") && whole(o, "-gpgpu_tensor_core_avail") != 0;
  c.tensor_units = tensor ? whole(o, "-gpgpu_num_tensor_core_units") : 0;
  c.tensor_initiation_cycles = tensor ? whole(o, "-ptx_opcode_initiation_tensor") : 0;
  c.memory_channels = whole(o, "-gpgpu_n_mem");
  c.chips_per_channel = whole(o, "-gpgpu_n_mem_per_ctrlr");
  c.dram_bus_width_bytes = whole(o, "-gpgpu_dram_buswidth");
  c.dram_burst_length = whole(o, "-gpgpu_dram_burst_length");
  c.dram_data_command_ratio = whole(o, "-dram_data_command_freq_ratio");
  c.dram_tccd_cycles = timing_value(o, "CCD");
  return c;
}

theory::SimulatedGpuConfig read_gpusim_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return parse_gpusim_config(text.str());
}

bool is_timed_simulator(std::string_view device_name) {
  return device_name.starts_with("GPGPU-Sim") &&
         device_name.find(" timing") != std::string_view::npos;
}

void fill_simulated_peaks(GpuDevice& d, const theory::SimulatedGpuConfig& c) {
  const int sms = theory::simulated_sm_count(c);
  const auto fp32 = static_cast<std::size_t>(theory::Precision::fp32);
  const auto fp64 = static_cast<std::size_t>(theory::Precision::fp64);
  const auto fp16 = static_cast<std::size_t>(theory::Precision::fp16);
  d.peak_cuda_core_flop_per_s = {};
  d.peak_tensor_flop_per_s = {};
  d.peak_cuda_core_flop_per_s[fp32] = theory::peak_flop_per_s(
      theory::simulated_fp32_flop_per_clock_per_sm(c), sms, c.core_clock_hz);
  d.peak_cuda_core_flop_per_s[fp64] = theory::peak_flop_per_s(
      theory::simulated_fp64_flop_per_clock_per_sm(c), sms, c.core_clock_hz);
  d.peak_tensor_flop_per_s[fp16] = theory::peak_flop_per_s(
      theory::simulated_tensor_fp16_flop_per_clock_per_sm(c), sms, c.core_clock_hz);
  d.peak_dram_bytes_per_s = theory::simulated_dram_bytes_per_s(c);
  // The simulator's memory attributes are a GTX 1080 Ti's placeholders: report the config's bus
  // and the double-data-rate clock that gives its peak (2 × f × bits / 8 = peak).
  d.bus_width_bits = c.memory_channels * c.chips_per_channel * c.dram_bus_width_bytes * 8;
  d.memory_clock_hz =
      d.bus_width_bits > 0 ? d.peak_dram_bytes_per_s / (2.0 * d.bus_width_bits / 8) : 0.0;
  d.arch_in_table = true;
}

}  // namespace bb
