// Block-scaled (floating-point) quantization x ≈ S·P, what the host and CUDA cases share: the
// schemes (fp8 per tensor from the amax, MXFP8/MXFP6/MXFP4 with E8M0 scales under both scale rules,
// NVFP4), the data, the bit-exact comparison with reference/mx.h and the laws of
// theory/block_quant.h — per element |x − x̂| ≤ S·q(|x|/S)/2 (or the clipping), the uniform-noise
// SQNR within 0.5 dB, and no clipping where the scale rule promises none —, the declared work and
// the case itself.
#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "kernels/block_quant.h"
#include "reference/mx.h"
#include "reference/random.h"
#include "suites/precision/precision_suite.h"
#include "theory/block_quant.h"

namespace bb::suites {

std::vector<BlockQuantSetup> block_quant_setups() {
  using kernels::BlockScheme;
  using theory::Format;
  return {{"fp8-e4m3/per-tensor", {Format::e4m3, BlockScheme::fp8_tensor, 0}, true},
          {"fp8-e5m2/per-tensor", {Format::e5m2, BlockScheme::fp8_tensor, 0}, false},
          {"mxfp8-e4m3/block32/ocp-floor", {Format::e4m3, BlockScheme::mx_floor, 0}, true},
          {"mxfp8-e4m3/block32/round-up", {Format::e4m3, BlockScheme::mx_round_up, 0}, false},
          {"mxfp6-e2m3/block32/round-up", {Format::e2m3, BlockScheme::mx_round_up, 0}, false},
          {"mxfp6-e3m2/block32/round-up", {Format::e3m2, BlockScheme::mx_round_up, 0}, false},
          {"mxfp4-e2m1/block32/ocp-floor", {Format::e2m1, BlockScheme::mx_floor, 0}, false},
          {"mxfp4-e2m1/block32/round-up", {Format::e2m1, BlockScheme::mx_round_up, 0}, true},
          {"nvfp4-e2m1/block16", {Format::e2m1, BlockScheme::nvfp4, 0}, true}};
}

// Blocks of 32 uniform values in (−f, f), f = 2^t with t uniform in [−8, 8) per block: a dynamic
// range of 2^16 (per-tensor scaling reaches the subnormals) with a flat density inside each block,
// where the uniform-noise law holds.
std::vector<float> block_quant_data(std::size_t n) {
  std::vector<float> x(n);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    const double f = std::exp2(-8 + 16 * reference::uniform01(23, i / 32));
    x[i] = static_cast<float>(f * (2 * reference::uniform01(29, i) - 1));
  }
  return x;
}

reference::BlockQuantized block_quant_reference(const BlockQuantSetup& s,
                                                std::span<const float> x) {
  using kernels::BlockScheme;
  switch (s.spec.scheme) {
    case BlockScheme::fp8_tensor:
      return reference::fp8_tensor_quantize(x, s.spec.element, s.spec.margin);
    case BlockScheme::mx_floor:
      return reference::mx_quantize(x, s.spec.element, reference::MxScaleRule::ocp_floor);
    case BlockScheme::mx_round_up:
      return reference::mx_quantize(x, s.spec.element, reference::MxScaleRule::round_up);
    case BlockScheme::nvfp4: return reference::nvfp4_quantize(x);
  }
  throw std::logic_error("block_quant_reference: unknown scheme");
}

Comparison block_quant_compare(const BlockQuantSetup& s, const reference::BlockQuantized& ref,
                               const std::uint8_t* codes, const std::uint8_t* scale_codes,
                               float tensor_scale, std::span<const float> xr) {
  const std::vector<double> ref_x = reference::block_dequantize(ref);
  std::size_t wrong_codes = 0, wrong_values = 0, wrong_scales = 0, first = xr.size();
#pragma omp parallel for schedule(static) reduction(+ : wrong_codes, wrong_values) \
    reduction(min : first)
  for (std::size_t i = 0; i < xr.size(); ++i) {
    const bool bad_code = s.spec.code_at(codes, i) != ref.codes[i];
    const bool bad_value = xr[i] != static_cast<float>(ref_x[i]);
    wrong_codes += bad_code;
    wrong_values += bad_value;
    if (bad_code || bad_value) first = std::min(first, i);
  }
  for (std::size_t b = 0; b < s.spec.scale_count(xr.size()); ++b)
    wrong_scales += scale_codes[b] != ref.scale_codes[b];
  // The per-tensor scale: fp8's s (the reference's one block scale) or NVFP4's g; MX has none (1).
  const double want_tensor =
      s.spec.scheme == kernels::BlockScheme::fp8_tensor ? ref.block_scales[0] : ref.tensor_scale;
  const std::vector<double> got = {static_cast<double>(wrong_codes),
                                   static_cast<double>(wrong_values),
                                   static_cast<double>(wrong_scales), tensor_scale};
  const std::vector<double> want = {0, 0, 0, want_tensor};
  Comparison c = compare<double, double>(got, want, Tolerance{0, 0});
  c.reference_trivial = false;  // counts of wrong codes, values, scales (all 0) and the scale
  if (first < xr.size()) {
    c.first_mismatches.insert(
        c.first_mismatches.begin(),
        fmt::format(
            "first wrong element {}: x^ {:.9g} (code 0x{:x}), reference {:.9g} (code 0x{:x})",
            first, static_cast<double>(xr[first]), s.spec.code_at(codes, first), ref_x[first],
            static_cast<unsigned>(ref.codes[first])));
  }
  return c;
}

