//===- KernelTable.cpp - GPU time by kernel and by launching function -----===//
#include "report/KernelTable.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace perfcc::perfctl {

namespace {

/// The innermost instrumented call around \p call on its thread, or NoName.
NameId enclosingFunction(const TraceModel &model,
                         const HostTimelines &timelines, const ApiCall &call) {
  const ThreadTimeline *t = timelines.find(call.thread);
  if (!t)
    return NoName;
  std::int32_t node = t->innermostContaining(call.start, call.end);
  return node < 0 ? NoName : model.cpuOps[t->nodes[std::size_t(node)].op].name;
}

} // namespace

LauncherKind launcherOf(const TraceModel &model, const LaunchIndex &launches,
                        const HostTimelines &timelines, std::size_t record,
                        NameId &name) {
  const GpuRecord &r = model.gpuRecords[record];
  name = NoName;
  if (r.launchedBy != NoName) {
    name = r.launchedBy;
    return LauncherKind::Function;
  }
  const ApiCall *launch = launches.launch(model, record);
  if (!launch)
    return LauncherKind::NoLaunch;
  name = enclosingFunction(model, timelines, *launch);
  return name == NoName ? LauncherKind::NoFunction : LauncherKind::Function;
}

KernelTable analyzeKernels(const TraceModel &model, const LaunchIndex &launches,
                           const HostTimelines &timelines) {
  KernelTable table;
  std::map<std::pair<GpuKind, NameId>, std::vector<TimeNs>> byName;
  std::map<std::pair<LauncherKind, NameId>, std::vector<TimeNs>> byLauncher;
  for (std::size_t r = 0; r < model.gpuRecords.size(); ++r) {
    const GpuRecord &record = model.gpuRecords[r];
    TimeNs duration = record.end - record.start;
    byName[{record.kind, record.name}].push_back(duration);
    NameId name = NoName;
    LauncherKind kind = launcherOf(model, launches, timelines, r, name);
    byLauncher[{kind, name}].push_back(duration);
    if (record.launchedBy != NoName)
      if (const ApiCall *launch = launches.launch(model, r)) {
        NameId found = enclosingFunction(model, timelines, *launch);
        if (found != NoName && found != record.launchedBy)
          ++table.launchedByDisagrees;
      }
  }
  for (auto &[key, durations] : byName)
    table.byName.push_back(
        KernelRow{key.first, key.second, durationStats(durations)});
  for (auto &[key, durations] : byLauncher)
    table.byLauncher.push_back(
        LauncherRow{key.first, key.second, durationStats(durations)});
  std::sort(table.byName.begin(), table.byName.end(),
            [](const KernelRow &a, const KernelRow &b) {
              if (a.time.total != b.time.total)
                return a.time.total > b.time.total;
              return std::tie(a.kind, a.name) < std::tie(b.kind, b.name);
            });
  std::sort(table.byLauncher.begin(), table.byLauncher.end(),
            [](const LauncherRow &a, const LauncherRow &b) {
              if (a.time.total != b.time.total)
                return a.time.total > b.time.total;
              return std::tie(a.kind, a.name) < std::tie(b.kind, b.name);
            });
  return table;
}

} // namespace perfcc::perfctl
