#include "app/cli.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <regex>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/ab_cli.h"
#include "app/history_cli.h"
#include "app/project_cmd.h"
#include "app/theory_catalogue.h"
#include "harness/build_info.h"
#include "harness/history_changes.h"
#include "harness/host_info.h"
#include "harness/measured_info.h"
#include "harness/project.h"
#include "harness/regression.h"
#include "harness/results.h"
#include "harness/runner.h"
#include "suites/registry.h"

namespace bb::app {
namespace {

constexpr int kExitOk = 0, kExitCheckFailed = 1, kExitUsage = 2;

int usage_error(const std::string& what, const std::string& sub = "") {
  std::fprintf(stderr, "boundbench: error: %s\nRun 'boundbench %s--help' for usage.\n",
               what.c_str(), sub.empty() ? "" : (sub + " ").c_str());
  return kExitUsage;
}

Environment discover() { return {query_host(), query_gpus()}; }

std::string join_args(int argc, char** argv) {
  return fmt::format("{}", fmt::join(argv, argv + argc, " "));
}

// "--name value" / "--name=value" pairs after the formula name; dashes in names become underscores.
std::map<std::string, std::string> parse_theory_args(const std::vector<std::string>& args) {
  std::map<std::string, std::string> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.rfind("--", 0) != 0 || a.size() < 3)
      throw std::invalid_argument("expected --name value, got '" + a + "'");
    std::string name = a.substr(2), value;
    if (const auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    } else {
      if (i + 1 >= args.size()) throw std::invalid_argument("--" + name + " needs a value");
      value = args[++i];
    }
    std::replace(name.begin(), name.end(), '-', '_');
    if (out.count(name)) throw std::invalid_argument("--" + name + " given twice");
    out[name] = value;
  }
  return out;
}

// The unit a parameter's name carries (the catalogue's convention: SI, unit in the name).
std::string param_unit(const ParamSpec& p) {
  if (!p.choices.empty()) return "name";
  const auto ends = [&](const char* suffix) { return p.name.ends_with(suffix); };
  if (ends("_bytes_per_s")) return "bytes/s";
  if (ends("_flop_per_s")) return "flop/s";
  if (ends("_flop_per_byte")) return "flop/byte";
  if (ends("_per_s")) return "1/s";
  if (ends("_bytes") || p.name == "bytes") return "bytes";
  if (ends("_flop") || p.name == "flop") return "flop";
  if (ends("_hz")) return "Hz";
  if (ends("_bits")) return "bits";
  if (ends("_s")) return "s";
  if (ends("_fraction")) return "fraction";
  return p.integer ? "count" : "number";
}

// `theory NAME --help`: the formula, its source, and each parameter with its unit and default.
int cmd_theory_help(const std::string& formula_name) {
  const Formula f = find_formula(formula_name);
  std::printf("%s: %s\nsource: %s\nusage: boundbench theory %s", f.name.c_str(), f.law.c_str(),
              f.source.c_str(), f.name.c_str());
  const auto dashed = [](std::string name) {
    std::replace(name.begin(), name.end(), '_', '-');
    return name;
  };
  for (const auto& p : f.params)
    std::printf(" %s--%s %s%s", p.default_value.empty() ? "" : "[", dashed(p.name).c_str(),
                p.choices.empty() ? "X" : "NAME", p.default_value.empty() ? "" : "]");
  std::printf(" [--json]\nparameters (numbers take Ki/Mi/Gi or k/M/G/T suffixes):\n");
  for (const auto& p : f.params) {
    std::string constraint = p.choices.empty() ? (p.positive   ? "> 0"
                                                  : p.any_sign ? "any sign"
                                                               : ">= 0")
                                               : "one of:";
    for (const auto& c : p.choices) constraint += " " + c;
    if (p.integer) constraint += ", whole";
    std::printf("  --%-30s %-10s %s (%s; %s)\n", dashed(p.name).c_str(), param_unit(p).c_str(),
                p.help.c_str(), constraint.c_str(),
                p.default_value.empty() ? "required" : ("default " + p.default_value).c_str());
  }
  return kExitOk;
}

