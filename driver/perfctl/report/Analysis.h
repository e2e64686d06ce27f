//===- Analysis.h - all that perfctl report computes ------------*- C++ -*-===//
//-*-===//
//
// The report of one trace: the run it came from, the hottest functions, per
// GPU device its busy and idle time (per stream too, with the idle
// breakdown and queue depth), its idle time charged to host functions, its
// launch delays, the kernel tables, the data quality, and a few headline
// sentences. Each part is computed from the TraceModel by the analysis of
// its own file; this composes them. The renderers (TextReport.h,
// JsonReport.h) only format it.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_REPORT_ANALYSIS_H
#define PERFCC_DRIVER_PERFCTL_REPORT_ANALYSIS_H

#include "report/DataQuality.h"
#include "report/FunctionRoofline.h"
#include "report/GpuUsage.h"
#include "report/HotFunctions.h"
#include "report/IdleAttribution.h"
#include "report/KernelTable.h"
#include "report/LaunchQueue.h"
#include "report/TimeRanges.h"
#include "trace/TraceModel.h"

#include <cstddef>
#include <string>
#include <vector>

namespace perfcc::perfctl {

struct ReportOptions {
  /// Rows of each ranked table.
  std::size_t top = 15;
  /// A stream gap shorter than this that is not host wait is a short gap.
  /// Holistic Trace Analysis's default, so the two agree.
  TimeNs shortGapNs = 30;
  /// Longest host waits listed per device.
  std::size_t largestGaps = 5;
};

/// One device: each analysis's part.
struct DeviceReport {
  DeviceUsage usage;
  DeviceIdleAttribution idle;
  DeviceLaunchDelay launch;
};

struct TraceReport {
  /// The first and last instant any event covers.
  TimeRange extent;
  std::size_t hostThreads = 0;
  HotFunctions hot;
  /// Functions whose calls reported their work (perf_work).
  std::vector<FunctionRooflineRow> roofline;
  std::vector<DeviceReport> devices; ///< by ordinal
  std::uint64_t apiCalls = 0, gpuRecords = 0;
  KernelTable kernels;
  DataQuality quality;
  /// The headline: one sentence per finding, most important first.
  std::vector<std::string> answer;
};

TraceReport analyzeTrace(const TraceModel &model, const ReportOptions &options);

/// A function's name as the report prints it; NoName is "(no instrumented
/// function)".
std::string functionLabel(const TraceModel &model, NameId name);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_REPORT_ANALYSIS_H
