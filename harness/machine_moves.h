// `compare` of two single runs without a history store: a case that moved together with the other
// cases that share its limiter (the DRAM, a cache level, the cores) cannot be told from the
// machine by one pair of runs — a neighbour's memory traffic slows every DRAM-bound case at once —
// so it is AMBIGUOUS with that reason unless it moved beyond them (as `boundbench ab` judges
// round by round, harness/ab.h; `compare --db` has each case's own spread between runs instead).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "harness/regression.h"

namespace bb {

// The resource a case shares with others: its bound's limiter ("dram", "l2", "compute", ...)
// where the run judged one, else its suite (the part of the name before the first '/').
std::string shared_resource(const nlohmann::json& benchmark);

// For each SLOWER or FASTER case judged from samples: its partners are the other cases with the
// same shared resource (in the base run) whose change is beyond ±threshold in the same direction.
// With at least `min_partners`, the case is judged again on its change less their median change;
// called only when that interval is still beyond the threshold (noted), else AMBIGUOUS with the
// group's change in the note. Changes nothing else.
void mark_machine_moves(RunComparison& c, const nlohmann::json& base, const CompareOptions& opts,
                        std::size_t min_partners = 2);

}  // namespace bb
