// `boundbench project A.json --to B.json|DEVICE [--json]` (harness/project.h).
#pragma once

#include <string>

namespace bb::app {

// 0 on success; 2 with one line on stderr for bad input (a run without samples, another schema, an
// unknown device, nothing to project).
int cmd_project(const std::string& from_path, const std::string& to, bool json);

}  // namespace bb::app