int cmd_theory(const std::string& formula_name, std::vector<std::string> args, bool json,
               const std::string& from) {
  if (formula_name.empty()) {
    for (const auto& f : all_formulas()) {
      std::string params;
      for (const auto& p : f.params)
        params += " --" + p.name + (p.choices.empty() ? " X" : " NAME");
      std::printf("%-22s %s\n%-22s   boundbench theory %s%s\n%-22s   source: %s\n", f.name.c_str(),
                  f.law.c_str(), "", f.name.c_str(), params.c_str(), "", f.source.c_str());
    }
    return kExitOk;
  }
  const Formula f = find_formula(formula_name);
  // A bare first argument is the first parameter's value: `theory format e4m3`.
  if (!args.empty() && args[0].rfind("--", 0) != 0 && !f.params.empty())
    args.insert(args.begin(), "--" + f.params[0].name);
  auto raw = parse_theory_args(args);
  if (!from.empty()) {
    // Values the file measured (the collectives' α–β link) fill the parameters not given, as text
    // that parses back to the same value (std::to_string would print 2.6e-7 as 0.000000).
    const suites::MeasuredParameters measured = suites::measured_parameters(from);
    for (const auto& p : f.params)
      if (const auto it = measured.values.find(p.name);
          it != measured.values.end() && !raw.count(p.name))
        raw[p.name] = fmt::format("{:.17g}", it->second);
    std::printf("from %s: %s\n", from.c_str(), measured.source.c_str());
  }
  const auto outputs = evaluate_formula(f, raw);
  if (json) {
    nlohmann::json j = {{"formula", f.name}, {"law", f.law}, {"source", f.source}};
    j["inputs"] = raw;  // an object, {} when empty
    j["outputs"] = nlohmann::json::object();
    for (const auto& o : outputs)
      j["outputs"][o.name] = o.text.empty() ? nlohmann::json(o.value) : nlohmann::json(o.text);
    std::cout << j.dump(2) << "\n";
  } else {
    std::printf("%s: %s\n", f.name.c_str(), f.law.c_str());
    for (const auto& o : outputs) {
      if (o.text.empty())
        std::printf("  %-36s %.6g\n", o.name.c_str(), o.value);
      else
        std::printf("  %-36s %s\n", o.name.c_str(), o.text.c_str());
    }
  }
  return kExitOk;
}

// CUDA's integer versions (13000, 12040) as 13.0 and 12.4; 0 (none installed) as "none".
std::string cuda_version_text(int v) {
  return v > 0 ? fmt::format("{}.{}", v / 1000, v % 1000 / 10) : "none";
}

