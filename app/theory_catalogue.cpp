// The catalogue's entries for roofline, STREAM, peaks, occupancy, formats, summation and integer
// quantization; the quantity parser; finding a formula and validating its arguments.
#include "app/theory_catalogue.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

#include "app/theory_catalogue_params.h"
#include "theory/formats.h"
#include "theory/occupancy.h"
#include "theory/peaks.h"
#include "theory/quant.h"
#include "theory/roofline.h"
#include "theory/stream.h"
#include "theory/summation.h"

namespace bb::app {

using namespace theory;  // the formulas this catalogue names

namespace {

// "sm_90"
std::string arch_name(const ArchPeaks& a) {
  return "sm_" + std::to_string(a.cc_major * 10 + a.cc_minor);
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

// Refuses a kernel that could never launch on `sm`, naming the parameter at fault.
void check_launchable(const SmLimits& sm, const KernelResources& k) {
  const std::string on = " on " + sm.arch();
  const std::size_t shared = k.static_shared_bytes + k.dynamic_shared_bytes;
  const auto outside = [](const std::string& flag, int value, int lowest, int highest,
                          const std::string& what) {
    return std::invalid_argument(flag + " " + std::to_string(value) + " is outside " +
                                 std::to_string(lowest) + " ... " + std::to_string(highest) + " " +
                                 what);
  };
  switch (exceeded_launch_limit(sm, k)) {
    case LaunchLimit::none: return;
    case LaunchLimit::threads:
      throw outside("--threads", k.threads_per_block, 1, sm.max_threads_per_block,
                    "threads per block" + on);
    case LaunchLimit::registers:
      throw outside("--regs", k.registers_per_thread, 0, sm.max_registers_per_thread,
                    "registers per thread" + on);
    case LaunchLimit::shared_memory:
      throw std::invalid_argument("--smem " + std::to_string(shared) + " bytes exceeds the " +
                                  std::to_string(sm.shared_per_block_optin_bytes / 1024) +
                                  " KiB opt-in limit of shared memory per block" + on);
    case LaunchLimit::barriers:
      throw outside("--barriers", k.barriers, 0, kMaxBarriersPerBlock, "named barriers per block");
  }
}

FormulaOutput limit_output(const std::string& name, int blocks) {
  if (blocks == INT_MAX) return {name, 0, "unlimited"};
  return {name, static_cast<double>(blocks)};
}

std::vector<FormulaOutput> occupancy_outputs(const FormulaArgs& a) {
  const SmLimits& sm = sm_limits_for(a.choice("arch"));
  KernelResources k;
  k.threads_per_block = static_cast<int>(a.number("threads"));
  k.registers_per_thread = static_cast<int>(a.number("regs"));
  k.dynamic_shared_bytes = static_cast<std::size_t>(a.number("smem"));
  // More than the default 48 KiB per block needs the opt-in; the kernel is assumed to have it.
  if (k.dynamic_shared_bytes > sm.shared_per_block_bytes)
    k.max_dynamic_shared_bytes = k.dynamic_shared_bytes;
  k.barriers = static_cast<int>(a.number("barriers"));
  check_launchable(sm, k);
  const Occupancy o = occupancy(sm, k, static_cast<int>(a.number("carveout_percent")));
  return {{"blocks_per_sm", static_cast<double>(o.blocks_per_sm)},
          {"active_warps_per_sm", static_cast<double>(o.active_warps_per_sm)},
          {"max_warps_per_sm", static_cast<double>(sm.max_warps_per_sm())},
          {"occupancy_fraction", o.occupancy},
          {"binding_limit", 0, limiting_factor_names(o.limiting)},
          limit_output("blocks_by_warps", o.by_warps),
          limit_output("blocks_by_registers", o.by_registers),
          limit_output("blocks_by_shared_memory", o.by_shared_memory),
          limit_output("blocks_by_block_slots", o.by_blocks),
          limit_output("blocks_by_barriers", o.by_barriers),
          {"registers_per_block", static_cast<double>(o.registers_per_block)},
          {"shared_per_block_bytes", static_cast<double>(o.shared_per_block_bytes)},
          {"shared_per_sm_bytes", static_cast<double>(o.shared_per_sm_bytes)}};
}

}  // namespace

std::vector<Formula> all_formulas() {
  using param::choice, param::count, param::names_of, param::number, param::positive, param::whole;
  const ParamSpec flop{"flop", "floating-point operations (an FMA is 2)", {}};
  const ParamSpec bytes{"bytes", "bytes moved to and from the memory level", {}, true};
  const ParamSpec peak{"peak_flop_per_s", "peak compute rate, flop/s", {}, true};
  const ParamSpec bw{"bandwidth_bytes_per_s", "memory bandwidth, bytes/s", {}, true};
  const char* roofline_src = "Williams, Waterman & Patterson, Roofline, CACM 52(4), 2009";
  std::vector<Formula> formulas = {
      {"occupancy",
       "blocks/SM = min(warps, registers, shared memory, block slots, barriers limits)",
       "CUDA C++ Programming Guide 13.0 (compute capabilities); checked against cuda_occupancy.h",
       {choice("arch", "compute capability",
               names_of(sm_limits_table(), [](const SmLimits& s) { return s.arch(); })),
        count("threads", "threads per block"), whole("regs", "registers per thread"),
        number("smem", "shared memory per block, bytes (48KiB, 100000, ...)", "0"),
        whole("barriers", "named barriers per block", "1"),
        number("carveout_percent", "preferred shared-memory carveout, % of the maximum", "100")},
       occupancy_outputs},
      {"littles-law",
       "bytes in flight = bandwidth x latency",
       "Little, Operations Research 9(3), 1961; Volkov, Understanding Latency Hiding on GPUs, 2016",
       {bw, positive("latency_s", "memory latency, s"),
        positive("bytes_per_request", "bytes one request (e.g. one warp's load) brings", "512")},
       [](const FormulaArgs& a) {
         const double in_flight =
             bytes_in_flight(a.number("bandwidth_bytes_per_s"), a.number("latency_s"));
         return std::vector<FormulaOutput>{
             {"bytes_in_flight", in_flight},
             {"requests_in_flight", in_flight / a.number("bytes_per_request")}};
       }},
      {"waves",
       "waves = ceil(blocks / (SMs x blocks per SM)); time ~ waves",
       "CUDA C++ Best Practices Guide, Occupancy (tail effect)",
       {count("blocks", "blocks in the grid"), count("sms", "streaming multiprocessors"),
        count("blocks_per_sm", "resident blocks per SM")},
       [](const FormulaArgs& a) {
         const auto blocks = static_cast<long long>(a.number("blocks"));
         const auto sms = static_cast<long long>(a.number("sms"));
         const auto per_sm = static_cast<long long>(a.number("blocks_per_sm"));
         return std::vector<FormulaOutput>{
             {"waves", static_cast<double>(waves(blocks, sms, per_sm))},
             {"blocks_per_wave", static_cast<double>(sms * per_sm)},
             {"last_wave_fill_fraction", last_wave_fill_fraction(blocks, sms, per_sm)},
             {"efficiency_fraction", wave_efficiency_fraction(blocks, sms, per_sm)}};
       }},
      {"format",
       "u = 2^-p, p = mantissa bits + 1; max = (2 - 2^-m) 2^emax; min normal 2^(1-bias); min "
       "subnormal 2^(1-bias-m)",
       "IEEE 754-2019; OCP OFP8 rev 1.0; OCP MX v1.0; NVIDIA A100 whitepaper (tf32)",
       {choice("name", "the format",
               {"fp64", "fp32", "tf32", "fp16", "bf16", "e4m3", "e5m2", "e2m3", "e3m2", "e2m1",
                "e8m0"})},
       [](const FormulaArgs& a) {
         const FormatSpec& f = format_spec(*format_from_name(a.choice("name")));
         const auto d = [](int v) { return static_cast<double>(v); };
         const char* specials[] = {"infinity and NaN (IEEE)", "NaN only (S.1111.111)",
                                   "none: every code is a number", "NaN (0xFF); no sign, no zero"};
         return std::vector<FormulaOutput>{{"bits", d(f.bits)},
                                           {"exponent_bits", d(f.exponent_bits)},
                                           {"mantissa_bits", d(f.mantissa_bits)},
                                           {"bias", d(f.bias)},
                                           {"precision_bits", d(precision_bits(f))},
                                           {"unit_roundoff", unit_roundoff(f)},
                                           {"max_finite", max_finite(f)},
                                           {"min_normal", min_normal(f)},
                                           {"min_subnormal", min_subnormal(f)},
                                           {"specials", 0, specials[static_cast<int>(f.specials)]},
                                           {"source", 0, std::string(f.source)}};
       }},
      {"sum-error-bound",
       "recursive gamma_(n-1) S, pairwise gamma_ceil(log2 n) S, Kahan (2u + 2nu^2) S, dot gamma_n "
       "S, "
       "probabilistic (exp(lambda sqrt(n) u + n u^2/(1-u)) - 1) S; S = sum |x_i| (or |x_i y_i|)",
       "Higham, Accuracy and Stability of Numerical Algorithms, 2002, ch. 3-4; Higham & Mary, "
       "SIAM J. Sci. Comput. 41(5), 2019",
       {count("n", "terms summed (inner dimension K for a dot product or GEMM)"),
        choice("format", "the arithmetic's format (its unit roundoff u)",
               {"fp64", "fp32", "tf32", "fp16", "bf16", "e4m3", "e5m2", "e2m3", "e3m2", "e2m1"}),
        number("abs_sum", "sum of |x_i| (|x_i y_i| for a dot product)", "1"),
        positive("lambda", "probabilistic bound's lambda", "5")},
       [](const FormulaArgs& a) {
         const double n = a.number("n"), s = a.number("abs_sum"), l = a.number("lambda");
         const double u = unit_roundoff(format_spec(*format_from_name(a.choice("format"))));
         return std::vector<FormulaOutput>{
             {"unit_roundoff", u},
             {"recursive_bound", recursive_sum_bound(n, u, s)},
             {"pairwise_bound", pairwise_sum_bound(n, u, s)},
             {"kahan_bound", kahan_sum_bound(n, u, s)},
             {"dot_bound", dot_bound(n, u, s)},
             {"probabilistic_dot_bound", probabilistic_dot_bound(n, u, l, s)},
             {"probabilistic_failure_probability", probabilistic_bound_failure(n, l, u)}};
       }},
      {"quant",
       "x ~ s(q - z); symmetric s = amax/(2^(b-1)-1), z = 0; asymmetric s = (max-min)/(2^b-1), "
       "z = round(-min/s); |error| <= s/2 in range; noise s^2/12; SQNR 10 log10(P/(s^2/12)), P of "
       "a uniform signal or a sine spanning [min, max]",
       "Jacob et al., CVPR 2018; Nagel et al., A White Paper on Neural Network Quantization, 2021",
       {{"min", "smallest value of the tensor, channel or group", {}, false, false, "", true},
        {"max", "largest value", {}, false, false, "", true},
        count("bits", "integer width, 2 ... 16", "8"),
        {"scheme", "zero point", {"symmetric", "asymmetric"}},
        whole("group", "values sharing one scale (0: the whole tensor)", "0"),
        whole("elements", "the tensor's length (0: not given)", "0")},
       [](const FormulaArgs& a) {
         const QuantScheme scheme =
             a.choice("scheme") == "symmetric" ? QuantScheme::symmetric : QuantScheme::asymmetric;
         const int bits = static_cast<int>(a.number("bits"));
         const IntQuant p = int_quant_params(a.number("min"), a.number("max"), bits, scheme);
         const double group = a.number("group"), elements = a.number("elements");
         if (group > 0 && elements > 0 && std::fmod(elements, group) != 0)
           throw std::invalid_argument(
               "quant: the group size " + std::to_string(static_cast<long long>(group)) +
               " does not divide the length " + std::to_string(static_cast<long long>(elements)));
         // Parameters per value: per group, else once per tensor (when its length is given).
         const double sharing = group > 0 ? group : elements > 0 ? elements : 0;
         std::vector<FormulaOutput> out{
             {"scale", p.scale},
             {"zero_point", static_cast<double>(p.zero_point)},
             {"q_min", static_cast<double>(p.q_min)},
             {"q_max", static_cast<double>(p.q_max)},
             {"max_error", quant_max_error(p)},
             {"noise_variance", quant_noise_variance(p)},
             {"sqnr_uniform_db", sqnr_uniform_db(p, a.number("min"), a.number("max"))},
             {"sqnr_sine_db", sqnr_sine_db(p, a.number("min"), a.number("max"))}};
         if (sharing > 0)
           out.push_back({"bits_per_value", quant_bits_per_value(bits, scheme, sharing)});
         if (group > 0 && elements > 0) out.push_back({"groups", elements / group});
         return out;
       }},
      {"bank-conflicts",
       "ways = gcd(stride in 4-byte words, 32); passes = ways",
       "CUDA C++ Programming Guide, Shared Memory (32 banks of 4 bytes)",
       {whole("stride_words", "distance between consecutive threads' words")},
       [](const FormulaArgs& a) {
         const int ways = bank_conflict_ways(static_cast<long long>(a.number("stride_words")));
         return std::vector<FormulaOutput>{{"conflict_ways", static_cast<double>(ways)},
                                           {"passes", static_cast<double>(ways)}};
       }},
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
       {choice("kernel", "STREAM kernel",
               names_of(kStreamKernels, [](const StreamKernel& k) { return k.name; })),
        {"elements", "elements per array", {}},
        {"element_bytes", "bytes per element", {}}},
       [](const FormulaArgs& a) {
         // The function the STREAM cases declare their work with.
         const WorkCount w = stream_work(*find_stream_kernel(a.choice("kernel")),
                                         a.number("elements"), a.number("element_bytes"));
         return std::vector<FormulaOutput>{{"bytes_read", w.bytes_read},
                                           {"bytes_written", w.bytes_written},
                                           {"bytes", w.bytes()},
                                           {"flop", w.flop}};
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
       {choice("arch", "compute capability", names_of(arch_peaks_table(), arch_name)),
        choice("precision", "precision", names_of(kAllPrecisions, precision_name)),
        {"unit", "execution unit", {"cuda_core", "tensor_core"}},
        {"sms", "streaming multiprocessors", {}},
        {"sm_clock_hz", "SM clock, Hz", {}}},
       [](const FormulaArgs& a) {
         // A valid choice: one of the table's names.
         const auto table = arch_peaks_table();
         const ArchPeaks& arch = *std::find_if(table.begin(), table.end(), [&](const ArchPeaks& e) {
           return arch_name(e) == a.choice("arch");
         });
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
  for (const auto& part : {parallelism_formulas(), attention_formulas(), precision_formulas()})
    formulas.insert(formulas.end(), part.begin(), part.end());
  return formulas;
}

double parse_quantity(const std::string& text) {
  double v = 0;
  const char* last = text.data() + text.size();
  const auto [end, ec] = std::from_chars(text.data(), last, v);
  if (text.empty() || ec != std::errc())
    throw std::invalid_argument("'" + text + "' is not a number");
  const std::string suffix(end, last);
  if (suffix.empty()) return v;
  static constexpr std::pair<const char*, double> kSuffixes[] = {
      {"Ki", 0x1p10},  {"KiB", 0x1p10}, {"Mi", 0x1p20},  {"MiB", 0x1p20}, {"Gi", 0x1p30},
      {"GiB", 0x1p30}, {"Ti", 0x1p40},  {"TiB", 0x1p40}, {"k", 1e3},      {"K", 1e3},
      {"M", 1e6},      {"G", 1e9},      {"T", 1e12}};
  for (const auto& [name, scale] : kSuffixes)
    if (suffix == name) return v * scale;
  if (suffix == "KB" || suffix == "kB" || suffix == "MB" || suffix == "GB" || suffix == "TB")
    throw std::invalid_argument("'" + text + "' is ambiguous: write KiB (1024) or k (1000)");
  throw std::invalid_argument("'" + text + "' is not a number (suffixes: Ki, Mi, Gi, k, M, G, T)");
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
    if (std::none_of(f.params.begin(), f.params.end(),
                     [&](const ParamSpec& p) { return p.name == name; })) {
      std::string expected;
      for (const auto& p : f.params) expected += " --" + p.name;
      throw std::invalid_argument("unknown parameter --" + name + " for " + f.name +
                                  " (parameters:" + expected + ")");
    }
  }
  FormulaArgs args;
  for (const auto& p : f.params) {
    const auto it = raw_args.find(p.name);
    if (it == raw_args.end() && p.default_value.empty())
      throw std::invalid_argument("missing --" + p.name + " (" + p.help + ") for " + f.name);
    const std::string& text = it == raw_args.end() ? p.default_value : it->second;
    if (!p.choices.empty()) {
      if (std::find(p.choices.begin(), p.choices.end(), text) == p.choices.end()) {
        std::string options;
        for (const auto& c : p.choices) options += (options.empty() ? "" : "|") + c;
        throw std::invalid_argument("--" + p.name + ": '" + text + "' is not one of " + options);
      }
      args.choices[p.name] = text;
      continue;
    }
    double v = 0;
    try {
      v = parse_quantity(text);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("--" + p.name + ": " + e.what());
    }
    if (!std::isfinite(v) || (v < 0 && !p.any_sign) || (p.positive && v == 0))
      throw std::invalid_argument("--" + p.name + ": " + text + " must be finite" +
                                  (p.any_sign   ? ""
                                   : p.positive ? " and > 0"
                                                : " and >= 0"));
    if (p.integer && v != std::floor(v))
      throw std::invalid_argument("--" + p.name + ": " + text + " must be a whole number");
    args.numbers[p.name] = v;
  }
  return f.evaluate(args);
}

}  // namespace bb::app
