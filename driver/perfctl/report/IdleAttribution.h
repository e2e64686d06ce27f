//===- IdleAttribution.h - GPU idle time charged to host code ---*- C++ -*-===//
//
// Which host functions kept the GPU waiting. Per device, the idle intervals
// are the parts of its window that the union of all its streams' busy time
// leaves (its edges too, where a record of no length sets one), so they add
// up to its idle time. For each gap:
//  - the record that ends it is the first to start at the gap's end (of
//    several, the one launched earliest), and its launch the CUDA API call
//    with its correlation id;
//  - if that call began after the gap did, the GPU was waiting on the host
//    from the gap's start until the call began (or the gap ended): that
//    interval is charged to the launching thread's calls, self time to the
//    innermost call open at each instant and inclusive time to every
//    function on its stack, by exact intersection (ThreadTimeline::charge);
//  - the rest of the gap, from the call's start to the record's, is launch
//    latency (the call itself, the driver, the queue);
//  - a gap whose ending record has no launch call is unattributed.
// So a host function that stalls while the GPU has nothing queued is
// charged exactly the idle time it caused, and one that runs while a long
// kernel keeps the GPU busy is charged nothing.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_REPORT_IDLEATTRIBUTION_H
#define PERFCC_DRIVER_PERFCTL_REPORT_IDLEATTRIBUTION_H

#include "report/GpuUsage.h"
#include "report/LaunchIndex.h"
#include "report/ThreadTimeline.h"
#include "trace/TraceModel.h"

#include <cstdint>
#include <vector>

namespace perfcc::perfctl {

/// Idle time charged to one function (NoName: the launching thread was in
/// no instrumented function).
struct IdleCharge {
  NameId name = NoName;
  TimeNs self = 0, inclusive = 0;
};

/// One idle interval of a device and what it was charged to.
struct IdleGap {
  TimeRange range;
  std::int64_t endingRecord = -1; ///< index in model.gpuRecords
  TimeNs hostWait = 0, launchLatency = 0;
  bool attributed = false; ///< the ending record has a launch call
  /// The innermost host function for most of the wait (NoName: none).
  NameId mostlyIn = NoName;
};

struct DeviceIdleAttribution {
  std::int64_t device = 0;
  TimeNs window = 0; ///< the device window's length
  TimeNs idle = 0;   ///< the gaps' total
  TimeNs hostWait = 0, launchLatency = 0, unattributed = 0;
  std::uint64_t gaps = 0, hostWaitGaps = 0, unattributedGaps = 0;
  /// The part of launchLatency in gaps a CUDA graph launch ended (its first
  /// node's record), which tracing itself lengthens (DataQuality).
  TimeNs graphLaunchLatency = 0;
  /// Functions charged host-wait time, most self time first (then most
  /// inclusive, then name).
  std::vector<IdleCharge> functions;
  /// The longest gaps with host wait, longest wait first (at most
  /// largestGaps of them).
  std::vector<IdleGap> largest;
};

/// Per device of \p usage, in its order; \p largestGaps bounds each
/// device's list of its longest waits.
std::vector<DeviceIdleAttribution>
attributeGpuIdle(const TraceModel &model, const LaunchIndex &launches,
                 const HostTimelines &timelines,
                 const std::vector<DeviceUsage> &usage,
                 std::size_t largestGaps);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_REPORT_IDLEATTRIBUTION_H
