//===- GpuUsage.h - GPU busy and idle per device and stream -----*- C++ -*-===//
//-*-===//
//
// Per device, its window (the first GPU record's start to the last one's end,
// as Holistic Trace Analysis defines it), the time some record ran (the
// union of the records' intervals: busy) and the rest (idle), and busy time
// by kind as a partition: compute while a kernel runs, copy while a copy
// runs and no kernel does, memset while only a memset runs. The same per
// stream, against the device's window, with the stream's idle breakdown
// (StreamIdle.h). Host waits on the GPU (cuda_sync) are counted apart: the
// host was blocked, the GPU not necessarily busy.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_REPORT_GPUUSAGE_H
#define PERFCC_DRIVER_PERFCTL_REPORT_GPUUSAGE_H

#include "report/LaunchIndex.h"
#include "report/StreamIdle.h"
#include "report/TimeRanges.h"
#include "trace/TraceModel.h"

#include <cstdint>
#include <vector>

namespace perfcc::perfctl {

/// Busy time split by what ran; the three add up to the busy time.
struct BusyByKind {
  TimeNs compute = 0, copy = 0, memset = 0;
};

struct StreamUsage {
  std::int64_t device = 0, stream = 0;
  std::uint64_t records = 0;
  TimeRange span; ///< the stream's own first start to last end
  TimeNs busy = 0;
  TimeNs idle = 0; ///< the device's window minus busy
  BusyByKind byKind;
  StreamIdleBreakdown idleBreakdown;
  /// Its records are model.gpuRecords[first, last).
  std::size_t first = 0, last = 0;
};

struct DeviceUsage {
  std::int64_t device = 0;
  std::uint64_t records = 0;
  TimeRange window;
  TimeNs busy = 0, idle = 0;
  BusyByKind byKind;
  std::uint64_t syncs = 0;
  TimeNs syncTime = 0;              ///< summed over the host waits
  std::vector<StreamUsage> streams; ///< by stream id
  /// The union of its records' intervals.
  std::vector<TimeRange> busyRanges;
  /// Its records are model.gpuRecords[first, last).
  std::size_t first = 0, last = 0;
};

/// Every device that ran a record, by ordinal.
std::vector<DeviceUsage> analyzeGpuUsage(const TraceModel &model,
                                         const LaunchIndex &launches,
                                         TimeNs shortGapNs);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_REPORT_GPUUSAGE_H
