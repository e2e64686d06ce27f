//===- perfrt_gpu_output.cpp - GPU activity in the trace and the summary --===//
#include "perfrt_noinstr.h"
PERFRT_NOINSTR_BEGIN

#include "perfrt_gpu_output.h"

#include "perfrt_gpu_correlate.h"
#include "perfrt_json.h"
#include "perfrt_registry.h"
#include "perfrt_runtime.h"

#include "perfcc/OutputSchema.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cxxabi.h>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace perfrt {

namespace key = perfcc::schema::trace;
namespace skey = perfcc::schema::summary;

namespace {

/// Set by gpuBeginOutput, never freed (the output runs once, at the end).
GpuCorrelation *gCorr = nullptr;
std::vector<std::string> *gDemangled = nullptr; // per string id
std::string gWarning;

// Row ids (the `tid` of a GPU process): a stream's own row is its id, the
// k-th overflow row adds k * RowStride, and synchronizations live on rows
// offset by SyncRowOffset (Kineto puts them at stream + 1,000,000 too).
constexpr uint64_t SyncRowOffset = 1000000;
constexpr uint64_t RowStride = 2000000;

uint64_t rowTid(const perfrt_gpu_work &w, uint32_t row) {
  return uint64_t(w.stream) + (w.kind == PERFRT_GPU_SYNC ? SyncRowOffset : 0) +
         uint64_t(row) * RowStride;
}

/// The trace's process id for a device: the ordinal, as Kineto writes it,
/// unless that could be a real process of this trace (a program running as
/// pid 1 in a container), then moved out of the way.
uint64_t devicePid(uint32_t device) {
  constexpr uint64_t MovedBase = 1ull << 30;
  if (device == ~0u)
    return MovedBase - 1; // records whose device CUPTI did not say
  return uint64_t(gRt.pid) <= 64 ? MovedBase + device : device;
}

const char *fnName(uint32_t fn) {
  return fn && fn <= gRegistry.size() ? gRegistry.get(fn).name : "";
}

/// Kernel names arrive mangled; the trace shows them as a person reads them.
const char *displayName(uint32_t id) {
  const GpuData &d = gCorr->data();
  if (!gDemangled)
    gDemangled = new std::vector<std::string>(d.strings.size());
  if (id >= gDemangled->size())
    return d.string(id);
  std::string &s = (*gDemangled)[id];
  if (s.empty()) {
    int status = -1;
    char *plain = abi::__cxa_demangle(d.string(id), nullptr, nullptr, &status);
    s = status == 0 && plain ? plain : d.string(id);
    std::free(plain);
  }
  return s.c_str();
}

const char *workCategory(uint32_t kind) {
  switch (kind) {
  case PERFRT_GPU_KERNEL:
    return key::CategoryKernel;
  case PERFRT_GPU_MEMCPY:
    return key::CategoryMemcpy;
  case PERFRT_GPU_MEMSET:
    return key::CategoryMemset;
  default:
    return key::CategoryCudaSync;
  }
}

void dim3(JsonOut &out, const char *name, const int32_t v[3]) {
  out.key(name).ch('[');
  out.u64(uint64_t(v[0] < 0 ? 0 : v[0])).ch(',');
  out.u64(uint64_t(v[1] < 0 ? 0 : v[1])).ch(',');
  out.u64(uint64_t(v[2] < 0 ? 0 : v[2])).ch(']');
}

std::vector<uint32_t> apiOrder() {
  const auto &apis = gCorr->data().apis;
  std::vector<uint32_t> order(apis.size());
  for (uint32_t i = 0; i < apis.size(); ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return std::tie(apis[a].tid, apis[a].start, apis[a].correlation) <
           std::tie(apis[b].tid, apis[b].start, apis[b].correlation);
  });
  return order;
}

void writeApi(JsonOut &out, const perfrt_gpu_api &a, const GpuHostPoint &p) {
  const GpuData &d = gCorr->data();
  out.ch('{').key(key::Phase, true).str(key::PhaseComplete);
  out.key(key::Category)
      .str(a.driver ? key::CategoryCudaDriver : key::CategoryCudaRuntime);
  out.key(key::Name).str(d.string(a.name));
  out.key(key::Pid).u64(uint64_t(gRt.pid)).key(key::Tid).u64(a.tid);
  out.key(key::Ts).micros(a.start);
  out.key(key::Dur).micros(a.end > a.start ? a.end - a.start : 0);
  out.key(key::Args).ch('{').key(key::ArgCbid, true).u64(a.cbid);
  out.key(key::ArgCorrelation).u64(a.correlation);
  if (p.externalId)
    out.key(key::ArgExternalId).u64(p.externalId);
  out.raw("}}");
}

