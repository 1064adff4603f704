#include "theory/bound.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace bb::theory {

std::optional<LevelPlateau> plateau_serving(const std::vector<LevelPlateau>& plateaus,
                                            double working_set_bytes) {
  if (plateaus.empty() || working_set_bytes > plateaus.back().to_bytes) return std::nullopt;
  const LevelPlateau* serving = &plateaus.front();
  for (const auto& p : plateaus)
    if (p.from_bytes <= working_set_bytes) serving = &p;
  return *serving;
}

std::optional<std::size_t> level_holding(const std::vector<double>& capacities_bytes,
                                         double working_set_bytes) {
  for (std::size_t i = 0; i < capacities_bytes.size(); ++i)
    if (working_set_bytes <= capacities_bytes[i]) return i;
  return std::nullopt;
}

std::vector<ResourceBound> rank_bounds(std::vector<ResourceBound> bounds) {
  std::erase_if(bounds, [](const ResourceBound& b) { return !(b.time_s > 0); });
  std::stable_sort(
      bounds.begin(), bounds.end(),
      [](const ResourceBound& a, const ResourceBound& b) { return a.time_s > b.time_s; });
  return bounds;
}

double habitat_scaled_time_s(double time_a_s, double bandwidth_a, double bandwidth_b,
                             double clock_sms_a, double clock_sms_b, double gamma) {
  return time_a_s * std::pow(bandwidth_a / bandwidth_b, gamma) *
         std::pow(clock_sms_a / clock_sms_b, 1 - gamma);
}

double habitat_work_ratio(double bytes_a, double bytes_b, double flop_a, double flop_b,
                          double gamma) {
  auto ratio = [](double a, double b) { return a > 0 && b > 0 ? b / a : 1.0; };
  return std::pow(ratio(bytes_a, bytes_b), gamma) * std::pow(ratio(flop_a, flop_b), 1 - gamma);
}

double habitat_gamma(double intensity_flop_per_byte, double ridge_flop_per_byte) {
  if (!(ridge_flop_per_byte > 0)) return 1.0;
  return std::clamp(1 - intensity_flop_per_byte / ridge_flop_per_byte, 0.0, 1.0);
}

const std::vector<NamedGpu>& named_gpus() {
  static const std::vector<NamedGpu> gpus = {
      {"A100-SXM", 8, 0, 108, 1.410e9, 2.039e12,
       "NVIDIA A100 datasheet (80 GB SXM: 2,039 GB/s HBM2e); A100 whitepaper: 108 SMs, 1410 MHz"},
      {"H100-SXM", 9, 0, 132, 1.980e9, 3.35e12,
       "NVIDIA H100 datasheet (SXM: 3.35 TB/s HBM3); H100 whitepaper: 132 SMs, 1980 MHz boost"},
      {"H200-SXM", 9, 0, 132, 1.980e9, 4.8e12,
       "NVIDIA H200 datasheet (4.8 TB/s HBM3e); same GH100 chip as H100 SXM: 132 SMs"},
  };
  return gpus;
}

const NamedGpu* find_named_gpu(std::string_view name) {
  auto lower = [](std::string_view s) {
    std::string out(s);
    for (auto& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return out;
  };
  for (const auto& g : named_gpus())
    if (lower(g.name) == lower(name)) return &g;
  return nullptr;
}

}  // namespace bb::theory
