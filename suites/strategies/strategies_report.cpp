#include "suites/strategies/strategies_report.h"

#include <cstdio>
#include <stdexcept>

#include "harness/bound.h"
#include "harness/lockstep_report.h"
#include "harness/stats.h"

namespace bb::strategies {
namespace {

using json = nlohmann::json;

json context(const Options& o, const Setup& s, const lockstep::Processes& procs,
             const HostInfo& host) {
  return lockstep::run_context({.quick = o.quick,
                                .command_line = o.command_line,
                                .samples = o.samples,
                                .warmup = o.warmup,
                                .timeout_s = o.timeout_s},
                               host, "strategies",
                               {{"engine", s.engine},
                                {"engine_description", s.description},
                                {"launcher", procs.launcher()},
                                {"ranks", s.ranks},
                                {"processes_on_this_node", procs.on_this_node()},
                                {"cores_on_this_node", host.logical_cpus},
                                {"compute", o.compute},
                                {"synthetic_flop_per_s", o.synthetic_flop_per_s},
                                {"tolerance", s.tolerance},
                                {"steps_per_case", o.samples},
                                {"warmup_steps", o.warmup}});
}

json entry(const CaseResult& r, const Setup& setup) {
  const Summary s = summarize(r.step_s);
  json params = r.params;
  params["engine"] = setup.engine;
  params["strategy"] = r.strategy;
  if (r.link_wire_bytes_per_rank > 0) {
    params["link"] = r.link;
    params["link_wire_bytes_per_rank"] = r.link_wire_bytes_per_rank;
  }
  // The bytes the ranks send, as the collectives count a message (read from the sender).
  json e = lockstep::case_entry("strategies", r.name, s, r.step_s, r.bytes, r.flop);
  e.update({{"backend", "host"},
            {"cpu_time", s.median_s * 1e9},
            {"params", params},
            {"observations", r.observations},
            {"elements", 0.0},
            {"precision", "fp32"},
            {"harness_overhead_s", 0.0},
            {"predicted_s", r.predicted_step_s}});
  e["observations"]["predicted_step_s"] = r.predicted_step_s;
  return e;
}

json link_json(const Link& l) {
  return {{"collective", l.collective},
          {"bytes", l.bytes},
          {"times_s", l.times_s},
          {"alpha_s", l.alpha_s},
          {"link_bytes_per_s", l.bytes_per_s()}};
}

}  // namespace

Report::Report(const Options& o, const Setup& setup, const lockstep::Processes& processes)
    : o_(o),
      setup_(setup),
      start_(std::chrono::steady_clock::now()),
      host_(query_host()),
      file_(o.out, context(o, setup, processes, host_)) {
  std::printf("strategies: %s (%s); %d ranks; compute %s; laws within %.0f%%\n",
              setup.engine.c_str(), setup.description.c_str(), setup.ranks, o.compute.c_str(),
              setup.tolerance * 100);
}

void Report::add_links(const Link& all_reduce, const Link& all_to_all) {
  file_.add_figures(
      "strategies",
      {{"links", {{"all_reduce", link_json(all_reduce)}, {"all_to_all", link_json(all_to_all)}}}});
  for (const Link* l : {&all_reduce, &all_to_all})
    std::printf("link %-10s alpha %8.2f us, 1/beta %8.3f GB/s (%zu sizes to %.0f B)\n",
                l->collective.c_str(), l->alpha_s * 1e6,
                l->beta_s_per_byte > 0 ? 1e-9 / l->beta_s_per_byte : 0.0, l->bytes.size(),
                l->bytes.empty() ? 0.0 : l->bytes.back());
  std::printf("%-36s %12s %12s %8s  %s\n", "case", "step (ms)", "model (ms)", "ratio", "checks");
  std::fflush(stdout);
}

void Report::add(const CaseResult& r) {
  const json e = entry(r, setup_);
  file_.add({e}, r.checks);
  for (const Check& c : r.checks) checks_.push_back(c);
  rows_.push_back(summary_row(e, r.checks));
  const double measured = e["median_s"].get<double>();
  std::string verdicts;
  for (const Check& c : r.checks)
    verdicts += c.name.substr(c.name.rfind('/') + 1) + " " + verdict_name(c.verdict) + "  ";
  std::printf("%-36s %12.3f %12.3f %8.3f  %s\n", r.name.c_str(), measured * 1e3,
              r.predicted_step_s * 1e3, measured / r.predicted_step_s, verdicts.c_str());
  for (const Check& c : r.checks)
    if (c.verdict != Verdict::pass) std::printf("  %s: %s\n", c.name.c_str(), c.reason.c_str());
  std::fflush(stdout);
}

int Report::finish(const Compute& compute, double max_overshoot_s, double mean_overshoot_s) {
  if (compute.synthetic())
    std::printf("synthetic waits: mean overshoot %.1f us, largest %.1f us (over every rank)\n",
                mean_overshoot_s * 1e6, max_overshoot_s * 1e6);
  json figures = file_.document().value("figures", json::object()).value("strategies", json{});
  figures["synthetic_wait"] = {{"mean_overshoot_s", mean_overshoot_s},
                               {"max_overshoot_s", max_overshoot_s}};
  file_.add_figures("strategies", figures);
  // Each step against its link (the bytes one rank sends over the run's measured 1/β), for its
  // limiter and fraction (harness/bound.h).
  file_.edit([](json& doc) { add_bounds(doc, 0.0); });
  file_.finish();
  const VerdictCounts n = count_verdicts(checks_);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::printf("strategies: %zu cases; %s; %.1f s\n", rows_.size(), verdict_counts_text(n).c_str(),
              elapsed);
  lockstep::write_summary(o_.out, o_.summary, rows_, checks_, file_.document());
  return n.fail > 0 && !o_.no_fail ? lockstep::kExitFailed : 0;
}

collectives::MeasuredLink measured_link(const nlohmann::json& results, const std::string& path) {
  const json::json_pointer at("/figures/strategies/links/all_reduce");
  if (!results.contains(at) || !results[at].contains("alpha_s") ||
      results[at].value("link_bytes_per_s", 0.0) <= 0)
    throw std::invalid_argument(path + ": no strategies all-reduce link measured in it");
  const json& link = results[at];
  const auto& ctx = results["context"]["boundbench"]["strategies"];
  return {link["alpha_s"].get<double>(), link["link_bytes_per_s"].get<double>(),
          ctx.value("engine", std::string("?")) + ", " + std::to_string(ctx.value("ranks", 0)) +
              " ranks, strategies all_reduce link"};
}

}  // namespace bb::strategies