void writeWork(JsonOut &out, uint32_t k) {
  const GpuData &d = gCorr->data();
  const perfrt_gpu_work &w = d.work[k];
  const GpuWorkPlacement &p = gCorr->placements()[k];
  uint32_t device = gCorr->deviceOf(w);
  out.ch('{').key(key::Phase, true).str(key::PhaseComplete);
  out.key(key::Category).str(workCategory(w.kind));
  out.key(key::Name).str(w.kind == PERFRT_GPU_SYNC ? d.string(w.sync_kind)
                                                   : displayName(w.name));
  out.key(key::Pid).u64(devicePid(device)).key(key::Tid).u64(rowTid(w, p.row));
  out.key(key::Ts).micros(w.start);
  out.key(key::Dur).micros(w.end - w.start);
  out.key(key::Args).ch('{');
  out.key(key::ArgDevice, true).u64(device == ~0u ? 0 : device);
  out.key(key::ArgContext).u64(w.context);
  out.key(key::ArgStream).u64(w.stream);
  out.key(key::ArgCorrelation).u64(w.correlation);
  if (p.api >= 0) {
    const GpuHostPoint &launch = gCorr->apiPoints()[size_t(p.api)];
    if (launch.externalId)
      out.key(key::ArgExternalId).u64(launch.externalId);
    if (launch.fn)
      out.key(key::ArgLaunchedBy).str(fnName(launch.fn));
  }
  if (p.capturedBy)
    out.key(key::ArgCapturedBy).str(fnName(p.capturedBy));
  if (w.kind == PERFRT_GPU_KERNEL) {
    out.key(key::ArgRegisters).u64(w.registers);
    out.key(key::ArgSharedMemory).u64(w.shared_memory);
    dim3(out, key::ArgGrid, w.grid);
    dim3(out, key::ArgBlock, w.block);
  }
  if (w.kind == PERFRT_GPU_MEMCPY || w.kind == PERFRT_GPU_MEMSET) {
    out.key(key::ArgBytes).u64(w.bytes);
    uint64_t ns = w.end - w.start;
    out.key(key::ArgBandwidth).dbl(ns ? double(w.bytes) / double(ns) : 0.0);
  }
  if (w.kind == PERFRT_GPU_SYNC)
    out.key(key::ArgSyncKind).str(d.string(w.sync_kind));
  if (w.graph_id) {
    out.key(key::ArgGraphId).u64(w.graph_id);
    out.key(key::ArgGraphNodeId).u64(w.graph_node_id);
  }
  out.raw("}}");
}

void writeFlow(JsonOut &out, bool start, uint64_t id, uint64_t pid,
               uint64_t tid, uint64_t ts) {
  out.ch('{')
      .key(key::Phase, true)
      .str(start ? key::PhaseFlowStart : key::PhaseFlowEnd);
  out.key(key::Category).str(key::CategoryFlow);
  out.key(key::Name).str(key::FlowName);
  out.key(key::FlowId).u64(id);
  out.key(key::Pid).u64(pid).key(key::Tid).u64(tid);
  out.key(key::Ts).micros(ts);
  if (!start)
    out.key(key::FlowBindPoint).str(key::FlowBindEnclosing);
  out.ch('}');
}

void writeMeta(JsonOut &out, const char *what, uint64_t pid, uint64_t tid,
               const char *argKey, const std::string *text, uint64_t number) {
  out.ch('{').key(key::Phase, true).str(key::PhaseMetadata);
  out.key(key::Name).str(what);
  out.key(key::Pid).u64(pid).key(key::Tid).u64(tid);
  out.key(key::Args).ch('{').key(argKey, true);
  if (text)
    out.str(text->c_str());
  else
    out.u64(number);
  out.raw("}}");
}

/// Exact nearest-rank statistics of GPU durations, for the summary.
void durationStats(JsonOut &out, std::vector<uint64_t> &ns) {
  std::sort(ns.begin(), ns.end());
  uint64_t total = 0;
  for (uint64_t v : ns)
    total += v;
  auto rank = [&](double q) {
    size_t i = size_t(q * double(ns.size() - 1) + 0.5);
    return ns[std::min(i, ns.size() - 1)];
  };
  out.key(skey::Calls, true).u64(ns.size());
  out.key(skey::DurationNsStats).ch('{');
  out.key(skey::Total, true).u64(total);
  out.key(skey::Mean).u64(ns.empty() ? 0 : total / ns.size());
  out.key(skey::P50).u64(ns.empty() ? 0 : rank(0.50));
  out.key(skey::P99).u64(ns.empty() ? 0 : rank(0.99));
  out.key(skey::Min).u64(ns.empty() ? 0 : ns.front());
  out.key(skey::Max).u64(ns.empty() ? 0 : ns.back());
  out.ch('}');
}