nlohmann::json block_quant_laws(const BlockQuantSetup& s, std::span<const float> x,
                                const reference::BlockQuantized& ref, std::span<const float> xr) {
  const theory::FormatSpec& f = theory::format_spec(s.spec.element);
  const double top = theory::max_finite(f);
  const std::size_t block = ref.block;
  double worst = 0, signal = 0, noise = 0, law_noise = 0;
  std::size_t clipped = 0;
#pragma omp parallel for schedule(static) reduction(max : worst) \
    reduction(+ : signal, noise, law_noise, clipped)
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double scale = ref.block_scales[i / block] * ref.tensor_scale;
    const double ax = std::fabs(static_cast<double>(x[i])), v = ax / scale;
    const double e = static_cast<double>(xr[i]) - x[i];
    // x̂ is stored as a float: its own rounding (half an ulp of x̂) adds to the bound.
    const double half_ulp = (std::nextafter(std::fabs(xr[i]), INFINITY) - std::fabs(xr[i])) / 2;
    worst =
        std::max(worst, std::fabs(e) / (theory::scaled_element_max_error(f, scale, ax) + half_ulp));
    signal += ax * ax;
    noise += e * e;
    const double q = theory::element_quantum(f, std::min(v, top));
    const bool clips = v >= top + q / 2;  // rounding to nearest would give more than max_finite
    clipped += clips;
    law_noise += clips ? (ax - scale * top) * (ax - scale * top) : scale * scale * q * q / 12;
  }
  return {{"worst_error_over_bound", worst},
          {"sqnr_db", 10 * std::log10(signal / noise)},
          {"sqnr_law_db", 10 * std::log10(signal / law_noise)},
          {"clipped_elements", clipped}};
}

namespace {
std::vector<Check> block_quant_checks(const std::string& name, const BlockQuantSetup& s,
                                      const nlohmann::json& o) {
  const double worst = o.value("worst_error_over_bound", 0.0);
  const double sqnr = o.value("sqnr_db", 0.0), law = o.value("sqnr_law_db", 0.0);
  const double clipped = o.value("clipped_elements", 0.0);
  std::vector<Check> checks;
  checks.push_back(
      precision_check(name + "/error-bound",
                      "|x - x^| <= S q(|x|/S)/2 (relative 2^-p in the normal range), or "
                      "the clipping |x| - S max (+ x^'s own float rounding)",
                      1, Band::at_most(1 + 1e-9), worst, 1e-9,
                      fmt::format("largest |x - x^| is {:.6f} of its bound", worst)));
  checks.push_back(
      precision_check(name + "/sqnr",
                      "SQNR = 10 log10(sum x^2 / sum S^2 q^2/12) (+ clipping), q the "
                      "element grid at x (Widrow & Kollar ch. 12)",
                      law, Band::plus_minus(law, 0.5), sqnr, 0.5,
                      fmt::format("SQNR {:.3f} dB, uniform-noise law {:.3f} dB", sqnr, law)));
  if (s.spec.scheme != kernels::BlockScheme::mx_floor) {
    checks.push_back(precision_check(name + "/no-clipping",
                                     "the scale rule leaves amax/S <= max_finite (+ half a step): "
                                     "nothing clips",
                                     0, Band{0, 0}, clipped, 0,
                                     fmt::format("{:.0f} elements clipped", clipped)));
  }
  return checks;
}
}  // namespace

Declared block_quant_declared(const BlockQuantSetup& s, std::size_t elements) {
  Declared d;
  const double n = static_cast<double>(elements);
  const bool tensor_pass = s.spec.scheme == kernels::BlockScheme::fp8_tensor ||
                           s.spec.scheme == kernels::BlockScheme::nvfp4;
  // The amax pass, then the quantize pass; the codes and one scale per block.
  d.work = work_of(theory::block_quant_work(n, s.spec.four_bit() ? 4 : 8,
                                            static_cast<double>(s.spec.block()), tensor_pass));
  d.params = {{"format", theory::format_spec(s.spec.element).name},
              {"scheme", s.name},
              {"block_elements", s.spec.block() ? s.spec.block() : elements},
              {"elements", elements},
              {"data", "blocks of 32 uniform in (-f, f), f = 2^t, t uniform in [-8, 8)"}};
  return d;
}

Case block_quant_case(
    const BlockQuantSetup& s, Backend backend, std::function<Declared(const CaseContext&)> declare,
    std::function<std::unique_ptr<Instance>(const CaseContext&, Declared&)> prepare) {
  const std::string name = std::string("quantize/") + s.name + "/" + backend_name(backend);
  Case c{name, backend, std::move(declare), std::move(prepare),
         [name, s](const Prepared& p, const Measurement&) {
           return block_quant_checks(name, s, p.instance->observations());
         }};
  c.in_quick = s.in_quick;
  return c;
}

}  // namespace bb::suites
