//===- TimeRanges.h - unions, gaps and differences --------------*- C++ -*-===//
//-*-===//
//
// The interval arithmetic behind GPU busy and idle time: a set of half-open
// ranges [start, end) of nanoseconds, kept as a sorted list of disjoint,
// non-empty ranges (a "union"), with its length, its gaps, differences and
// intersections. Ranges that touch are merged; empty ones take no time and
// are dropped.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_REPORT_TIMERANGES_H
#define PERFCC_DRIVER_PERFCTL_REPORT_TIMERANGES_H

#include "trace/TraceModel.h"

#include <vector>

namespace perfcc::perfctl {

/// [start, end) in nanoseconds.
struct TimeRange {
  TimeNs start = 0, end = 0;
  TimeNs length() const { return end > start ? end - start : 0; }
  friend bool operator==(const TimeRange &a, const TimeRange &b) {
    return a.start == b.start && a.end == b.end;
  }
};

/// The union of \p ranges: sorted, disjoint, non-empty, touching ones
/// merged.
std::vector<TimeRange> unionOf(std::vector<TimeRange> ranges);
/// The total length of a union.
TimeNs totalLength(const std::vector<TimeRange> &ranges);
/// The parts of \p window that no range of the union covers: the gaps
/// between its ranges, and before the first and after the last where the
/// window reaches past them (a record of no length can set its edge).
std::vector<TimeRange> gapsOf(const std::vector<TimeRange> &unionRanges,
                              TimeRange window);
/// \p a minus \p b, both unions.
std::vector<TimeRange> subtract(const std::vector<TimeRange> &a,
                                const std::vector<TimeRange> &b);
/// The length of \p range's intersection with the union \p ranges.
TimeNs overlapLength(const std::vector<TimeRange> &ranges, TimeRange range);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_REPORT_TIMERANGES_H