void qualityFields(JsonOut &out) {
  const GpuQuality &q = gCorr->quality();
  const GpuData &d = gCorr->data();
  out.key(key::MetaGpuRecords, true).u64(q.records);
  out.key(key::MetaGpuDroppedRecords)
      .u64(d.cuptiDropped + d.capDropped + d.lateRecords);
  out.key(key::MetaGpuUnmatchedLaunches).u64(q.unmatchedLaunches);
  out.key(key::MetaGpuUnmatchedGpuRecords).u64(q.unmatchedGpuRecords);
  out.key(key::MetaGpuOutsideRun).u64(q.outsideRun);
  out.key(key::MetaGpuStartsBeforeLaunch).u64(q.startsBeforeLaunch);
  out.key(key::MetaGpuOverlapMoves).u64(q.overlapMoves);
  out.key(key::MetaGpuZeroTimestamps).u64(q.zeroTimestamps);
}

void stateFields(JsonOut &out) {
  const GpuData &d = gCorr->data();
  out.key(key::MetaCupti).str(cuptiStateName(d.state));
  if (!d.reason.empty())
    out.key(key::MetaCuptiReason).str(d.reason.c_str());
  if (d.cuptiVersion)
    out.key(key::MetaCuptiVersion).u64(d.cuptiVersion);
}

} // namespace

void gpuBeginOutput(uint64_t runStartNs, uint64_t runEndNs, bool inSignal) {
  if (gCorr)
    return;
  if (!inSignal)
    gpuStoreFlush();
  gCorr = new GpuCorrelation(closeGpuStore(inSignal), runStartNs, runEndNs);
}

bool gpuHasOutput() {
  if (!gCorr)
    return false;
  const GpuData &d = gCorr->data();
  return d.state == CuptiState::On || d.state == CuptiState::Unavailable ||
         !d.apis.empty() || !d.work.empty();
}

uint64_t gpuOnSpan(uint32_t tid, uint64_t startNs, uint64_t endNs,
                   uint32_t fn) {
  return gCorr ? gCorr->onSpan(tid, startNs, endNs, fn) : 0;
}

void gpuWriteTraceEvents(JsonOut &out, void (*beginEvent)()) {
  if (!gpuHasOutput())
    return;
  gCorr->finish();
  const GpuData &d = gCorr->data();

  std::vector<uint32_t> apis = apiOrder();
  const std::vector<uint32_t> &work = gCorr->order();
  for (uint32_t i : apis) {
    beginEvent();
    writeApi(out, d.apis[i], gCorr->apiPoints()[i]);
  }
  // Rows and devices seen, for their names.
  std::map<uint32_t, std::map<uint64_t, std::string>> rows;
  for (uint32_t k : work) {
    beginEvent();
    writeWork(out, k);
    const perfrt_gpu_work &w = d.work[k];
    uint32_t row = gCorr->placements()[k].row;
    std::string name = key::StreamThreadPrefix + std::to_string(w.stream);
    if (w.kind == PERFRT_GPU_SYNC)
      name += " (sync)";
    if (row)
      name += " (overlap " + std::to_string(row) + ")";
    rows[gCorr->deviceOf(w)].emplace(rowTid(w, row), name);
  }
  // One flow per launch and GPU record it caused; ids unique in the file.
  uint64_t flowId = 1;
  for (uint32_t i : apis) {
    const perfrt_gpu_api &a = d.apis[i];
    if (!gCorr->isLaunch(a))
      continue;
    for (uint32_t k : gCorr->launched(i)) {
      const perfrt_gpu_work &w = d.work[k];
      if (w.kind == PERFRT_GPU_SYNC)
        continue;
      uint64_t pid = devicePid(gCorr->deviceOf(w));
      uint64_t tid = rowTid(w, gCorr->placements()[k].row);
      beginEvent();
      writeFlow(out, true, flowId, uint64_t(gRt.pid), a.tid, a.start);
      beginEvent();
      writeFlow(out, false, flowId, pid, tid, w.start);
      ++flowId;
    }
  }
  for (const auto &[device, names] : rows) {
    uint64_t pid = devicePid(device);
    std::string process = device == ~0u
                              ? std::string(key::GpuProcessPrefix) + "(unknown)"
                              : key::GpuProcessPrefix + std::to_string(device);
    beginEvent();
    writeMeta(out, key::ProcessName, pid, 0, key::ArgName, &process, 0);
    beginEvent();
    // Below the host process, in device order, as Kineto sorts them.
    writeMeta(out, key::ProcessSortIndex, pid, 0, key::ArgSortIndex, nullptr,
              5000000 + (device == ~0u ? 4096 : device));
    for (const auto &[tid, name] : names) {
      beginEvent();
      writeMeta(out, key::ThreadName, pid, tid, key::ArgName, &name, 0);
      beginEvent();
      writeMeta(out, key::ThreadSortIndex, pid, tid, key::ArgSortIndex, nullptr,
                tid);
    }
  }
}

