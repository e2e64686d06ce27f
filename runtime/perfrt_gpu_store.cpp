//===- perfrt_gpu_store.cpp - the sink's runtime side ---------------------===//
#include "perfrt_noinstr.h"
PERFRT_NOINSTR_BEGIN

#include "perfrt_gpu_store.h"

#include "perfrt_clock.h"
#include "perfrt_gpu_attach.h"
#include "perfrt_runtime.h"

#include <mutex>
#include <unordered_map>

namespace perfrt {

namespace {

/// Heap-allocated once and never destroyed: the exit-time flush runs after
/// static destructors (see gRt), and CUPTI may complete a buffer on its own
/// thread at any time until then.
struct Store {
  std::mutex lock;
  GpuData data;
  std::unordered_map<std::string, uint32_t> ids;
  uint64_t capBytes = 0, usedBytes = 0;
  bool closed = false;
  void (*flush)(void) = nullptr;
};

Store *gStore = nullptr;

/// The store, for the sink's callbacks. Created at start-up; a sink call
/// before that (impossible: the adapter is loaded later) finds none.
Store *store() { return gStore; }

uint64_t sinkNow() { return monotonicNs(); }

/// The id of \p text in \p s, added once. The caller holds s->lock.
uint32_t internLocked(Store *s, const char *text) {
  auto it = s->ids.find(text ? text : "");
  if (it != s->ids.end())
    return it->second;
  uint32_t id = s->data.intern(text);
  s->ids.emplace(s->data.strings.back(), id);
  return id;
}

uint32_t sinkIntern(const char *text) {
  Store *s = store();
  if (!s)
    return 0;
  std::lock_guard<std::mutex> g(s->lock);
  return internLocked(s, text);
}

void sinkRecords(const perfrt_gpu_api *apis, uint32_t apiCount,
                 const perfrt_gpu_work *work, uint32_t workCount) {
  clockSample(); // GPU records are on the fit's time line: check it
  Store *s = store();
  if (!s)
    return;
  std::lock_guard<std::mutex> g(s->lock);
  if (s->closed) {
    s->data.lateRecords += apiCount + workCount;
    return;
  }
  uint64_t bytes =
      uint64_t(apiCount) * sizeof *apis + uint64_t(workCount) * sizeof *work;
  if (s->capBytes && s->usedBytes + bytes > s->capBytes) {
    s->data.capDropped += apiCount + workCount;
    return;
  }
  s->usedBytes += bytes;
  s->data.apis.insert(s->data.apis.end(), apis, apis + apiCount);
  s->data.work.insert(s->data.work.end(), work, work + workCount);
}

void sinkGraphNode(const perfrt_gpu_graph_node *node) {
  Store *s = store();
  if (!s || !node)
    return;
  std::lock_guard<std::mutex> g(s->lock);
  if (s->closed)
    ++s->data.lateRecords;
  else
    s->data.graphNodes.push_back(*node);
}

void sinkDropped(uint64_t count) {
  if (Store *s = store()) {
    std::lock_guard<std::mutex> g(s->lock);
    s->data.cuptiDropped += count;
  }
}

void sinkAttached(uint32_t version, void (*flush)(void)) {
  if (Store *s = store()) {
    std::lock_guard<std::mutex> g(s->lock);
    s->data.state = CuptiState::On;
    s->data.cuptiVersion = version;
    s->flush = flush;
  }
}

void sinkUnavailable(const char *reason) { gpuReportUnavailable(reason); }

perfrt_gpu_sink gSinkTable = {PERFRT_GPU_SINK_VERSION,
                              1,
                              sinkNow,
                              sinkIntern,
                              sinkRecords,
                              sinkGraphNode,
                              sinkDropped,
                              sinkAttached,
                              sinkUnavailable,
                              -1};

} // namespace

const char *cuptiStateName(CuptiState s) {
  switch (s) {
  case CuptiState::Off:
    return "off";
  case CuptiState::NotUsed:
    return "not used";
  case CuptiState::On:
    return "on";
  case CuptiState::Unavailable:
    return "unavailable";
  }
  return "unknown";
}

uint32_t GpuData::intern(const char *text) {
  strings.emplace_back(text ? text : "");
  return uint32_t(strings.size() - 1);
}

void gpuStoreInit(CuptiState initial, uint64_t capBytes) {
  if (!gStore)
    gStore = new Store;
  std::lock_guard<std::mutex> g(gStore->lock);
  gStore->data = GpuData{};
  gStore->ids.clear();
  gStore->usedBytes = 0;
  gStore->closed = false;
  gStore->flush = nullptr;
  gStore->data.state = initial;
  gStore->capBytes = capBytes;
  internLocked(gStore, ""); // id 0: no name
  gSinkTable.policy = gRt.flags.cupti == Cupti::Off  ? 0
                      : gRt.flags.cupti == Cupti::On ? 2
                                                     : 1;
}

CuptiState gpuStoreState() {
  Store *s = store();
  if (!s)
    return CuptiState::NotUsed;
  std::lock_guard<std::mutex> g(s->lock);
  return s->data.state;
}

void gpuStoreUnavailable(const char *reason) {
  Store *s = store();
  if (!s)
    return;
  std::lock_guard<std::mutex> g(s->lock);
  if (s->data.state == CuptiState::Unavailable)
    return;
  s->data.state = CuptiState::Unavailable;
  s->data.reason = reason ? reason : "";
}

void gpuStoreFlush() {
  Store *s = store();
  if (!s)
    return;
  void (*flush)(void);
  {
    std::lock_guard<std::mutex> g(s->lock);
    flush = s->closed ? nullptr : s->flush;
  }
  // Outside the lock: CUPTI completes buffers from inside the flush, and
  // that lands in sinkRecords, which takes it.
  if (flush)
    flush();
}

GpuData closeGpuStore(bool inSignal) {
  Store *s = store();
  if (!s)
    return GpuData{};
  std::unique_lock<std::mutex> g(s->lock, std::defer_lock);
  if (inSignal && !g.try_lock()) {
    GpuData lost;
    lost.state = CuptiState::Unavailable;
    lost.reason = "the signal that ended the run interrupted the collection "
                  "of GPU records; they were not written";
    lost.intern("");
    return lost;
  }
  if (!inSignal)
    g.lock();
  s->closed = true;
  GpuData out = std::move(s->data);
  s->data = GpuData{};
  s->data.state = out.state;
  s->ids.clear();
  return out;
}

void gpuStoreAfterFork() {
  if (!gStore)
    return;
  // The child runs no CUPTI of ours, and the mutex may have been held by a
  // thread that does not exist here: start over, leaking the old store.
  CuptiState parent = gStore->data.state;
  uint64_t cap = gStore->capBytes;
  gStore = new Store;
  gStore->capBytes = cap;
  internLocked(gStore, "");
  // A parent that never initialized CUDA leaves the child free to (the
  // injection variable is inherited); one that did leaves it a CUDA that
  // cannot be used after fork, and CUPTI with it.
  bool parentUsedCuda =
      parent == CuptiState::On || parent == CuptiState::Unavailable;
  gStore->data.state = parentUsedCuda ? CuptiState::Unavailable : parent;
  if (parentUsedCuda)
    gStore->data.reason = "forked from a process that used CUDA: CUPTI does "
                          "not follow fork()";
}

const perfrt_gpu_sink *gpuSink() { return &gSinkTable; }

void gpuSinkSetRawFd(int fd) { gSinkTable.raw_fd = fd; }

} // namespace perfrt

PERFRT_NOINSTR_END
