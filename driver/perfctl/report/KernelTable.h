//===- KernelTable.h - GPU time by kernel and by launcher -------*- C++ -*-===//
//-*-===//
//
// GPU records grouped by what they were (kind and name) and by the host
// function that launched them: the record's launched_by argument when the
// runtime wrote one, else the innermost cpu_op that contains the launch
// call on its thread. Each group's count and duration statistics.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_REPORT_KERNELTABLE_H
#define PERFCC_DRIVER_PERFCTL_REPORT_KERNELTABLE_H

#include "report/DurationStats.h"
#include "report/LaunchIndex.h"
#include "report/ThreadTimeline.h"
#include "trace/TraceModel.h"

#include <vector>

namespace perfcc::perfctl {

struct KernelRow {
  GpuKind kind = GpuKind::Kernel;
  NameId name = NoName;
  DurationStats time;
};

/// Who launched a record.
enum class LauncherKind : std::uint8_t {
  Function,   ///< an instrumented function (name)
  NoFunction, ///< a launch call in no instrumented function
  NoLaunch,   ///< no launch call in the trace
};

struct LauncherRow {
  LauncherKind kind = LauncherKind::Function;
  NameId name = NoName; ///< for Function
  DurationStats time;   ///< of the records it launched
};

struct KernelTable {
  std::vector<KernelRow> byName;       ///< most total time first
  std::vector<LauncherRow> byLauncher; ///< most total time first
  /// Records whose launched_by names another function than the trace's
  /// nesting finds around their launch call.
  std::uint64_t launchedByDisagrees = 0;
};

KernelTable analyzeKernels(const TraceModel &model, const LaunchIndex &launches,
                           const HostTimelines &timelines);

/// The launcher of GPU record \p record, and its name for Function.
LauncherKind launcherOf(const TraceModel &model, const LaunchIndex &launches,
                        const HostTimelines &timelines, std::size_t record,
                        NameId &name);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_REPORT_KERNELTABLE_H
