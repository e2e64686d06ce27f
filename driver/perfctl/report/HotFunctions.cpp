//===- HotFunctions.cpp - the hottest instrumented functions --------------===//
#include "report/HotFunctions.h"

#include <algorithm>
#include <map>

namespace perfcc::perfctl {

namespace {

struct Samples {
  std::vector<TimeNs> inclusive, exclusive;
  TimeNs cpuInclusive = 0, cpuExclusive = 0;
};

std::vector<FunctionTime> rank(std::map<NameId, Samples> &byName) {
  std::vector<FunctionTime> out;
  for (auto &[name, samples] : byName) {
    FunctionTime f;
    f.name = name;
    f.inclusive = durationStats(samples.inclusive);
    f.exclusive = durationStats(samples.exclusive);
    f.cpuInclusive = samples.cpuInclusive;
    f.cpuExclusive = samples.cpuExclusive;
    out.push_back(f);
  }
  std::sort(out.begin(), out.end(),
            [](const FunctionTime &a, const FunctionTime &b) {
              if (a.exclusive.total != b.exclusive.total)
                return a.exclusive.total > b.exclusive.total;
              if (a.inclusive.total != b.inclusive.total)
                return a.inclusive.total > b.inclusive.total;
              return a.name < b.name; // ids order as names do
            });
  return out;
}

} // namespace

HotFunctions analyzeHotFunctions(const TraceModel &model,
                                 const HostTimelines &timelines) {
  HotFunctions hot;
  hot.cpuTime = model.hasCpuTime();
  std::map<NameId, Samples> process;
  for (const ThreadTimeline &t : timelines.all()) {
    ThreadFunctions thread;
    thread.thread = t.thread;
    thread.threadName = model.threadName(t.thread);
    std::map<NameId, Samples> own;
    for (const ThreadTimeline::Node &node : t.nodes) {
      const CpuOp &op = model.cpuOps[node.op];
      TimeNs inclusive = op.end - op.start;
      for (std::map<NameId, Samples> *into : {&own, &process}) {
        Samples &s = (*into)[op.name];
        s.inclusive.push_back(inclusive);
        s.exclusive.push_back(node.exclusive);
        s.cpuInclusive += node.cpu;
        s.cpuExclusive += node.cpuExclusive;
      }
      if (node.parent < 0)
        thread.busy += inclusive;
      ++thread.calls;
    }
    thread.functions = rank(own);
    hot.calls += thread.calls;
    hot.busy += thread.busy;
    hot.improperlyNested += t.improperlyNested;
    hot.threads.push_back(std::move(thread));
  }
  hot.process = rank(process);
  return hot;
}

} // namespace perfcc::perfctl
