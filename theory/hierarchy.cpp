#include "theory/hierarchy.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <locale>
#include <sstream>
#include <stdexcept>

namespace bb::theory {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

CacheCurve detect_cache_steps(const std::vector<double>& sizes_bytes,
                              const std::vector<double>& cost, const StepRule& rule) {
  if (sizes_bytes.size() != cost.size())
    throw std::invalid_argument("cache curve: sizes and costs differ in length");
  for (std::size_t i = 0; i < cost.size(); ++i) {
    if (!(cost[i] > 0) || !std::isfinite(cost[i]))
      throw std::invalid_argument("cache curve: costs must be positive and finite");
    if (!(sizes_bytes[i] > 0) || (i > 0 && !(sizes_bytes[i] > sizes_bytes[i - 1])))
      throw std::invalid_argument("cache curve: sizes must be positive and strictly increasing");
  }
  CacheCurve curve;
  const std::size_t n = cost.size();
  // Plateaus: maximal runs whose neighbour-to-neighbour change stays within the flat rate,
  // scaled to the distance between the two sizes in octaves.
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j + 1 < n) {
      const double octaves = std::log2(sizes_bytes[j + 1] / sizes_bytes[j]);
      const double allowed = std::pow(rule.flat_per_octave, std::max(octaves, 0.25));
      const double r = cost[j + 1] / cost[j];
      if (r > allowed || r < 1 / allowed) break;
      ++j;
    }
    if (j - i + 1 >= rule.min_plateau_points)
      curve.plateaus.push_back(
          {i, j, median(std::vector<double>(cost.begin() + i, cost.begin() + j + 1))});
    i = j + 1;
  }
  // Steps: neighbouring plateaus whose levels differ clearly; the capacity is where the cost
  // first crosses the geometric midpoint of the two levels, interpolated in log-log.
  for (std::size_t p = 0; p + 1 < curve.plateaus.size(); ++p) {
    const Plateau& lo = curve.plateaus[p];
    const Plateau& hi = curve.plateaus[p + 1];
    const double ratio = hi.level / lo.level;
    if (ratio < rule.min_step_ratio) continue;
    const double mid = std::sqrt(lo.level * hi.level);
    for (std::size_t k = lo.last; k < hi.first; ++k) {
      if (cost[k + 1] < mid) continue;
      const double t =
          cost[k] >= mid ? 0.0 : std::log(mid / cost[k]) / std::log(cost[k + 1] / cost[k]);
      const double capacity =
          std::exp(std::log(sizes_bytes[k]) + t * std::log(sizes_bytes[k + 1] / sizes_bytes[k]));
      curve.steps.push_back({p, p + 1, capacity, ratio});
      break;
    }
  }
  return curve;
}

CapacityMatch match_capacity(const CacheCurve& curve, double reported_bytes, double factor,
                             double search_factor) {
  CapacityMatch m;
  double best = std::log(search_factor);
  for (const CacheStep& s : curve.steps) {
    const double d = std::fabs(std::log(s.capacity_bytes / reported_bytes));
    if (d <= best) {
      best = d;
      m.detected_bytes = s.capacity_bytes;
    }
  }
  if (m.detected_bytes) {
    m.ratio = *m.detected_bytes / reported_bytes;
    m.within = std::max(m.ratio, 1 / m.ratio) <= factor;
  }
  return m;
}

std::optional<LastLevelExit> last_level_exit(const std::vector<double>& sizes_bytes,
                                             const std::vector<double>& cost,
                                             const CacheCurve& curve, const StepRule& rule) {
  if (curve.plateaus.size() < 2 || sizes_bytes.size() != cost.size()) return std::nullopt;
  LastLevelExit e;
  e.memory_level = curve.plateaus.back().level;
  for (std::size_t p = curve.plateaus.size() - 1; p-- > 0;)
    if (e.memory_level / curve.plateaus[p].level >= rule.min_step_ratio) {
      e.cache_level = curve.plateaus[p].level;
      break;
    }
  if (e.cache_level <= 0) return std::nullopt;
  e.threshold = std::sqrt(e.cache_level * e.memory_level);
  std::size_t k = cost.size();  // the first index from which every cost is at or over it
  while (k > 0 && cost[k - 1] >= e.threshold) --k;
  if (k == 0 || k == cost.size()) return std::nullopt;
  e.below_bytes = sizes_bytes[k - 1];
  e.above_bytes = sizes_bytes[k];
  const double t = std::log(e.threshold / cost[k - 1]) / std::log(cost[k] / cost[k - 1]);
  e.crossing_bytes =
      std::exp(std::log(e.below_bytes) + t * std::log(e.above_bytes / e.below_bytes));
  return e;
}

double strided_bytes_moved(std::uint64_t accesses, std::uint64_t stride_elements,
                           std::uint64_t element_bytes, std::uint64_t sector_bytes) {
  if (accesses == 0) return 0;
  const std::uint64_t step_bytes = stride_elements * element_bytes;
  // Steps of a sector or more never share a sector; shorter steps skip none between first and last.
  const std::uint64_t sectors =
      step_bytes >= sector_bytes ? accesses : (accesses - 1) * step_bytes / sector_bytes + 1;
  return static_cast<double>(sectors) * static_cast<double>(sector_bytes);
}

WorkCount strided_read_work(std::uint64_t accesses, std::uint64_t stride_elements,
                            std::uint64_t element_bytes, std::uint64_t sector_bytes) {
  const auto n = static_cast<double>(accesses);
  return {strided_bytes_moved(accesses, stride_elements, element_bytes, sector_bytes), 0, n, n};
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  // A whole number as printf's %.0f (fixed), any other as %.3g (the default floatfield).
  const bool whole = bytes == std::floor(bytes);
  std::ostringstream text;
  text.imbue(std::locale::classic());
  text << (whole ? std::fixed : std::defaultfloat) << std::setprecision(whole ? 0 : 3) << bytes
       << ' ' << units[u];
  return text.str();
}

}  // namespace bb::theory
