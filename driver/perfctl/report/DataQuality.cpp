//===- DataQuality.cpp - what the trace lost and what did not join --------===//
#include "report/DataQuality.h"

#include "report/Units.h"

#include <fmt/format.h>

#include <set>

namespace perfcc::perfctl {

namespace {
// Below this many records a launch, CUPTI's share of a graph launch is a
// few microseconds: not worth a warning.
constexpr double kManyNodesPerLaunch = 8;
} // namespace

DataQuality assessQuality(const TraceModel &model, const HotFunctions &hot,
                          const HostTimelines &timelines,
                          const LaunchIndex &launches,
                          const KernelTable &kernels,
                          TimeNs graphLaunchLatency) {
  DataQuality q;
  const TraceMetadata &meta = model.metadata;
  q.droppedSpans = meta.droppedSpans;
  q.depthOverflows = meta.depthOverflows;
  q.unmatchedExits = meta.unmatchedExits;
  q.abandonedFrames = meta.abandonedFrames;
  q.gpu = meta.gpu;
  q.read = model.issues;
  q.improperlyNested = hot.improperlyNested;
  for (const CpuOp &op : model.cpuOps) {
    q.unwoundCalls += op.unwind;
    q.abandonedCalls += op.abandoned;
    q.unfinishedCalls += op.unfinished;
  }
  q.recordsWithoutLaunch = launches.recordsWithoutLaunch;
  std::set<NameId> capturers;
  for (const GpuRecord &r : model.gpuRecords)
    if (r.capturedBy != NoName)
      capturers.insert(r.capturedBy);
  for (std::size_t i : launches.launchesWithoutRecords) {
    const ApiCall &call = model.apiCalls[i];
    const ThreadTimeline *t = timelines.find(call.thread);
    std::int32_t node = t ? t->innermostContaining(call.start, call.end) : -1;
    NameId in =
        node < 0 ? NoName : model.cpuOps[t->nodes[std::size_t(node)].op].name;
    if (in != NoName && capturers.count(in))
      ++q.capturedLaunches;
    else
      ++q.launchesWithoutRecords;
  }
  q.recordsBeforeLaunch = launches.recordsBeforeLaunch;
  q.duplicateCorrelations = launches.duplicateCorrelations;
  q.launchedByDisagrees = kernels.launchedByDisagrees;
  for (std::size_t i = 0; i < model.apiCalls.size(); ++i) {
    const ApiCall &call = model.apiCalls[i];
    if (launches.recordsOf[i] == 0 || !launchesGraph(model.name(call.name)))
      continue;
    ++q.graphLaunches;
    q.graphLaunchRecords += launches.recordsOf[i];
    q.graphLaunchHost += call.end - call.start;
  }

  // \p what has "{}" for the count and "{s}" where a plural takes an s.
  auto warn = [&](std::uint64_t n, const char *what) {
    if (n)
      q.warnings.push_back(
          fmt::format(fmt::runtime(what), n, fmt::arg("s", n == 1 ? "" : "s")));
  };
  if (!meta.present)
    q.warnings.push_back("the trace has no metadata: what the runtime lost "
                         "is unknown");
  if (meta.recoveredCut)
    q.warnings.push_back(fmt::format(
        "recovered from the spill of a run that ended early (perfctl trace "
        "recover){}: the calls still in its memory at the end are missing, "
        "and what the runtime lost is unknown",
        meta.recoveredCut->empty()
            ? ""
            : "; the spill was cut: " + *meta.recoveredCut));
  warn(q.droppedSpans.value_or(0),
       "the runtime dropped {} span{s}: the tables miss those calls");
  warn(q.depthOverflows.value_or(0),
       "{} call{s} deeper than the runtime's stack went unrecorded");
  warn(q.read.malformedEvents,
       "{} event{s} could not be read (missing or mistyped fields): "
       "skipped");
  warn(q.improperlyNested,
       "{} call{s} did not nest in their thread's other calls: exclusive "
       "time is cut where the next call begins");
  if (q.gpu) {
    if (q.gpu->cupti != "" && q.gpu->cupti != "on")
      q.warnings.push_back(fmt::format(
          "GPU activity was not recorded (cupti {}{}{})", q.gpu->cupti,
          q.gpu->reason.empty() ? "" : ": ", q.gpu->reason));
    warn(q.gpu->droppedRecords.value_or(0),
         "CUPTI dropped {} GPU record{s}: busy time is a lower bound");
  }
  if (q.graphLaunches && double(q.graphLaunchRecords) >=
                             kManyNodesPerLaunch * double(q.graphLaunches)) {
    const double n = double(q.graphLaunches);
    const double each = double(q.graphLaunchHost) / n;
    q.warnings.push_back(fmt::format(
        "{} CUDA graph launch{} of {:.0f} GPU records each took the host {} "
        "each ({} a record); CUPTI records a graph's nodes inside its launch, "
        "so untraced a launch is shorter, and the {} of launch latency in "
        "the gaps they ended is partly the tracer's",
        q.graphLaunches, q.graphLaunches == 1 ? "" : "es",
        double(q.graphLaunchRecords) / n, humanNs(each),
        humanNs(double(q.graphLaunchHost) / double(q.graphLaunchRecords)),
        humanNs(double(graphLaunchLatency))));
  }
  warn(q.recordsWithoutLaunch,
       "{} GPU record{s} without a launch call in the trace: the idle "
       "gaps they end are unattributed");
  warn(q.recordsBeforeLaunch,
       "{} GPU record{s} started before their launch call: the host and "
       "GPU clocks disagree");
  return q;
}

} // namespace perfcc::perfctl
