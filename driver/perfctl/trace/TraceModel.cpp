//===- TraceModel.cpp - a perfcc Chrome trace as typed events -------------===//
#include "trace/TraceModel.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

namespace perfcc::perfctl {

namespace {

/// NaN first, then by value: a strict weak order on every double.
int compareDouble(double a, double b) {
  bool an = std::isnan(a), bn = std::isnan(b);
  if (an || bn)
    return an == bn ? 0 : (an ? -1 : 1);
  return a < b ? -1 : (b < a ? 1 : 0);
}

bool lessTimeDesc(TimeNs startA, TimeNs endA, TimeNs startB, TimeNs endB) {
  // By start, the longer first: a parent before the child that shares its
  // start.
  if (startA != startB)
    return startA < startB;
  return endA > endB;
}

void remap(NameId &id, const std::vector<NameId> &newId) {
  if (id != NoName)
    id = newId[id];
}

} // namespace

NameId TraceModel::intern(std::string_view text) {
  auto it = index.find(text);
  if (it != index.end())
    return it->second;
  NameId id = NameId(strings.size());
  strings.emplace_back(text);
  index.emplace(strings.back(), id);
  return id;
}

std::string_view TraceModel::name(NameId id) const {
  return id < strings.size() ? std::string_view(strings[id])
                             : std::string_view();
}

NameId TraceModel::find(std::string_view text) const {
  auto it = index.find(text);
  return it != index.end() ? it->second : NoName;
}

NameId TraceModel::processName(std::int64_t pid) const {
  for (const ProcessInfo &p : processes)
    if (p.pid == pid)
      return p.name;
  return NoName;
}

NameId TraceModel::threadName(const ThreadRef &thread) const {
  for (const ThreadInfo &t : threads)
    if (t.thread == thread)
      return t.name;
  return NoName;
}

bool TraceModel::hasCpuTime() const {
  return metadata.cpuTime ||
         std::any_of(cpuOps.begin(), cpuOps.end(),
                     [](const CpuOp &op) { return op.cpuNs != NoValue; });
}

void TraceModel::canonicalize() {
  // The string table in sorted order; newId[old] is each name's new id.
  std::vector<NameId> order(strings.size());
  std::iota(order.begin(), order.end(), NameId(0));
  std::sort(order.begin(), order.end(),
            [&](NameId a, NameId b) { return strings[a] < strings[b]; });
  std::vector<NameId> newId(strings.size());
  std::deque<std::string> sorted;
  for (NameId i = 0; i < order.size(); ++i) {
    newId[order[i]] = i;
    sorted.push_back(std::move(strings[order[i]]));
  }
  strings = std::move(sorted);
  index.clear();
  for (NameId i = 0; i < strings.size(); ++i)
    index.emplace(strings[i], i);

  for (CpuOp &e : cpuOps) {
    remap(e.name, newId);
    remap(e.file, newId);
  }
  for (DelaySpan &e : delays)
    remap(e.function, newId);
  for (CounterSample &e : counters)
    remap(e.name, newId);
  for (ApiCall &e : apiCalls)
    remap(e.name, newId);
  for (GpuRecord &e : gpuRecords) {
    remap(e.name, newId);
    remap(e.launchedBy, newId);
    remap(e.capturedBy, newId);
  }
  for (GpuSync &e : syncs)
    remap(e.kind, newId);
  for (ProcessInfo &e : processes)
    remap(e.name, newId);
  for (ThreadInfo &e : threads)
    remap(e.name, newId);
  for (FunctionWork &e : work)
    remap(e.name, newId);
  std::sort(work.begin(), work.end(),
            [](const FunctionWork &a, const FunctionWork &b) {
              return a.name < b.name;
            });

  std::sort(cpuOps.begin(), cpuOps.end(), [](const CpuOp &a, const CpuOp &b) {
    if (!(a.thread == b.thread))
      return a.thread < b.thread;
    if (a.start != b.start || a.end != b.end)
      return lessTimeDesc(a.start, a.end, b.start, b.end);
    return std::tie(a.name, a.file, a.line, a.externalId, a.unwind, a.abandoned,
                    a.unfinished) < std::tie(b.name, b.file, b.line,
                                             b.externalId, b.unwind,
                                             b.abandoned, b.unfinished);
  });
  std::sort(delays.begin(), delays.end(),
            [](const DelaySpan &a, const DelaySpan &b) {
              if (!(a.thread == b.thread))
                return a.thread < b.thread;
              if (a.start != b.start || a.end != b.end)
                return lessTimeDesc(a.start, a.end, b.start, b.end);
              return a.function < b.function;
            });
  std::sort(counters.begin(), counters.end(),
            [](const CounterSample &a, const CounterSample &b) {
              if (a.name != b.name)
                return a.name < b.name;
              if (!(a.thread == b.thread))
                return a.thread < b.thread;
              if (a.ts != b.ts)
                return a.ts < b.ts;
              return compareDouble(a.value, b.value) < 0;
            });
  std::sort(
      apiCalls.begin(), apiCalls.end(), [](const ApiCall &a, const ApiCall &b) {
        if (!(a.thread == b.thread))
          return a.thread < b.thread;
        if (a.start != b.start || a.end != b.end)
          return lessTimeDesc(a.start, a.end, b.start, b.end);
        return std::tie(a.name, a.driver, a.cbid, a.correlation, a.externalId) <
               std::tie(b.name, b.driver, b.cbid, b.correlation, b.externalId);
      });
  std::sort(gpuRecords.begin(), gpuRecords.end(),
            [](const GpuRecord &a, const GpuRecord &b) {
              auto key = [](const GpuRecord &r) {
                return std::tie(r.device, r.stream, r.start, r.end, r.kind,
                                r.name, r.correlation, r.context, r.externalId,
                                r.launchedBy, r.capturedBy, r.row.pid,
                                r.row.tid, r.grid, r.block, r.registers,
                                r.sharedMemory, r.graphId, r.graphNodeId,
                                r.bytes);
              };
              if (key(a) != key(b))
                return key(a) < key(b);
              return compareDouble(a.bandwidthGBs, b.bandwidthGBs) < 0;
            });
  std::sort(syncs.begin(), syncs.end(), [](const GpuSync &a, const GpuSync &b) {
    return std::tie(a.device, a.start, a.end, a.stream, a.kind, a.correlation,
                    a.row.pid, a.row.tid) <
           std::tie(b.device, b.start, b.end, b.stream, b.kind, b.correlation,
                    b.row.pid, b.row.tid);
  });
  std::sort(flows.begin(), flows.end(),
            [](const FlowPoint &a, const FlowPoint &b) {
              return std::tie(a.id, a.start, a.ts, a.thread.pid, a.thread.tid) <
                     std::tie(b.id, b.start, b.ts, b.thread.pid, b.thread.tid);
            });

  // One entry per process and per thread: a name event and a sort-index
  // event of the same row merged; of two names, the first in sorted order.
  auto mergeName = [](NameId &into, NameId from) {
    if (from != NoName && (into == NoName || from < into))
      into = from;
  };
  auto mergeIndex = [](std::int64_t &into, std::int64_t from) {
    if (from != NoValue && (into == NoValue || from < into))
      into = from;
  };
  std::sort(
      processes.begin(), processes.end(),
      [](const ProcessInfo &a, const ProcessInfo &b) { return a.pid < b.pid; });
  std::vector<ProcessInfo> mergedProcesses;
  for (const ProcessInfo &p : processes) {
    if (mergedProcesses.empty() || mergedProcesses.back().pid != p.pid)
      mergedProcesses.push_back(ProcessInfo{p.pid, NoName, NoValue});
    mergeName(mergedProcesses.back().name, p.name);
    mergeIndex(mergedProcesses.back().sortIndex, p.sortIndex);
  }
  processes = std::move(mergedProcesses);
  std::sort(threads.begin(), threads.end(),
            [](const ThreadInfo &a, const ThreadInfo &b) {
              return a.thread < b.thread;
            });
  std::vector<ThreadInfo> mergedThreads;
  for (const ThreadInfo &t : threads) {
    if (mergedThreads.empty() || !(mergedThreads.back().thread == t.thread))
      mergedThreads.push_back(ThreadInfo{t.thread, NoName, NoValue});
    mergeName(mergedThreads.back().name, t.name);
    mergeIndex(mergedThreads.back().sortIndex, t.sortIndex);
  }
  threads = std::move(mergedThreads);
}

const char *gpuKindName(GpuKind kind) {
  switch (kind) {
  case GpuKind::Kernel:
    return "kernel";
  case GpuKind::Memcpy:
    return "memcpy";
  case GpuKind::Memset:
    return "memset";
  }
  return "?";
}

} // namespace perfcc::perfctl
