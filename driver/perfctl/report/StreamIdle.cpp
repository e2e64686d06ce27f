//===- StreamIdle.cpp - why a stream sat idle between its records ---------===//
#include "report/StreamIdle.h"

#include <algorithm>

namespace perfcc::perfctl {

StreamIdleBreakdown breakDownStreamIdle(const TraceModel &model,
                                        const LaunchIndex &launches,
                                        std::size_t first, std::size_t last,
                                        TimeNs shortGapNs) {
  StreamIdleBreakdown idle;
  if (first >= last)
    return idle;
  // The latest end so far, not the previous record's: records of one
  // stream can overlap (the trace then draws them on overflow rows).
  TimeNs busyUntil = model.gpuRecords[first].end;
  for (std::size_t r = first + 1; r < last; ++r) {
    const GpuRecord &record = model.gpuRecords[r];
    TimeNs gap = record.start - busyUntil;
    if (gap > 0) {
      const ApiCall *launch = launches.launch(model, r);
      if (launch && launch->start > busyUntil)
        idle.hostWait.add(gap);
      else if (gap < shortGapNs)
        idle.shortGap.add(gap);
      else
        idle.other.add(gap);
    }
    busyUntil = std::max(busyUntil, record.end);
  }
  return idle;
}

} // namespace perfcc::perfctl
