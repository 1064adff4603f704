#include "harness/case.h"

#include <utility>

namespace bb {

Work work_of(const theory::WorkCount& count, theory::Precision precision,
             std::string memory_level) {
  return {.bytes_read = count.bytes_read,
          .bytes_written = count.bytes_written,
          .flop = count.flop,
          .elements = count.elements,
          .precision = precision,
          .memory_level = std::move(memory_level)};
}

theory::WorkCount count_of(const Work& w) {
  return {w.bytes_read, w.bytes_written, w.flop, w.elements};
}

std::string cannot_run_reason(const Case& c, const GpuDevice* gpu) {
  return gpu != nullptr && gpu->simulated ? c.simulator_cannot_run : "";
}

Prepared prepare_case(const Case& c, const CaseContext& ctx) {
  Declared d = c.declare(ctx);
  if (std::string why = cannot_run_reason(c, ctx.gpu); !why.empty()) throw CaseSkipped(why);
  std::unique_ptr<Instance> instance = c.prepare(ctx, d);
  return {std::move(instance), std::move(d.work), std::move(d.params)};
}

std::string backend_name(Backend b) { return b == Backend::cuda ? "cuda" : "host"; }

std::optional<Backend> backend_from_name(const std::string& name) {
  if (name == "host") return Backend::host;
  if (name == "cuda") return Backend::cuda;
  return std::nullopt;
}

std::string verdict_name(Verdict v) {
  switch (v) {
    case Verdict::pass: return "PASS";
    case Verdict::fail: return "FAIL";
    case Verdict::skip: return "SKIP";
    case Verdict::inconclusive: return "INCONCLUSIVE";
    case Verdict::below_expectation: return "BELOW-EXPECTATION";
  }
  return "SKIP";
}

std::string check_kind_name(CheckKind k) { return k == CheckKind::law ? "law" : "expectation"; }

}  // namespace bb
