#include "app/project_cmd.h"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "harness/project.h"
#include "harness/regression.h"
#include "harness/results_merge.h"

namespace bb::app {
namespace {

// The files of one side as one run; its notes prefixed with the side ("A: ...").
nlohmann::json load_side(const std::vector<std::string>& paths, const std::string& side,
                         std::vector<std::string>& notes) {
  std::vector<RunFile> files;
  for (const auto& p : paths) files.push_back({p, load_results(p)});
  MergedRun m = merge_runs(std::move(files));
  for (const auto& n : m.notes) notes.push_back(side + ": " + n);
  return std::move(m.doc);
}

}  // namespace

int cmd_project(const std::vector<std::string>& from_paths, const std::vector<std::string>& to,
                bool json) {
  try {
    std::vector<std::string> notes;
    const nlohmann::json a = load_side(from_paths, "A", notes);
    // Paths that exist (or name .json files) are runs of the target; one other word a device.
    const bool to_device =
        to.size() == 1 && !std::filesystem::exists(to[0]) && !to[0].ends_with(".json");
    const Projection p =
        to_device ? project_to_device(a, to[0]) : project_to_run(a, load_side(to, "B", notes));
    if (json) {
      nlohmann::json j = to_json(p);
      if (!notes.empty()) j["notes"] = notes;
      std::cout << j.dump(2) << "\n";
    } else {
      for (const auto& n : notes) std::cout << n << "\n";
      std::cout << projection_text(p);
    }
    return 0;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "boundbench project: error: %s\n", e.what());
    return 2;
  } catch (const nlohmann::json::exception& e) {
    std::fprintf(stderr, "boundbench project: error: malformed results file (%s)\n", e.what());
    return 2;
  }
}

}  // namespace bb::app
