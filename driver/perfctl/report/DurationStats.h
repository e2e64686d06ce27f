//===- DurationStats.h - count, total, mean and percentiles -----*- C++ -*-===//
//
// The statistics every table of perfctl report shows for a set of
// durations: count, total, mean, p50, p99, min and max. Percentiles are
// nearest-rank (the smallest value with at least q of the values at or below
// it), so each is a duration that occurred, in whole nanoseconds.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_REPORT_DURATIONSTATS_H
#define PERFCC_DRIVER_PERFCTL_REPORT_DURATIONSTATS_H

#include "trace/TraceModel.h"

#include <cstdint>
#include <vector>

namespace perfcc::perfctl {

struct DurationStats {
  std::uint64_t count = 0;
  TimeNs total = 0;
  double mean = 0; ///< total / count; 0 when empty
  TimeNs p50 = 0, p99 = 0, min = 0, max = 0;
};

/// The statistics of \p values (reordered).
DurationStats durationStats(std::vector<TimeNs> &values);

/// The nearest-rank \p q-quantile (0 < q <= 1) of sorted \p values; 0 when
/// empty.
TimeNs nearestRank(const std::vector<TimeNs> &sorted, double q);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_REPORT_DURATIONSTATS_H
