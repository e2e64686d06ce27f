//===- DurationStats.cpp - count, total, mean and percentiles -------------===//
#include "report/DurationStats.h"

#include <algorithm>
#include <cmath>

namespace perfcc::perfctl {

TimeNs nearestRank(const std::vector<TimeNs> &sorted, double q) {
  if (sorted.empty())
    return 0;
  // ceil(q n) - 1, computed so that q n landing a rounding error above a
  // whole number (0.99 * 100) does not skip a rank.
  double rank = std::ceil(q * double(sorted.size()) - 1e-9);
  std::size_t at = rank < 1 ? 0 : std::size_t(rank) - 1;
  return sorted[std::min(at, sorted.size() - 1)];
}

DurationStats durationStats(std::vector<TimeNs> &values) {
  DurationStats s;
  if (values.empty())
    return s;
  std::sort(values.begin(), values.end());
  s.count = values.size();
  for (TimeNs v : values)
    s.total += v;
  s.mean = double(s.total) / double(s.count);
  s.p50 = nearestRank(values, 0.50);
  s.p99 = nearestRank(values, 0.99);
  s.min = values.front();
  s.max = values.back();
  return s;
}

} // namespace perfcc::perfctl
