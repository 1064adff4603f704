#include "app/ab_cli.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "harness/ab.h"
#include "harness/regression.h"
#include "harness/results.h"

namespace bb::app {
namespace {

struct AbArgs {
  std::string base, next, markdown, keep;
  int rounds = 5;
  double threshold_pct = 5;
  bool json = false;
};

// Runs `binary run OPTIONS --out OUT --summary OUT.md --no-fail`, its output in OUT.log. Throws
// std::runtime_error when it cannot start or ends other than 0 or 1.
void run_once(const std::string& binary, const std::vector<std::string>& options,
              const std::string& out) {
  std::vector<std::string> args = {binary, "run"};
  args.insert(args.end(), options.begin(), options.end());
  args.insert(args.end(), {"--out", out, "--summary", out + ".md", "--no-fail"});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string log = out + ".log";
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    execv(argv[0], argv.data());
    std::fprintf(stderr, "cannot run %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) > 1)
    throw std::runtime_error(fmt::format("{} run ended with {} {} (its output: {})", binary,
                                         WIFEXITED(status) ? "exit code" : "signal",
                                         WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
                                         log));
}

int cmd_ab(const AbArgs& a, const std::vector<std::string>& options) {
  namespace fs = std::filesystem;
  for (const auto& b : {a.base, a.next})
    if (access(b.c_str(), X_OK) != 0) throw std::invalid_argument(b + ": not an executable file");
  if (!a.markdown.empty()) ensure_writable(a.markdown);
  std::string dir = a.keep;
  if (dir.empty()) {
    std::string tmpl = (fs::temp_directory_path() / "boundbench-ab-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("cannot make a temporary folder");
    dir = tmpl;
  } else {
    fs::create_directories(dir);
  }
  const std::string base = fs::absolute(a.base).string(), next = fs::absolute(a.next).string();
  std::vector<nlohmann::json> base_runs, next_runs;
  for (int round = 0; round < a.rounds; ++round) {
    // ABBA: even rounds base first, odd rounds new first, so a drift over the session falls on
    // both sides alike.
    const std::string fb = fmt::format("{}/base-{}.json", dir, round);
    const std::string fn = fmt::format("{}/new-{}.json", dir, round);
    std::fprintf(stderr, "ab: round %d of %d\n", round + 1, a.rounds);
    if (round % 2 == 0) {
      run_once(base, options, fb);
      run_once(next, options, fn);
    } else {
      run_once(next, options, fn);
      run_once(base, options, fb);
    }
    base_runs.push_back(load_results(fb));
    next_runs.push_back(load_results(fn));
  }
  const AbOptions opts{.threshold = a.threshold_pct / 100};
  const AbReport r = judge_ab(base_runs, next_runs, opts);
  if (a.json)
    std::cout << ab_json(r, opts).dump(2) << "\n";
  else
    std::cout << ab_table(r, opts);
  if (!a.markdown.empty()) write_file_atomically(a.markdown, ab_markdown(r, opts));
  if (a.keep.empty()) fs::remove_all(dir);
  return r.regressed() ? 1 : 0;
}

}  // namespace

AbCommand mount_ab_command(CLI::App& app) {
  auto a = std::make_shared<AbArgs>();
  auto* ab = app.add_subcommand(
      "ab", "interleaved A/B of two builds: BASE NEW [options] -- RUN_OPTIONS (ABBA rounds)");
  ab->add_option("base", a->base, "the base build's boundbench binary")->required();
  ab->add_option("new", a->next, "the new build's boundbench binary")->required();
  ab->add_option("--rounds", a->rounds, "rounds, each one run of each build (default 5)")
      ->check(CLI::Range(3, 1000));
  ab->add_option("--threshold", a->threshold_pct, "change in % that counts (default 5)")
      ->check(CLI::Range(0.0, 1000.0));
  ab->add_flag("--json", a->json, "print JSON");
  ab->add_option("--markdown", a->markdown, "also write a markdown summary here");
  ab->add_option("--keep", a->keep, "keep every round's results files in this folder");
  return {ab, [a](const std::vector<std::string>& options) -> int {
            try {
              return cmd_ab(*a, options);
            } catch (const std::exception& e) {
              std::fprintf(stderr, "boundbench: error: %s\n", e.what());
              return 2;
            }
          }};
}

}  // namespace bb::app
