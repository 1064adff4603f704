#include "theory/formulas.h"

#include <charconv>
#include <cmath>
#include <stdexcept>

#include "theory/peaks.h"
#include "theory/roofline.h"
#include "theory/stream.h"

namespace bb::theory {
namespace {

std::vector<std::string> stream_kernel_names() {
  std::vector<std::string> names;
  for (const auto& k : kStreamKernels) names.emplace_back(k.name);
  return names;
}

std::vector<std::string> precision_names() {
  std::vector<std::string> names;
  for (auto p : kAllPrecisions) names.emplace_back(precision_name(p));
  return names;
}

// "sm_90" or "9.0" → {9, 0}
std::pair<int, int> parse_arch(const std::string& arch) {
  for (const auto& a : arch_peaks_table()) {
    const std::string sm = "sm_" + std::to_string(a.cc_major * 10 + a.cc_minor);
    const std::string dotted = std::to_string(a.cc_major) + "." + std::to_string(a.cc_minor);
    if (arch == sm || arch == dotted) return {a.cc_major, a.cc_minor};
  }
  throw std::invalid_argument("--arch: unknown architecture '" + arch + "'");
}

std::vector<std::string> arch_names() {
  std::vector<std::string> names;
  for (const auto& a : arch_peaks_table())
    names.push_back("sm_" + std::to_string(a.cc_major * 10 + a.cc_minor));
  return names;
}

std::vector<FormulaOutput> roofline_outputs(const FormulaArgs& a) {
  const double flop = a.number("flop"), bytes = a.number("bytes");
  const double peak = a.number("peak_flop_per_s"), bw = a.number("bandwidth_bytes_per_s");
  const RooflineTime t = roofline_time(flop, bytes, peak, bw);
  return {{"compute_time_s", t.compute_s},
          {"memory_time_s", t.memory_s},
          {"bound_time_s", t.bound_s},
          {"is_memory_bound", t.memory_bound ? 1.0 : 0.0},
          {"arithmetic_intensity_flop_per_byte", arithmetic_intensity_flop_per_byte(flop, bytes)},
          {"ridge_point_flop_per_byte", ridge_point_flop_per_byte(peak, bw)}};
}

}  // namespace

std::vector<Formula> all_formulas() {
  const ParamSpec flop{"flop", "floating-point operations (an FMA is 2)", {}};
  const ParamSpec bytes{"bytes", "bytes moved to and from the memory level", {}, true};
  const ParamSpec peak{"peak_flop_per_s", "peak compute rate, flop/s", {}, true};
  const ParamSpec bw{"bandwidth_bytes_per_s", "memory bandwidth, bytes/s", {}, true};
  const char* roofline_src = "Williams, Waterman & Patterson, Roofline, CACM 52(4), 2009";
  return {
      {"roofline-time",
       "t >= max(flop / peak, bytes / BW)",
       roofline_src,
       {flop, bytes, peak, bw},
       roofline_outputs},
      {"arithmetic-intensity",
       "I = flop / bytes",
       roofline_src,
       {flop, bytes},
       [](const FormulaArgs& a) {
         return std::vector<FormulaOutput>{
             {"intensity_flop_per_byte",
              arithmetic_intensity_flop_per_byte(a.number("flop"), a.number("bytes"))}};
       }},
      {"ridge-point",
       "I* = peak / BW",
       roofline_src,
       {peak, bw},
       [](const FormulaArgs& a) {
         return std::vector<FormulaOutput>{
             {"ridge_point_flop_per_byte",
              ridge_point_flop_per_byte(a.number("peak_flop_per_s"),
                                        a.number("bandwidth_bytes_per_s"))}};
       }},
      {"attainable-flops",
       "P(I) = min(peak, I * BW)",
       roofline_src,
       {{"intensity_flop_per_byte", "arithmetic intensity, flop/byte", {}}, peak, bw},
       [](const FormulaArgs& a) {
         const double p =
             attainable_flop_per_s(a.number("intensity_flop_per_byte"), a.number("peak_flop_per_s"),
                                   a.number("bandwidth_bytes_per_s"));
         return std::vector<FormulaOutput>{{"attainable_flop_per_s", p},
                                           {"fraction_of_peak", p / a.number("peak_flop_per_s")}};
       }},
      {"stream-bytes",
       "bytes = arrays x elements x element size (BabelStream accounting)",
       "McCalpin, STREAM (1995); Deakin et al., BabelStream (2018)",
       {{"kernel", "STREAM kernel", stream_kernel_names()},
        {"elements", "elements per array", {}},
        {"element_bytes", "bytes per element", {}}},
       [](const FormulaArgs& a) {
         const StreamKernel k = *find_stream_kernel(a.choice("kernel"));
         const double n = a.number("elements"), w = a.number("element_bytes");
         const double r = stream_bytes_read(k, n, w), wr = stream_bytes_written(k, n, w);
         return std::vector<FormulaOutput>{{"bytes_read", r},
                                           {"bytes_written", wr},
                                           {"bytes", r + wr},
                                           {"flop", stream_flop(k, n)}};
       }},
      {"peak-dram-bandwidth",
       "BW = 2 x memory clock x bus width / 8",
       "nvbench device peak",
       {{"memory_clock_hz", "memory clock, Hz", {}}, {"bus_width_bits", "bus width, bits", {}}},
       [](const FormulaArgs& a) {
         return std::vector<FormulaOutput>{
             {"bandwidth_bytes_per_s",
              peak_dram_bytes_per_s(a.number("memory_clock_hz"),
                                    static_cast<int>(a.number("bus_width_bits")))}};
       }},
      {"peak-flops",
       "peak = flop per clock per SM x SMs x SM clock",
       "NVIDIA architecture whitepapers (table in theory/peaks.cpp)",
       {{"arch", "compute capability", arch_names()},
        {"precision", "precision", precision_names()},
        {"unit", "execution unit", {"cuda_core", "tensor_core"}},
        {"sms", "streaming multiprocessors", {}},
        {"sm_clock_hz", "SM clock, Hz", {}}},
       [](const FormulaArgs& a) {
         const auto [major, minor] = parse_arch(a.choice("arch"));
         const ArchPeaks& arch = *find_arch_peaks(major, minor);
         const auto p = static_cast<std::size_t>(*precision_from_name(a.choice("precision")));
         const double per_sm = a.choice("unit") == "tensor_core"
                                   ? arch.tensor_flop_per_clock_per_sm[p]
                                   : arch.cuda_core_flop_per_clock_per_sm[p];
         return std::vector<FormulaOutput>{
             {"flop_per_clock_per_sm", per_sm},
             {"peak_flop_per_s",
              peak_flop_per_s(per_sm, static_cast<int>(a.number("sms")), a.number("sm_clock_hz"))}};
       }},
  };
}

Formula find_formula(std::string_view name) {
  std::string known;
  for (auto& f : all_formulas()) {
    if (f.name == name) return f;
    known += (known.empty() ? "" : ", ") + f.name;
  }
  throw std::invalid_argument("unknown formula '" + std::string(name) + "' (known: " + known + ")");
}

std::vector<FormulaOutput> evaluate_formula(const Formula& f,
                                            const std::map<std::string, std::string>& raw_args) {
  for (const auto& [name, value] : raw_args) {
    bool known = false;
    for (const auto& p : f.params) known = known || p.name == name;
    if (!known) {
      std::string expected;
      for (const auto& p : f.params) expected += " --" + p.name;
      throw std::invalid_argument("unknown parameter --" + name + " for " + f.name +
                                  " (parameters:" + expected + ")");
    }
  }
  FormulaArgs args;
  for (const auto& p : f.params) {
    const auto it = raw_args.find(p.name);
    if (it == raw_args.end())
      throw std::invalid_argument("missing --" + p.name + " (" + p.help + ") for " + f.name);
    const std::string& text = it->second;
    if (!p.choices.empty()) {
      bool valid = false;
      std::string options;
      for (const auto& c : p.choices) {
        valid = valid || c == text;
        options += (options.empty() ? "" : "|") + c;
      }
      if (!valid)
        throw std::invalid_argument("--" + p.name + ": '" + text + "' is not one of " + options);
      args.choices[p.name] = text;
      continue;
    }
    double v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty())
      throw std::invalid_argument("--" + p.name + ": '" + text + "' is not a number");
    if (!std::isfinite(v) || v < 0 || (p.positive && v == 0))
      throw std::invalid_argument("--" + p.name + ": " + text + " must be finite and " +
                                  (p.positive ? "> 0" : ">= 0"));
    args.numbers[p.name] = v;
  }
  return f.evaluate(args);
}

}  // namespace bb::theory
