//===- TimeRanges.cpp - unions, gaps and differences of time ranges -------===//
#include "report/TimeRanges.h"

#include <algorithm>

namespace perfcc::perfctl {

std::vector<TimeRange> unionOf(std::vector<TimeRange> ranges) {
  ranges.erase(
      std::remove_if(ranges.begin(), ranges.end(),
                     [](const TimeRange &r) { return r.end <= r.start; }),
      ranges.end());
  std::sort(ranges.begin(), ranges.end(),
            [](const TimeRange &a, const TimeRange &b) {
              return a.start != b.start ? a.start < b.start : a.end < b.end;
            });
  std::vector<TimeRange> out;
  for (const TimeRange &r : ranges) {
    if (!out.empty() && r.start <= out.back().end)
      out.back().end = std::max(out.back().end, r.end);
    else
      out.push_back(r);
  }
  return out;
}

TimeNs totalLength(const std::vector<TimeRange> &ranges) {
  TimeNs total = 0;
  for (const TimeRange &r : ranges)
    total += r.length();
  return total;
}

std::vector<TimeRange> gapsOf(const std::vector<TimeRange> &unionRanges,
                              TimeRange window) {
  if (window.length() <= 0)
    return {};
  return subtract({window}, unionRanges);
}

std::vector<TimeRange> subtract(const std::vector<TimeRange> &a,
                                const std::vector<TimeRange> &b) {
  std::vector<TimeRange> out;
  std::size_t j = 0;
  for (TimeRange r : a) {
    while (j < b.size() && b[j].end <= r.start)
      ++j;
    TimeNs cursor = r.start;
    for (std::size_t k = j; k < b.size() && b[k].start < r.end; ++k) {
      if (b[k].start > cursor)
        out.push_back(TimeRange{cursor, b[k].start});
      cursor = std::max(cursor, b[k].end);
    }
    if (cursor < r.end)
      out.push_back(TimeRange{cursor, r.end});
  }
  return out;
}

TimeNs overlapLength(const std::vector<TimeRange> &ranges, TimeRange range) {
  auto it =
      std::lower_bound(ranges.begin(), ranges.end(), range.start,
                       [](const TimeRange &r, TimeNs t) { return r.end <= t; });
  TimeNs total = 0;
  for (; it != ranges.end() && it->start < range.end; ++it)
    total += std::max<TimeNs>(0, std::min(it->end, range.end) -
                                     std::max(it->start, range.start));
  return total;
}

} // namespace perfcc::perfctl
