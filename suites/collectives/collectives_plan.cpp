#include "suites/collectives/collectives_plan.h"

#include <cmath>
#include <iterator>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "suites/collectives/collectives_checks.h"

namespace bb::collectives {
namespace {

using reference::DType;
using reference::RedOp;
using theory::Collective;

template <typename T, typename F>
std::vector<T> parse_list(const std::vector<std::string>& names, F from_name, const char* what) {
  std::vector<T> out;
  for (const auto& n : names) {
    const auto v = from_name(n);
    if (!v) throw std::invalid_argument(std::string("unknown ") + what + " '" + n + "'");
    out.push_back(*v);
  }
  return out;
}

std::vector<double> sweep_sizes(double min_bytes, double max_bytes, double factor) {
  std::vector<double> sizes;
  for (double b = min_bytes; b <= max_bytes * (1 + 1e-12); b *= factor)
    sizes.push_back(std::floor(b));
  return sizes;
}

bool has_root(Collective c) { return c == Collective::broadcast || c == Collective::reduce; }

}  // namespace

std::vector<Planned> plan(const Options& o, int ranks, bool coverage_here, double max_bytes) {
  const auto ops = o.ops.empty()
                       ? std::vector<Collective>(std::begin(theory::kAllCollectives),
                                                 std::end(theory::kAllCollectives))
                       : parse_list<Collective>(o.ops, theory::collective_from_name, "collective");
  const auto dtypes = parse_list<DType>(o.dtypes, reference::dtype_from_name, "data type");
  const auto redops = parse_list<RedOp>(o.redops, reference::redop_from_name, "reduction");
  std::vector<bool> placements;
  if (o.placement != "in-place") placements.push_back(false);
  if (o.placement != "out-of-place") placements.push_back(true);
  std::vector<Planned> out;
  const auto add = [&out](const Spec& spec, double bytes, bool sweep) {
    // all_to_all and send_recv run out of place only (NCCL has no in-place form of them; the MPI
    // engine measures the same set).
    const bool out_of_place_only =
        spec.op == Collective::all_to_all || spec.op == Collective::send_recv;
    if (!spec.in_place || !out_of_place_only) out.push_back({spec, bytes, sweep});
  };
  const auto sizes = sweep_sizes(o.min_bytes, max_bytes, o.step_factor);
  for (auto op : ops)
    for (auto t : dtypes)
      for (std::size_t r = 0; r < (theory::collective_reduces(op) ? redops.size() : 1); ++r)
        for (bool in_place : placements)
          for (double b : sizes) add({op, t, redops[r], in_place, 0}, b, true);
  if (!coverage_here) return out;
  for (auto op : theory::kAllCollectives)
    for (auto t : reference::kAllDTypes)
      for (auto r : reference::kAllRedOps) {
        if (!theory::collective_reduces(op) && r != RedOp::sum) continue;
        for (bool in_place : {false, true}) {
          const double e = static_cast<double>(reference::dtype_bytes(t));
          for (double b : {e * ranks, e * ranks * 945, 262144.0})
            add({op, t, r, in_place, ranks > 1 && has_root(op) ? 1 : 0}, b, false);
        }
      }
  return out;
}

std::vector<int> rank_counts(const Options& o, int world) {
  if (!o.ranks.empty()) {
    for (int r : o.ranks)
      if (r < 1 || r > world)
        throw std::invalid_argument("--ranks " + std::to_string(r) + ": the world has " +
                                    std::to_string(world) + " ranks");
    return o.ranks;
  }
  std::vector<int> counts;
  for (int r = 1; r < world; r *= 2) counts.push_back(r);
  counts.push_back(world);
  return counts;
}

std::string case_name(const Spec& s, const std::string& transport, int ranks, std::size_t bytes) {
  return series_name(s.op, s.dtype, s.redop, s.in_place, s.root) + "/" + std::to_string(bytes) +
         "B/" + transport + "-p" + std::to_string(ranks);
}

std::string canonical(const Options& o) {
  const nlohmann::json j = {{"transport", o.transport},   {"ops", o.ops},
                            {"dtypes", o.dtypes},         {"redops", o.redops},
                            {"placement", o.placement},   {"min", o.min_bytes},
                            {"max", o.max_bytes},         {"step", o.step_factor},
                            {"ranks", o.ranks},           {"samples", o.samples},
                            {"warmup", o.warmup},         {"time", o.sample_time_s},
                            {"coverage", o.coverage},     {"timeout", o.timeout_s},
                            {"reduce", o.time_reduction}, {"quick", o.quick}};
  return j.dump();
}

}  // namespace bb::collectives
