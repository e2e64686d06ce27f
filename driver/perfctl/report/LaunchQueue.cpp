//===- LaunchQueue.cpp - launch-to-start delay and queue depth ------------===//
#include "report/LaunchQueue.h"

#include <algorithm>
#include <utility>

namespace perfcc::perfctl {

std::vector<DeviceLaunchDelay>
analyzeLaunchQueue(const TraceModel &model, const LaunchIndex &launches,
                   const std::vector<DeviceUsage> &usage) {
  std::vector<DeviceLaunchDelay> out;
  for (const DeviceUsage &d : usage) {
    DeviceLaunchDelay dev;
    dev.device = d.device;
    std::vector<TimeNs> delays;
    for (const StreamUsage &s : d.streams) {
      QueueDepth q;
      q.device = d.device;
      q.stream = s.stream;
      // (time, change): a -1 sorts before a +1 at the same instant, so a
      // record that starts as the next launch begins is not counted twice.
      std::vector<std::pair<TimeNs, int>> changes;
      for (std::size_t r = s.first; r < s.last; ++r) {
        const ApiCall *launch = launches.launch(model, r);
        const GpuRecord &record = model.gpuRecords[r];
        if (!launch)
          continue;
        TimeNs delay = record.start - launch->end;
        if (delay < 0)
          ++dev.clipped;
        delays.push_back(std::max<TimeNs>(0, delay));
        if (record.start < launch->start)
          continue;
        ++q.launches;
        changes.emplace_back(launch->start, +1);
        changes.emplace_back(record.start, -1);
      }
      std::sort(changes.begin(), changes.end());
      std::int64_t depth = 0;
      double area = 0;
      for (std::size_t i = 0; i < changes.size(); ++i) {
        depth += changes[i].second;
        q.max = std::max(q.max, depth);
        if (i + 1 < changes.size())
          area +=
              double(depth) * double(changes[i + 1].first - changes[i].first);
      }
      if (changes.size() >= 2 && changes.back().first > changes.front().first)
        q.mean = area / double(changes.back().first - changes.front().first);
      dev.streams.push_back(q);
    }
    dev.delay = durationStats(delays);
    out.push_back(std::move(dev));
  }
  return out;
}

} // namespace perfcc::perfctl
