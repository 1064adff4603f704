// `boundbench project A.json [A2.json ...] --to B.json [B2.json ...]|DEVICE [--json]`
// (harness/project.h; the files of a side are one machine's run split over files,
// harness/results_merge.h).
#pragma once

#include <string>
#include <vector>

namespace bb::app {

// 0 on success; 2 with one line on stderr for bad input (a run without samples, another schema, an
// unknown device, nothing to project, files of one side from different machines).
int cmd_project(const std::vector<std::string>& from_paths, const std::vector<std::string>& to,
                bool json);

}  // namespace bb::app
