//===- LaunchQueue.h - launch-to-start delay and queue depth ----*- C++ -*-===//
//
// How long launched work waited before the GPU started it, and how much was
// queued. Launch delay, as Holistic Trace Analysis defines it: a record's
// start minus its launch call's end, clipped at 0, per device. Queue depth
// per stream: +1 at a launch call's start for each of its records on the
// stream, -1 at each record's start; its maximum and its mean over time
// (from the stream's first launch to its last record's start). Records
// without a launch call, and records that start before their launch call
// (the clocks disagree), are left out of both.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_REPORT_LAUNCHQUEUE_H
#define PERFCC_DRIVER_PERFCTL_REPORT_LAUNCHQUEUE_H

#include "report/DurationStats.h"
#include "report/GpuUsage.h"
#include "report/LaunchIndex.h"
#include "trace/TraceModel.h"

#include <cstdint>
#include <vector>

namespace perfcc::perfctl {

struct QueueDepth {
  std::int64_t device = 0, stream = 0;
  std::uint64_t launches = 0; ///< records counted (with a launch call)
  std::int64_t max = 0;
  double mean = 0; ///< time-weighted
};

struct DeviceLaunchDelay {
  std::int64_t device = 0;
  DurationStats delay;
  std::uint64_t clipped = 0; ///< records that started before the call ended
  std::vector<QueueDepth> streams; ///< by stream id
};

/// Per device of \p usage, in its order.
std::vector<DeviceLaunchDelay>
analyzeLaunchQueue(const TraceModel &model, const LaunchIndex &launches,
                   const std::vector<DeviceUsage> &usage);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_REPORT_LAUNCHQUEUE_H