uint32_t gpuApiOnlyThreads(uint32_t *tids, uint32_t max) {
  if (!gCorr)
    return 0;
  std::vector<uint32_t> seen;
  for (const perfrt_gpu_api &a : gCorr->data().apis)
    seen.push_back(a.tid);
  std::sort(seen.begin(), seen.end());
  seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
  uint32_t n = 0;
  for (uint32_t tid : seen)
    if (n < max)
      tids[n++] = tid;
  return n;
}

void gpuWriteTraceMetadata(JsonOut &out) {
  if (!gpuHasOutput())
    return;
  out.key(key::MetaGpu).ch('{');
  qualityFields(out);
  stateFields(out);
  out.ch('}');
}

void gpuWriteSummary(JsonOut &out) {
  if (!gpuHasOutput())
    return;
  gCorr->finish();
  const GpuData &d = gCorr->data();
  out.key(skey::Gpu).ch('{');
  out.key(key::MetaCupti, true).str(cuptiStateName(d.state));
  if (!d.reason.empty())
    out.key(key::MetaCuptiReason).str(d.reason.c_str());

  // Per GPU record name (kernels, copies, memsets), and per launching
  // function, by total time.
  std::map<std::string, std::pair<uint32_t, std::vector<uint64_t>>> byName;
  std::map<uint32_t, std::vector<uint64_t>> byLauncher;
  for (uint32_t k = 0; k < d.work.size(); ++k) {
    const perfrt_gpu_work &w = d.work[k];
    const GpuWorkPlacement &p = gCorr->placements()[k];
    if (!p.written || w.kind == PERFRT_GPU_SYNC)
      continue;
    auto &entry = byName[displayName(w.name)];
    entry.first = w.kind;
    entry.second.push_back(w.end - w.start);
    uint32_t fn = p.api >= 0 ? gCorr->apiPoints()[size_t(p.api)].fn : 0;
    if (fn)
      byLauncher[fn].push_back(w.end - w.start);
  }
  auto byTotal = [](const std::vector<uint64_t> &v) {
    uint64_t t = 0;
    for (uint64_t x : v)
      t += x;
    return t;
  };
  std::vector<std::pair<uint64_t, const std::string *>> names;
  for (auto &[name, entry] : byName)
    names.emplace_back(byTotal(entry.second), &name);
  std::stable_sort(
      names.begin(), names.end(),
      [](const auto &a, const auto &b) { return a.first > b.first; });
  out.key(skey::Kernels).ch('[');
  for (size_t i = 0; i < names.size(); ++i) {
    auto &entry = byName[*names[i].second];
    out.raw(i ? ",\n" : "\n").ch('{');
    durationStats(out, entry.second);
    out.key(skey::Name).str(names[i].second->c_str());
    out.key(skey::Kind).str(workCategory(entry.first));
    out.ch('}');
  }
  out.raw("]");

  std::vector<std::pair<uint64_t, uint32_t>> launchers;
  for (auto &[fn, v] : byLauncher)
    launchers.emplace_back(byTotal(v), fn);
  std::stable_sort(
      launchers.begin(), launchers.end(),
      [](const auto &a, const auto &b) { return a.first > b.first; });
  out.key(skey::Launchers).ch('[');
  for (size_t i = 0; i < launchers.size(); ++i) {
    out.raw(i ? ",\n" : "\n").ch('{');
    durationStats(out, byLauncher[launchers[i].second]);
    out.key(skey::Function).str(fnName(launchers[i].second));
    out.ch('}');
  }
  out.raw("]");
  out.key(skey::Quality).ch('{');
  qualityFields(out);
  out.raw("}}");
}

const char *gpuLossWarning() {
  if (!gCorr)
    return "";
  const GpuData &d = gCorr->data();
  if (d.capDropped)
    gWarning = "perfcc: " + std::to_string(d.capDropped) +
               " GPU records were dropped past PERFCC_GPU_BUFFER_MB=" +
               std::to_string(gRt.flags.gpuBufferMb) + " (raise it)";
  else if (d.cuptiDropped)
    gWarning = "perfcc: CUPTI dropped " + std::to_string(d.cuptiDropped) +
               " GPU records (its device buffers filled)";
  else
    gWarning.clear();
  return gWarning.c_str();
}

} // namespace perfrt

PERFRT_NOINSTR_END
