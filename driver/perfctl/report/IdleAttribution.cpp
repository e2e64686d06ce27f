//===- IdleAttribution.cpp - GPU idle time charged to host code -----------===//
#include "report/IdleAttribution.h"

#include <algorithm>
#include <map>

namespace perfcc::perfctl {

std::vector<DeviceIdleAttribution>
attributeGpuIdle(const TraceModel &model, const LaunchIndex &launches,
                 const HostTimelines &timelines,
                 const std::vector<DeviceUsage> &usage,
                 std::size_t largestGaps) {
  std::vector<DeviceIdleAttribution> out;
  for (const DeviceUsage &d : usage) {
    DeviceIdleAttribution a;
    a.device = d.device;
    a.window = d.window.length();
    // Records that start at each instant, so a gap's end finds its record
    // without a scan of the device.
    std::vector<std::size_t> byStart;
    for (std::size_t r = d.first; r < d.last; ++r)
      byStart.push_back(r);
    std::sort(
        byStart.begin(), byStart.end(), [&](std::size_t x, std::size_t y) {
          return model.gpuRecords[x].start != model.gpuRecords[y].start
                     ? model.gpuRecords[x].start < model.gpuRecords[y].start
                     : x < y;
        });
    std::map<NameId, Charge> charged;
    std::vector<IdleGap> waits;
    for (const TimeRange &gap : gapsOf(d.busyRanges, d.window)) {
      IdleGap g;
      g.range = gap;
      ++a.gaps;
      a.idle += gap.length();
      auto from = std::lower_bound(byStart.begin(), byStart.end(), gap.end,
                                   [&](std::size_t r, TimeNs t) {
                                     return model.gpuRecords[r].start < t;
                                   });
      std::int64_t best = -1;
      const ApiCall *launch = nullptr;
      for (auto it = from;
           it != byStart.end() && model.gpuRecords[*it].start == gap.end;
           ++it) {
        // Of the records starting at the gap's end, the one with a launch
        // call, launched earliest: the first work the host sent.
        const ApiCall *l = launches.launch(model, *it);
        if (best < 0 || (l && !launch) ||
            (l && launch && l->start < launch->start)) {
          best = std::int64_t(*it);
          launch = l;
        }
      }
      g.endingRecord = best;
      if (!launch) {
        ++a.unattributedGaps;
        a.unattributed += gap.length();
        continue;
      }
      g.attributed = true;
      TimeNs waitEnd = std::clamp(launch->start, gap.start, gap.end);
      g.hostWait = waitEnd - gap.start;
      g.launchLatency = gap.end - waitEnd;
      a.hostWait += g.hostWait;
      a.launchLatency += g.launchLatency;
      if (launchesGraph(model.name(launch->name)))
        a.graphLaunchLatency += g.launchLatency;
      if (g.hostWait <= 0)
        continue;
      ++a.hostWaitGaps;
      std::map<NameId, Charge> gapCharge;
      if (const ThreadTimeline *t = timelines.find(launch->thread))
        t->charge(gap.start, waitEnd, gapCharge);
      else
        gapCharge[NoName] = Charge{g.hostWait, g.hostWait};
      TimeNs most = -1;
      for (const auto &[name, c] : gapCharge) {
        charged[name].self += c.self;
        charged[name].inclusive += c.inclusive;
        if (c.self > most) {
          most = c.self;
          g.mostlyIn = name;
        }
      }
      waits.push_back(g);
    }
    for (const auto &[name, c] : charged)
      a.functions.push_back(IdleCharge{name, c.self, c.inclusive});
    std::sort(a.functions.begin(), a.functions.end(),
              [](const IdleCharge &x, const IdleCharge &y) {
                if (x.self != y.self)
                  return x.self > y.self;
                if (x.inclusive != y.inclusive)
                  return x.inclusive > y.inclusive;
                return x.name < y.name;
              });
    std::sort(waits.begin(), waits.end(),
              [](const IdleGap &x, const IdleGap &y) {
                if (x.hostWait != y.hostWait)
                  return x.hostWait > y.hostWait;
                return x.range.start < y.range.start;
              });
    if (waits.size() > largestGaps)
      waits.resize(largestGaps);
    a.largest = std::move(waits);
    out.push_back(std::move(a));
  }
  return out;
}

} // namespace perfcc::perfctl
