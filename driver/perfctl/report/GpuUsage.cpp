//===- GpuUsage.cpp - GPU busy and idle time per device and stream --------===//
#include "report/GpuUsage.h"

#include <algorithm>

namespace perfcc::perfctl {

namespace {

/// Busy time of model.gpuRecords[first, last) by kind; sets \p busyRanges to
/// the union of all of them.
BusyByKind busyByKind(const TraceModel &model, std::size_t first,
                      std::size_t last, std::vector<TimeRange> &busyRanges) {
  std::vector<TimeRange> kernels, copies, memsets, all;
  for (std::size_t r = first; r < last; ++r) {
    const GpuRecord &record = model.gpuRecords[r];
    TimeRange range{record.start, record.end};
    all.push_back(range);
    switch (record.kind) {
    case GpuKind::Kernel:
      kernels.push_back(range);
      break;
    case GpuKind::Memcpy:
      copies.push_back(range);
      break;
    case GpuKind::Memset:
      memsets.push_back(range);
      break;
    }
  }
  std::vector<TimeRange> k = unionOf(kernels), c = unionOf(copies),
                         m = unionOf(memsets);
  BusyByKind out;
  out.compute = totalLength(k);
  out.copy = totalLength(subtract(c, k));
  out.memset = totalLength(subtract(subtract(m, k), c));
  busyRanges = unionOf(all);
  return out;
}

} // namespace

std::vector<DeviceUsage> analyzeGpuUsage(const TraceModel &model,
                                         const LaunchIndex &launches,
                                         TimeNs shortGapNs) {
  std::vector<DeviceUsage> devices;
  const std::vector<GpuRecord> &records = model.gpuRecords;
  // Records are sorted by device, then stream, then start.
  for (std::size_t first = 0; first < records.size();) {
    std::size_t last = first;
    while (last < records.size() &&
           records[last].device == records[first].device)
      ++last;
    DeviceUsage d;
    d.device = records[first].device;
    d.first = first;
    d.last = last;
    d.records = last - first;
    d.window = TimeRange{records[first].start, records[first].end};
    for (std::size_t r = first; r < last; ++r) {
      d.window.start = std::min(d.window.start, records[r].start);
      d.window.end = std::max(d.window.end, records[r].end);
    }
    d.byKind = busyByKind(model, first, last, d.busyRanges);
    d.busy = totalLength(d.busyRanges);
    d.idle = d.window.length() - d.busy;
    for (std::size_t s = first; s < last;) {
      std::size_t e = s;
      while (e < last && records[e].stream == records[s].stream)
        ++e;
      StreamUsage u;
      u.device = d.device;
      u.stream = records[s].stream;
      u.first = s;
      u.last = e;
      u.records = e - s;
      u.span = TimeRange{records[s].start, records[s].end};
      for (std::size_t r = s; r < e; ++r)
        u.span.end = std::max(u.span.end, records[r].end);
      std::vector<TimeRange> streamBusy;
      u.byKind = busyByKind(model, s, e, streamBusy);
      u.busy = totalLength(streamBusy);
      u.idle = d.window.length() - u.busy;
      u.idleBreakdown = breakDownStreamIdle(model, launches, s, e, shortGapNs);
      d.streams.push_back(u);
      s = e;
    }
    for (const GpuSync &sync : model.syncs)
      if (sync.device == d.device) {
        ++d.syncs;
        d.syncTime += sync.end - sync.start;
      }
    devices.push_back(std::move(d));
    first = last;
  }
  // A device that only has host waits still gets its line.
  for (const GpuSync &sync : model.syncs) {
    bool known =
        std::any_of(devices.begin(), devices.end(), [&](const DeviceUsage &d) {
          return d.device == sync.device;
        });
    if (known)
      continue;
    DeviceUsage d;
    d.device = sync.device;
    for (const GpuSync &s : model.syncs)
      if (s.device == d.device) {
        ++d.syncs;
        d.syncTime += s.end - s.start;
      }
    devices.push_back(std::move(d));
  }
  std::sort(devices.begin(), devices.end(),
            [](const DeviceUsage &a, const DeviceUsage &b) {
              return a.device < b.device;
            });
  return devices;
}

} // namespace perfcc::perfctl
