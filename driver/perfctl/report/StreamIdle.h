//===- StreamIdle.h - why a stream sat idle between its records -*- C++ -*-===//
//
// Holistic Trace Analysis's idle-time breakdown of one stream: its records
// in start order, each gap the time from the latest end so far to the next
// start. A gap is
//  - host wait: the next record's launch call began after the previous
//    record had ended: the host asked too late;
//  - short gap: otherwise, when shorter than the threshold (--short-gap):
//    the turnaround between work already queued;
//  - other: the rest (a dependency on another stream, an event, ...).
// A record without a launch call cannot be host wait.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_REPORT_STREAMIDLE_H
#define PERFCC_DRIVER_PERFCTL_REPORT_STREAMIDLE_H

#include "report/LaunchIndex.h"
#include "trace/TraceModel.h"

#include <cstdint>
#include <vector>

namespace perfcc::perfctl {

struct GapTotal {
  std::uint64_t count = 0;
  TimeNs total = 0;
  void add(TimeNs gap) {
    ++count;
    total += gap;
  }
};

struct StreamIdleBreakdown {
  GapTotal hostWait, shortGap, other;
  TimeNs total() const { return hostWait.total + shortGap.total + other.total; }
};

/// The breakdown of the stream whose records are model.gpuRecords[first,
/// last) (one device and stream, canonical order: by start).
StreamIdleBreakdown breakDownStreamIdle(const TraceModel &model,
                                        const LaunchIndex &launches,
                                        std::size_t first, std::size_t last,
                                        TimeNs shortGapNs);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_REPORT_STREAMIDLE_H