int cmd_info(bool json, const std::string& results_path) {
  const Environment env = discover();
  // A results file, when given, is read (and refused with a one-line error) before anything prints.
  const nlohmann::json results =
      results_path.empty() ? nlohmann::json() : load_results(results_path);
  if (json) {
    nlohmann::json out = {{"host", to_json(env.host)}, {"gpus", to_json(env.gpus)}};
    if (!results_path.empty())
      out["measured"] = results.value("figures", nlohmann::json::object())
                            .value("bandwidth", nlohmann::json::object());
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  const HostInfo& h = env.host;
  std::printf("host: %s, %d CPUs (%d cores), %.2f GHz, %.1f GiB\n", h.cpu_model.c_str(),
              h.logical_cpus, h.physical_cores, h.cpu_clock_hz / 1e9,
              static_cast<double>(h.memory_bytes) / (1u << 30));
  for (const auto& c : h.caches)
    std::printf("  L%d %-11s %9s, shared by %d CPUs\n", c.level, c.type.c_str(),
                binary_size_text(static_cast<double>(c.size_bytes)).c_str(), c.shared_by_cpus);
  std::string isa;
  for (const auto& f : h.isa) isa += " " + f;
  std::printf(
      "  ISA:%s\n  peak fp64 (estimate: %d lanes x 2 FMA units x 2 flop x cores x clock): "
      "%.1f GFLOP/s\n",
      isa.c_str(), h.fp64_simd_lanes(), h.peak_fp64_flop_per_s_estimate() / 1e9);
  const GpuStatus& g = env.gpus;
  std::printf("CUDA: runtime %s, driver %s, cuBLAS %s, cuBLASLt %s, NCCL %s\n",
              cuda_version_text(g.runtime_version).c_str(),
              cuda_version_text(g.driver_version).c_str(),
              g.cublas_version.empty() ? "-" : g.cublas_version.c_str(),
              g.cublaslt_version.empty() ? "-" : g.cublaslt_version.c_str(),
              g.nccl_version.empty() ? "not found" : g.nccl_version.c_str());
  if (!g.usable) std::printf("GPU: none usable: %s\n", g.reason.c_str());
  for (const auto& d : g.devices) {
    std::printf("GPU %d: %s (%s), %d SMs at %.0f MHz, %.1f GiB, L2 %.1f MiB\n", d.index,
                d.name.c_str(), d.arch().c_str(), d.sm_count, d.sm_clock_hz / 1e6,
                static_cast<double>(d.memory_bytes) / (1u << 30),
                static_cast<double>(d.l2_bytes) / (1u << 20));
    std::printf("  DRAM: %d-bit bus at %.0f MHz -> peak %.1f GB/s\n", d.bus_width_bits,
                d.memory_clock_hz / 1e6, d.peak_dram_bytes_per_s / 1e9);
    if (!d.arch_in_table) std::printf("  (%s is not in the peak table)\n", d.arch().c_str());
    for (auto p : theory::kAllPrecisions) {
      const auto i = static_cast<std::size_t>(p);
      if (d.peak_flop_per_s(p) <= 0) continue;
      std::printf("  %-5s CUDA cores %9.1f TFLOP/s  tensor %9.1f TFLOP/s  ridge %7.1f flop/byte\n",
                  std::string(theory::precision_name(p)).c_str(),
                  d.peak_cuda_core_flop_per_s[i] / 1e12, d.peak_tensor_flop_per_s[i] / 1e12,
                  d.peak_flop_per_s(p) / d.peak_dram_bytes_per_s);
    }
  }
  if (!results_path.empty())
    std::printf(
        "%s (%s)\n%s", results_path.c_str(),
        results.value(nlohmann::json::json_pointer("/context/boundbench/host/cpu_model"), "?")
            .c_str(),
        measured_hierarchy_text(results).c_str());
  return kExitOk;
}

int cmd_list(const std::vector<Suite>& suites, const std::vector<std::string>& wanted,
             const std::string& filter_text) {
  require_known_suites(suites, wanted);
  std::regex filter;
  try {
    filter = std::regex(filter_text, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw std::invalid_argument("--filter '" + filter_text + "' is not a valid regex: " + e.what());
  }
  std::size_t shown = 0;
  for (const auto& s : suites) {
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), s.name) == wanted.end())
      continue;
    std::vector<const Case*> cases;
    for (const auto& c : s.cases)
      if (std::regex_search(s.name + "/" + c.name, filter)) cases.push_back(&c);
    if (cases.empty() && !filter_text.empty()) continue;
    std::printf("%s: %s%s\n", s.name.c_str(), s.description.c_str(),
                s.suite_checks ? " [+ checks over all its cases]" : "");
    shown += cases.size();
    for (const Case* c : cases)
      std::printf("  %s/%s  [%s]  checks: validate, roofline%s%s\n", s.name.c_str(),
                  c->name.c_str(), backend_name(c->backend).c_str(),
                  c->backend == Backend::cuda ? ", clock" : "",
                  c->extra_checks ? ", case-specific" : "");
  }
  if (shown == 0 && !filter_text.empty())
    throw std::invalid_argument("no case matches --filter '" + filter_text + "'");
  return kExitOk;
}

int cmd_compare(const std::string& base_path, const std::string& next_path, double threshold_pct,
                bool cross_device, const std::string& markdown_path, bool json,
                const std::string& history_db) {
  CompareOptions opts{.threshold = threshold_pct / 100, .cross_device = cross_device};
  if (!markdown_path.empty()) ensure_writable(markdown_path);
  const nlohmann::json base = load_results(base_path);
  const nlohmann::json next = load_results(next_path);
  if (!history_db.empty()) {  // each case's spread between runs of this machine (issue 30)
    const std::string machine = run_identity(base).machine;
    opts.between_runs =
        between_run_spread(HistoryStore(history_db).history({.machine = machine}), machine);
  }
  RunComparison c;
  try {
    c = compare_runs(base, next, opts);
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument("malformed results file (" + std::string(e.what()) + ")");
  }
  // Issue 29: across devices, each case's time projected from base's limiter and % of bound onto
  // the new run's ceilings, beside what the new run measured (harness/project.h).
  std::optional<Projection> projected;
  if (cross_device) try {
      projected = project_to_run(base, next);
    } catch (const std::invalid_argument&) {
      // No sample to project from: the comparison stands alone.
    }
  if (json) {
    nlohmann::json j = comparison_json(c, opts);
    if (projected) j["projection"] = to_json(*projected);
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << comparison_table(c, opts);
    if (projected) std::cout << "\n" << projection_text(*projected);
  }
  if (!markdown_path.empty()) write_file_atomically(markdown_path, comparison_markdown(c, opts));
  return c.regressed() ? kExitCheckFailed : kExitOk;
}

