//===- DataQuality.h - what was lost, what did not join ---------*- C++ -*-===//
//-*-===//
//
// How far to trust a report: what the runtime says it lost (the metadata's
// dropped spans, depth overflows, unmatched exits, abandoned frames, and its
// gpu block), and what perfctl itself finds reading the trace: events it
// could not read, spans that do not nest, calls left by an exception, a
// longjmp or the end of the run, GPU records without a launch call, launch
// calls without a GPU record, records that start before their launch.
//
// A CUDA graph's launch is one API call, and CUPTI records each of the
// graph's nodes inside it: traced, a launch of hundreds of kernels takes the
// host several times what it takes untraced (226 against about 35 µs for
// the engine's 228-kernel decode step on an H200; docs/gpu-tracing.md). The
// launch latency of the gaps such launches end is then the tracer's as much
// as the program's: said, with the launches' size and host time.
//
// A launch made while a CUDA graph is being captured adds a graph node and
// runs nothing, so it has no record of its own; the trace does not mark it,
// but the records its graph later runs name the capturing function
// (captured_by). A launch without records inside a function that some
// record names so is counted as captured, not lost.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_REPORT_DATAQUALITY_H
#define PERFCC_DRIVER_PERFCTL_REPORT_DATAQUALITY_H

#include "report/HotFunctions.h"
#include "report/KernelTable.h"
#include "report/LaunchIndex.h"
#include "trace/TraceModel.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace perfcc::perfctl {

struct DataQuality {
  // What the runtime reported (absent when the metadata lacks it).
  std::optional<std::uint64_t> droppedSpans, depthOverflows, unmatchedExits,
      abandonedFrames;
  std::optional<GpuCollection> gpu;
  // What the reader found.
  ReadIssues read;
  std::uint64_t improperlyNested = 0;
  std::uint64_t unwoundCalls = 0, abandonedCalls = 0, unfinishedCalls = 0;
  std::uint64_t recordsWithoutLaunch = 0, launchesWithoutRecords = 0,
                capturedLaunches = 0, recordsBeforeLaunch = 0,
                duplicateCorrelations = 0, launchedByDisagrees = 0;
  /// CUDA graph launches that ran something, their records and the host
  /// time inside them.
  std::uint64_t graphLaunches = 0, graphLaunchRecords = 0;
  TimeNs graphLaunchHost = 0;
  /// One sentence per finding that changes how to read the report.
  std::vector<std::string> warnings;
};

/// \p graphLaunchLatency: the devices' launch latency in gaps that graph
/// launches ended (DeviceIdleAttribution).
DataQuality assessQuality(const TraceModel &model, const HotFunctions &hot,
                          const HostTimelines &timelines,
                          const LaunchIndex &launches,
                          const KernelTable &kernels,
                          TimeNs graphLaunchLatency);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_REPORT_DATAQUALITY_H
