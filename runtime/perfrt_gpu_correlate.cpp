//===- perfrt_gpu_correlate.cpp - GPU records joined to host functions ----===//
#include "perfrt_noinstr.h"
PERFRT_NOINSTR_BEGIN

#include "perfrt_gpu_correlate.h"

#include <algorithm>
#include <cstring>
#include <tuple>
#include <unordered_map>

namespace perfrt {

namespace {

bool startsWith(const char *s, const char *prefix) {
  return std::strncmp(s, prefix, std::strlen(prefix)) == 0;
}

bool timed(const perfrt_gpu_work &w) {
  // CUPTI leaves 0 when it could not time a record (device buffers full).
  return w.start != 0 && w.end != 0 && w.end >= w.start;
}

/// A total order on GPU records that depends only on what they say, never
/// on the order they arrived in, so rows and flows come out the same
/// whatever order CUPTI completed its buffers in.
bool workBefore(const perfrt_gpu_work &a, const perfrt_gpu_work &b) {
  return std::tie(a.start, b.end, a.correlation, a.kind, a.name,
                  a.graph_node_id) < std::tie(b.start, a.end, b.correlation,
                                              b.kind, b.name, b.graph_node_id);
}

} // namespace

GpuCorrelation::GpuCorrelation(GpuData data, uint64_t runStartNs,
                               uint64_t runEndNs)
    : data_(std::move(data)), runStart_(runStartNs), runEnd_(runEndNs) {
  apiPoints_.resize(data_.apis.size());
  graphPoints_.resize(data_.graphNodes.size());
  work_.resize(data_.work.size());
  launched_.resize(data_.apis.size());
  quality_.records = data_.apis.size() + data_.work.size();

  std::unordered_map<uint32_t, size_t> slot;
  auto bucket = [&](uint32_t tid) -> ThreadPoints & {
    auto it = slot.find(tid);
    if (it == slot.end()) {
      it = slot.emplace(tid, threads_.size()).first;
      threads_.emplace_back(tid, ThreadPoints{});
    }
    return threads_[it->second].second;
  };
  for (uint32_t i = 0; i < data_.apis.size(); ++i)
    bucket(data_.apis[i].tid).points.push_back({data_.apis[i].start, i, false});
  for (uint32_t i = 0; i < data_.graphNodes.size(); ++i)
    if (!data_.graphNodes[i].original_node_id) // created, not cloned
      bucket(data_.graphNodes[i].tid)
          .points.push_back({data_.graphNodes[i].time, i, true});
  for (auto &[tid, t] : threads_) {
    std::sort(t.points.begin(), t.points.end(),
              [&](const Point &a, const Point &b) {
                if (a.time != b.time)
                  return a.time < b.time;
                if (a.graph != b.graph)
                  return a.graph < b.graph;
                // Same instant, same kind: order by what the records say.
                if (!a.graph)
                  return data_.apis[a.index].correlation <
                         data_.apis[b.index].correlation;
                return data_.graphNodes[a.index].node_id <
                       data_.graphNodes[b.index].node_id;
              });
    t.nextFree.resize(t.points.size() + 1);
    for (uint32_t i = 0; i <= t.points.size(); ++i)
      t.nextFree[i] = i;
  }
  std::sort(threads_.begin(), threads_.end(),
            [](const auto &a, const auto &b) { return a.first < b.first; });
}

uint32_t GpuCorrelation::nextFree(ThreadPoints &t, uint32_t i) {
  // Union-find with path halving: charged points are skipped in amortized
  // constant time, so a deep stack of enclosing spans costs no rescans.
  while (t.nextFree[i] != i) {
    t.nextFree[i] = t.nextFree[t.nextFree[i]];
    i = t.nextFree[i];
  }
  return i;
}

uint64_t GpuCorrelation::onSpan(uint32_t tid, uint64_t startNs, uint64_t endNs,
                                uint32_t fn) {
  auto it = std::lower_bound(
      threads_.begin(), threads_.end(), tid,
      [](const auto &entry, uint32_t id) { return entry.first < id; });
  if (it == threads_.end() || it->first != tid)
    return 0;
  ThreadPoints &t = it->second;
  auto first = std::lower_bound(
      t.points.begin(), t.points.end(), startNs,
      [](const Point &p, uint64_t time) { return p.time < time; });
  uint32_t i = nextFree(t, uint32_t(first - t.points.begin()));
  uint64_t id = 0;
  while (i < t.points.size() && t.points[i].time <= endNs) {
    if (!id)
      id = nextExternalId_++;
    const Point &p = t.points[i];
    GpuHostPoint &charged =
        p.graph ? graphPoints_[p.index] : apiPoints_[p.index];
    charged.fn = fn;
    charged.externalId = id;
    t.nextFree[i] = i + 1;
    i = nextFree(t, i + 1);
  }
  return id;
}

bool GpuCorrelation::isLaunch(const perfrt_gpu_api &a) const {
  const char *n = data_.string(a.name);
  if (startsWith(n, "cudaLaunchHostFunc") || startsWith(n, "cuLaunchHostFunc"))
    return false; // runs on the host: no GPU record
  static const char *const prefixes[] = {
      "cudaLaunch", "cudaGraphLaunch", "cudaMemcpy", "cudaMemset",
      "cuLaunch",   "cuGraphLaunch",   "cuMemcpy",   "cuMemset"};
  for (const char *p : prefixes)
    if (startsWith(n, p))
      return true;
  return false;
}

uint32_t GpuCorrelation::deviceOf(const perfrt_gpu_work &w) const {
  if (w.device != ~0u)
    return w.device;
  auto it = std::lower_bound(
      contextDevice_.begin(), contextDevice_.end(), w.context,
      [](const auto &e, uint32_t ctx) { return e.first < ctx; });
  return it != contextDevice_.end() && it->first == w.context ? it->second
                                                              : ~0u;
}

const std::vector<uint32_t> &GpuCorrelation::launched(uint32_t api) const {
  return launched_[api];
}

void GpuCorrelation::finish() {
  if (finished_)
    return;
  finished_ = true;
  const auto &apis = data_.apis;
  const auto &work = data_.work;

  for (const perfrt_gpu_work &w : work)
    if (w.device != ~0u)
      contextDevice_.emplace_back(w.context, w.device);
  std::sort(contextDevice_.begin(), contextDevice_.end());
  contextDevice_.erase(std::unique(contextDevice_.begin(), contextDevice_.end(),
                                   [](const auto &a, const auto &b) {
                                     return a.first == b.first;
                                   }),
                       contextDevice_.end());

  // A runtime call and the driver call it makes may share a correlation
  // id: the runtime call, the one the program made, owns the work.
  std::unordered_map<uint32_t, uint32_t> byCorrelation;
  for (uint32_t i = 0; i < apis.size(); ++i) {
    auto [it, fresh] = byCorrelation.emplace(apis[i].correlation, i);
    if (!fresh && apis[it->second].driver && !apis[i].driver)
      it->second = i;
  }

  // Graph nodes: a replayed node is a clone of the node the capture created.
  std::unordered_map<uint64_t, uint32_t> nodeById;
  for (uint32_t i = 0; i < data_.graphNodes.size(); ++i)
    nodeById.emplace(data_.graphNodes[i].node_id, i);
  auto capturer = [&](uint64_t nodeId) -> uint32_t {
    for (int hop = 0; hop < 8; ++hop) { // bounded: clones of clones, no loops
      auto it = nodeById.find(nodeId);
      if (it == nodeById.end())
        return 0;
      const perfrt_gpu_graph_node &n = data_.graphNodes[it->second];
      if (!n.original_node_id)
        return graphPoints_[it->second].fn;
      nodeId = n.original_node_id;
    }
    return 0;
  };

  // A launch whose record came, timed or not, is not owed one.
  std::vector<bool> answered(apis.size());
  for (uint32_t k = 0; k < work.size(); ++k) {
    const perfrt_gpu_work &w = work[k];
    GpuWorkPlacement &p = work_[k];
    auto it = byCorrelation.find(w.correlation);
    if (it != byCorrelation.end())
      answered[it->second] = true;
    if (!timed(w)) {
      ++quality_.zeroTimestamps;
      continue;
    }
    p.written = true;
    if (w.start < runStart_ || w.end > runEnd_)
      ++quality_.outsideRun;
    if (w.graph_node_id)
      p.capturedBy = capturer(w.graph_node_id);
    if (it == byCorrelation.end()) {
      ++quality_.unmatchedGpuRecords;
      continue;
    }
    p.api = it->second;
    launched_[it->second].push_back(k);
    if (w.kind != PERFRT_GPU_SYNC && w.start < apis[it->second].start)
      ++quality_.startsBeforeLaunch;
  }
  for (auto &list : launched_)
    std::sort(list.begin(), list.end(), [&](uint32_t a, uint32_t b) {
      return workBefore(work[a], work[b]);
    });

  // Launches owed a record that never came. Not owed: a driver call made
  // inside a runtime call (the runtime call owns the work), and a launch
  // during stream capture (it adds a graph node instead of running).
  std::vector<std::tuple<uint32_t, uint64_t, uint64_t>> runtimeCalls;
  for (const perfrt_gpu_api &a : apis)
    if (!a.driver)
      runtimeCalls.emplace_back(a.tid, a.start, a.end);
  std::sort(runtimeCalls.begin(), runtimeCalls.end());
  auto insideRuntimeCall = [&](const perfrt_gpu_api &d) {
    // Runtime calls of one thread do not overlap: the one that could
    // contain d is the last to start at or before it.
    auto it = std::upper_bound(runtimeCalls.begin(), runtimeCalls.end(),
                               std::make_tuple(d.tid, d.start, UINT64_MAX));
    if (it == runtimeCalls.begin())
      return false;
    --it;
    return std::get<0>(*it) == d.tid && d.end <= std::get<2>(*it);
  };
  std::vector<std::pair<uint32_t, uint64_t>> captures; // (tid, time)
  for (const perfrt_gpu_graph_node &n : data_.graphNodes)
    if (!n.original_node_id)
      captures.emplace_back(n.tid, n.time);
  std::sort(captures.begin(), captures.end());
  auto capturedDuring = [&](const perfrt_gpu_api &a) {
    auto it = std::lower_bound(captures.begin(), captures.end(),
                               std::make_pair(a.tid, a.start));
    return it != captures.end() && it->first == a.tid && it->second <= a.end;
  };
  for (uint32_t i = 0; i < apis.size(); ++i) {
    if (answered[i] || !isLaunch(apis[i]) || capturedDuring(apis[i]))
      continue;
    if (apis[i].driver && insideRuntimeCall(apis[i]))
      continue;
    ++quality_.unmatchedLaunches;
  }

  // Rows: on each (device, stream) the records in start order, each on the
  // lowest row free at its start. Synchronizations have rows of their own.
  std::vector<uint32_t> &order = order_;
  for (uint32_t k = 0; k < work.size(); ++k)
    if (work_[k].written)
      order.push_back(k);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const perfrt_gpu_work &x = work[a], &y = work[b];
    bool xs = x.kind == PERFRT_GPU_SYNC, ys = y.kind == PERFRT_GPU_SYNC;
    auto kx = std::make_tuple(deviceOf(x), x.stream, xs);
    auto ky = std::make_tuple(deviceOf(y), y.stream, ys);
    if (kx != ky)
      return kx < ky;
    return workBefore(x, y);
  });
  std::vector<uint64_t> rowEnd;
  for (size_t i = 0; i < order.size(); ++i) {
    const perfrt_gpu_work &w = work[order[i]];
    if (i == 0 || deviceOf(w) != deviceOf(work[order[i - 1]]) ||
        w.stream != work[order[i - 1]].stream ||
        (w.kind == PERFRT_GPU_SYNC) !=
            (work[order[i - 1]].kind == PERFRT_GPU_SYNC))
      rowEnd.clear();
    uint32_t row = 0;
    while (row < rowEnd.size() && rowEnd[row] > w.start)
      ++row;
    if (row == rowEnd.size())
      rowEnd.push_back(0);
    rowEnd[row] = w.end;
    work_[order[i]].row = row;
    if (row)
      ++quality_.overlapMoves;
  }
}

} // namespace perfrt

PERFRT_NOINSTR_END
