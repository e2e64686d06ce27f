//===- Analysis.cpp - everything perfctl report computes from a trace -----===//
#include "report/Analysis.h"

#include "report/Units.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace perfcc::perfctl {

std::string functionLabel(const TraceModel &model, NameId name) {
  return name == NoName ? "(no instrumented function)"
                        : std::string(model.name(name));
}

namespace {

TimeRange extentOf(const TraceModel &model) {
  TimeNs lo = std::numeric_limits<TimeNs>::max(),
         hi = std::numeric_limits<TimeNs>::min();
  auto cover = [&](TimeNs start, TimeNs end) {
    lo = std::min(lo, start);
    hi = std::max(hi, end);
  };
  for (const CpuOp &e : model.cpuOps)
    cover(e.start, e.end);
  for (const ApiCall &e : model.apiCalls)
    cover(e.start, e.end);
  for (const GpuRecord &e : model.gpuRecords)
    cover(e.start, e.end);
  for (const GpuSync &e : model.syncs)
    cover(e.start, e.end);
  for (const DelaySpan &e : model.delays)
    cover(e.start, e.end);
  for (const CounterSample &e : model.counters)
    cover(e.ts, e.ts);
  return lo > hi ? TimeRange{} : TimeRange{lo, hi};
}

std::vector<std::string> headline(const TraceModel &model,
                                  const TraceReport &r) {
  std::vector<std::string> lines;
  for (const DeviceReport &d : r.devices) {
    const DeviceUsage &u = d.usage;
    if (u.records == 0)
      continue;
    TimeNs window = u.window.length();
    const DeviceIdleAttribution &idle = d.idle;
    const IdleCharge *top =
        idle.functions.empty() ? nullptr : &idle.functions.front();
    if (top && top->self > 0)
      lines.push_back(fmt::format(
          "GPU {} idle {} ({} of its {} window) waiting on the host while "
          "in {}",
          u.device, humanNs(double(top->self)),
          percentOf(double(top->self), double(window)), humanNs(double(window)),
          functionLabel(model, top->name)));
    lines.push_back(fmt::format(
        "GPU {} busy {} of its {} window; idle {}: {} waiting on the host, "
        "{} launch latency, {} unattributed",
        u.device, percentOf(double(u.busy), double(window)),
        humanNs(double(window)), humanNs(double(u.idle)),
        humanNs(double(idle.hostWait)), humanNs(double(idle.launchLatency)),
        humanNs(double(idle.unattributed))));
  }
  if (r.gpuRecords == 0)
    lines.push_back("no GPU activity in the trace");
  if (!r.hot.process.empty()) {
    const FunctionTime &f = r.hot.process.front();
    lines.push_back(fmt::format(
        "hottest host function by self time: {} ({} in {} {}, {} of the "
        "instrumented time)",
        functionLabel(model, f.name), humanNs(double(f.exclusive.total)),
        f.exclusive.count, f.exclusive.count == 1 ? "call" : "calls",
        percentOf(double(f.exclusive.total), double(r.hot.busy))));
  } else {
    lines.push_back("no instrumented function calls in the trace");
  }
  return lines;
}

} // namespace

TraceReport analyzeTrace(const TraceModel &model,
                         const ReportOptions &options) {
  TraceReport r;
  r.extent = extentOf(model);
  HostTimelines timelines(model);
  LaunchIndex launches(model);
  r.hostThreads = timelines.all().size();
  r.hot = analyzeHotFunctions(model, timelines);
  r.roofline = analyzeFunctionRoofline(model, r.hot);
  r.apiCalls = model.apiCalls.size();
  r.gpuRecords = model.gpuRecords.size();
  std::vector<DeviceUsage> usage =
      analyzeGpuUsage(model, launches, options.shortGapNs);
  std::vector<DeviceIdleAttribution> idle =
      attributeGpuIdle(model, launches, timelines, usage, options.largestGaps);
  std::vector<DeviceLaunchDelay> delays =
      analyzeLaunchQueue(model, launches, usage);
  for (std::size_t i = 0; i < usage.size(); ++i)
    r.devices.push_back(DeviceReport{std::move(usage[i]), std::move(idle[i]),
                                     std::move(delays[i])});
  r.kernels = analyzeKernels(model, launches, timelines);
  TimeNs graphLaunchLatency = 0;
  for (const DeviceReport &d : r.devices)
    graphLaunchLatency += d.idle.graphLaunchLatency;
  r.quality = assessQuality(model, r.hot, timelines, launches, r.kernels,
                            graphLaunchLatency);
  r.answer = headline(model, r);
  return r;
}

} // namespace perfcc::perfctl