// The report is drawn by ci/report.py (matplotlib): found beside a bundle's binary (../ci), else in
// the source tree this binary was built from; $BOUNDBENCH_REPORT_SCRIPT overrides both.
int cmd_report(const std::vector<std::string>& runs, const std::string& out_dir) {
  namespace fs = std::filesystem;
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("BOUNDBENCH_REPORT_SCRIPT")) candidates.emplace_back(env);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    candidates.push_back(exe.parent_path() / ".." / "ci" / "report.py");
    // The before/after view draws compare's own verdicts (reportlib/changes.py).
    ::setenv("BOUNDBENCH_EXE", exe.c_str(), 0);
  }
  candidates.push_back(fs::path(kSourceDir) / "ci" / "report.py");
  for (const auto& script : candidates) {
    if (!fs::exists(script, ec)) continue;
    // The first interpreter that has matplotlib: $BOUNDBENCH_PYTHON, python3 on PATH (PyTorch's on
    // the GPU machines), Debian's /usr/bin/python3 (with python3-matplotlib).
    std::vector<std::string> pythons = {"python3", "/usr/bin/python3"};
    if (const char* env = std::getenv("BOUNDBENCH_PYTHON")) pythons.insert(pythons.begin(), env);
    const auto python = std::find_if(pythons.begin(), pythons.end(), [](const std::string& p) {
      return std::system((p + " -c 'import matplotlib' >/dev/null 2>&1").c_str()) == 0;
    });
    if (python == pythons.end())
      throw std::runtime_error("no python3 with matplotlib (apt-get install python3-matplotlib)");
    std::vector<std::string> args = {*python, script.string()};
    args.insert(args.end(), runs.begin(), runs.end());
    args.insert(args.end(), {"--out", out_dir});
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::fflush(stdout);
    execvp(argv[0], argv.data());
    throw std::runtime_error("cannot run " + *python + ": " + std::strerror(errno));
  }
  throw std::runtime_error("ci/report.py not found (set BOUNDBENCH_REPORT_SCRIPT)");
}

}  // namespace

