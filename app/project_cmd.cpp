#include "app/project_cmd.h"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "harness/project.h"
#include "harness/regression.h"

namespace bb::app {

int cmd_project(const std::string& from_path, const std::string& to, bool json) {
  try {
    const nlohmann::json a = load_results(from_path);
    // A path that exists (or names a .json file) is a run of the target; anything else a device.
    const bool to_run = std::filesystem::exists(to) || to.ends_with(".json");
    const Projection p = to_run ? project_to_run(a, load_results(to)) : project_to_device(a, to);
    if (json)
      std::cout << to_json(p).dump(2) << "\n";
    else
      std::cout << projection_text(p);
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
