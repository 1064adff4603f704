// `boundbench info RESULTS.json`: the hierarchy a run measured, beside the datasheet figures.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace bb {

// Text for the measured figures of a results file (figures.bandwidth, per backend): latency and
// bandwidth per level with detected vs reported capacities, best STREAM bandwidth (and % of the
// DRAM peak), DRAM latency, Little's law bytes in flight, measured ceilings and ridge points.
// Says so when the file holds no bandwidth figures.
std::string measured_hierarchy_text(const nlohmann::json& results);

}  // namespace bb