int cli_main(int argc, char** argv) {
  CLI::App app{"boundbench: ML-systems benchmarks held against bounds from theory"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "help for every subcommand");

  RunOptions opts;
  std::string backend = "all";
  bool no_fail = false;
  double max_noise = -1, min_time = -1, timeout = -1, precision = -1, spare = -1;
  int min_samples = -1;
  auto* run = app.add_subcommand("run", "run suites and write a results file");
  run->add_option("--suite", opts.suites, "suite to run (repeatable; default: all)");
  run->add_option("--backend", backend, "host, cuda or all")
      ->check(CLI::IsMember({"host", "cuda", "all"}));
  run->add_option("--filter", opts.filter, "ECMAScript regex searched in suite/case names");
  run->add_flag("--quick", opts.quick, "fewer samples and shorter timeouts (smoke test)");
  run->add_flag("--hot", opts.hot, "do not flush the GPU L2 before each sample");
  run->add_option("--device", opts.device, "CUDA device index (default 0)")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--out", opts.out_path, "results JSON file")
      ->default_val("boundbench-results.json");
  run->add_option("--label", opts.label,
                  "short name of this run in reports and comparisons (default: OUT's file name)");
  run->add_option("--summary", opts.summary_path, "markdown summary (default: OUT with .md)");
  run->add_flag("--no-fail", no_fail, "exit 0 even when a check fails");
  run->add_flag("--strict", opts.strict,
                "exit 1 on INCONCLUSIVE or BELOW-EXPECTATION checks too, not only on FAIL");
  run->add_option("--repetitions", opts.repetitions, "repetitions per case")
      ->check(CLI::Range(1, 1000));
  run->add_option("--host-peak-bw", opts.host_peak_bytes_per_s,
                  "host DRAM peak in bytes/s (channels x MT/s x 8) for the host roofline")
      ->check(CLI::PositiveNumber);
  run->add_option("--max-noise", max_noise, "stop when stddev/mean falls to this (default 0.005)")
      ->check(CLI::Range(0.0, 1.0));
  run->add_option("--min-samples", min_samples, "samples before stopping (default 10)")
      ->check(CLI::Range(2, 100000000));
  run->add_option("--min-time", min_time, "measured seconds before stopping (default 0.5)")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--timeout", timeout,
                  "seconds of sampling per case at most (default 5; a case or group feeding an "
                  "undecided check: 3 times this)")
      ->check(CLI::PositiveNumber);
  // Issue 27: spare seconds for the cases on track to their precision at their limit.
  run->add_option("--spare", spare,
                  "seconds the run may add, shared by the cases that reach their timeout on track "
                  "to --precision (each up to 3 times its timeout; default 120, --quick 0)")
      ->check(CLI::NonNegativeNumber);
  // Issue 29: the measured ceilings of an earlier run of this machine.
  run->add_option("--ceilings", opts.ceilings_path,
                  "an earlier results file of this machine: its measured ceilings bound the cases "
                  "where this run measures none");
  run->add_option("--precision", precision,
                  "stop when the median's sequential interval is within +-this fraction "
                  "(default 0.01)")
      ->check(CLI::Range(1e-6, 1.0));
  run->add_option("--roofline-tolerance", opts.roofline_tolerance,
                  "fraction by which a case may beat its roofline bound (default 0.05)")
      ->check(CLI::Range(0.0, 0.5));

  auto* list = app.add_subcommand("list", "list suites, cases and their checks");
  std::vector<std::string> list_suites;
  std::string list_filter;
  list->add_option("--suite", list_suites, "only this suite (repeatable)");
  list->add_option("--filter", list_filter, "ECMAScript regex searched in suite/case names");
  bool json = false;
  auto* info = app.add_subcommand("info", "host and GPU information, peaks and ridge points");
  info->add_flag("--json", json, "print JSON");
  std::string info_results;
  info->add_option("results", info_results,
                   "a results file: show its measured hierarchy beside the datasheet figures");
  std::string base_path, next_path, markdown_path;
  double threshold_pct = 5;
  bool cross_device = false;
  auto* cmp = app.add_subcommand("compare", "compare two results files: regressions and checks");
  cmp->add_option("base", base_path, "the baseline results file")->required();
  cmp->add_option("new", next_path, "the results file to judge")->required();
  cmp->add_option("--threshold", threshold_pct, "change in % that counts (default 5)")
      ->check(CLI::Range(0.0, 1000.0));
  cmp->add_option("--markdown", markdown_path, "also write a markdown summary here");
  cmp->add_flag("--cross-device", cross_device, "different devices: compare % of bound");
  cmp->add_flag("--json", json, "print JSON");
  std::string compare_db;
  cmp->add_option("--db", compare_db,
                  "a history store: each case's spread between runs of this machine widens its "
                  "interval");
  std::vector<std::string> report_runs;
  std::string report_out;
  auto* rep = app.add_subcommand("report", "HTML page and PNG plots comparing results files");
  rep->add_option("runs", report_runs, "results files")->required();
  rep->add_option("--out", report_out, "output folder")->required();
  // The history store (issue 30): `history add`, `history changes`.
  const HistoryCommand history = mount_history_command(app);
  const AbCommand ab = mount_ab_command(app);  // `ab BASE NEW -- RUN_OPTIONS`
  // The suites with their own driver (collectives), each a subcommand of its own.
  const std::vector<suites::SuiteCommand> commands =
      suites::mount_suite_commands(app, parse_quantity);
  // Issue 29: projection of a run onto another machine (app/project_cmd.h).
  // The files of a side are one machine's run split over files (harness/results_merge.h).
  std::vector<std::string> project_from, project_to;
  auto* proj = app.add_subcommand(
      "project", "predict each case's time on another machine from its limiter and % of bound");
  proj->add_option("runs", project_from,
                   "the results files to project: one machine's run, split over files (a case "
                   "in several: the last file's)")
      ->required();
  proj->add_option("--to", project_to,
                   "results files of the target machine (one run, split as the runs may be), or "
                   "a device name")
      ->required();
  proj->add_flag("--json", json, "print JSON");
  std::string formula, theory_from;
  auto* th = app.add_subcommand("theory", "evaluate a formula: theory NAME --param value ...");
  th->add_option("formula", formula, "formula name (none: list them)");
  th->add_flag("--json", json, "print JSON");
  th->add_option("--from", theory_from,
                 "results file of `collectives`: its fitted alpha and link bandwidth fill "
                 "--alpha-s and --link-bytes-per-s");
  th->allow_extras();

  // `theory NAME --help` describes that formula (CLI11 would print the subcommand's help).
  if (argc >= 4 && std::string(argv[1]) == "theory" && argv[2][0] != '-')
    for (int i = 3; i < argc; ++i)
      if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
        try {
          return cmd_theory_help(argv[2]);
        } catch (const std::invalid_argument& e) {
          return usage_error(e.what(), "theory");
        }
      }

  // Everything after "--" belongs to Google Benchmark (run only); CLI11 sees what comes before.
  const int own_argc =
      static_cast<int>(std::find(argv + 1, argv + argc, std::string_view("--")) - argv);
  const std::vector<std::string> passthrough(argv + std::min(own_argc + 1, argc), argv + argc);
  try {
    app.parse(own_argc, argv);
  } catch (const CLI::Success& e) {  // --help, --help-all
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return usage_error(e.what());
  }

  try {
    if (*ab.command) return ab.run(passthrough);
    if (!passthrough.empty() && !*run) return usage_error("arguments after -- are for 'run' only");
    if (*th) return cmd_theory(formula, th->remaining(), json, theory_from);
    for (const auto& c : commands)
      if (*c.command) return c.run(join_args(argc, argv), argc, argv);
    if (*proj) return cmd_project(project_from, project_to, json);
    if (*history.command) return history.run();
    if (*info) return cmd_info(json, info_results);
    if (*rep) return cmd_report(report_runs, report_out);
    if (*cmp)
      return cmd_compare(base_path, next_path, threshold_pct, cross_device, markdown_path, json,
                         compare_db);
    // The case lists span this machine's caches (the sweeps), so the hardware is found first.
    const Environment env = discover();
    const GpuDevice* target_gpu = env.gpus.usable && opts.device >= 0 &&
                                          opts.device < static_cast<int>(env.gpus.devices.size())
                                      ? &env.gpus.devices[static_cast<std::size_t>(opts.device)]
                                      : nullptr;
    const std::vector<Suite> suites =
        suites::all_suites({&env.host, target_gpu, *run && opts.quick});
    if (*list) return cmd_list(suites, list_suites, list_filter);

    // run: validate everything before measuring anything.
    for (const auto& extra : passthrough) {
      if (extra.rfind("--benchmark_", 0) != 0)
        return usage_error(
            "after --, only Google Benchmark flags (--benchmark_...), not '" + extra + "'", "run");
      opts.benchmark_args.push_back(extra);
    }
    if (backend != "all") opts.backend = backend_from_name(backend);
    opts.rule = opts.quick ? StoppingRule::quick() : StoppingRule{};
    if (max_noise >= 0) opts.rule.max_rel_noise = max_noise;
    if (min_samples >= 0) opts.rule.min_samples = static_cast<std::size_t>(min_samples);
    if (min_time >= 0) opts.rule.min_time_s = min_time;
    if (timeout > 0) opts.rule.timeout_s = timeout;
    if (precision > 0) opts.rule.precision = precision;
    opts.spare_s = spare >= 0 ? spare : opts.quick ? 0.0 : kDefaultSpareS;
    if (opts.summary_path.empty())
      opts.summary_path = std::filesystem::path(opts.out_path).replace_extension(".md").string();
    opts.command_line = join_args(argc, argv);
    if (std::filesystem::path(opts.summary_path).lexically_normal() ==
        std::filesystem::path(opts.out_path).lexically_normal())
      return usage_error("--summary and --out name the same file (" + opts.out_path + ")", "run");
    ensure_writable(opts.out_path);
    ensure_writable(opts.summary_path);
    if (!opts.ceilings_path.empty())
      load_results(opts.ceilings_path);  // bad input before measuring
    const Selection selection = select_cases(suites, opts, env);
    if (!env.gpus.usable)
      std::printf("GPU: none usable (%s); the CUDA backend is skipped\n", env.gpus.reason.c_str());
    if (selection.matched == 0) return usage_error("no case matches the selection", "run");
    const RunOutcome out = run_cases(selection, opts, env);
    std::printf("results: %s\nsummary: %s\n", opts.out_path.c_str(), opts.summary_path.c_str());
    return out.failed(opts.strict) && !no_fail ? kExitCheckFailed : kExitOk;
  } catch (const std::invalid_argument& e) {
    std::string sub = *th ? "theory" : *run ? "run" : *cmp ? "compare" : *list ? "list" : "";
    for (const auto& c : commands)
      if (*c.command) sub = c.command->get_name();
    return usage_error(e.what(), sub);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "boundbench: error: %s\n", e.what());
    return kExitCheckFailed;
  }
}

}  // namespace bb::app
