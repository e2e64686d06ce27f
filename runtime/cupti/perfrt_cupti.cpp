//===- perfrt_cupti.cpp - the CUPTI adapter (libperfrt_cupti.so) ----------===//
//
// The only file that includes cupti.h. Loaded by the CUDA driver through
// CUDA_INJECTION64_PATH (InitializeInjection, called inside cuInit) or by
// the runtime when CUDA was initialized first (perfrt_cupti_attach). It
// subscribes to CUPTI, gives it the runtime's clock before enabling any
// record, enables activity records only (no per-call callbacks: a launch
// costs the program nothing but CUPTI's own record), and turns each completed
// buffer into the runtime's plain records (perfrt_gpu_records.h). Resource
// callbacks, rare by nature, bring graph-node creation for capture
// attribution and a flush before a context goes away.
//
// What this file cannot test without a GPU is exactly what it does: CUPTI
// calls and field copies. Everything after the sink is tested on the CPU.
//
//===----------------------------------------------------------------------===//
#include "perfrt_noinstr.h"
PERFRT_NOINSTR_BEGIN

#include "perfrt_cupti_raw.h"
#include "perfrt_gpu_records.h"

#include <cupti.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <sys/syscall.h>
#include <unistd.h>
#include <unordered_set>
#include <vector>

#define PERFRT_CUPTI_API extern "C" __attribute__((visibility("default")))

namespace {

const perfrt_gpu_sink *gSink = nullptr;
CUpti_SubscriberHandle gSubscriber = nullptr;
std::once_flag gAttachOnce;
bool gExiting = false; // set by the exit handler: CUDA may be torn down

constexpr size_t BufferBytes = 4u << 20; // CUPTI suggests 1-10 MiB
constexpr size_t BufferAlign = 8;

// Interned names, looked up once per distinct value.
std::mutex gNamesLock;
std::vector<uint32_t> gRuntimeNames, gDriverNames;

const char *resultText(CUptiResult r) {
  const char *text = nullptr;
  if (cuptiGetResultString(r, &text) != CUPTI_SUCCESS || !text)
    return "unknown CUPTI error";
  return text;
}

uint32_t apiName(bool driver, uint32_t cbid) {
  std::lock_guard<std::mutex> g(gNamesLock);
  std::vector<uint32_t> &table = driver ? gDriverNames : gRuntimeNames;
  if (cbid < table.size() && table[cbid])
    return table[cbid];
  const char *name = nullptr;
  cuptiGetCallbackName(driver ? CUPTI_CB_DOMAIN_DRIVER_API
                              : CUPTI_CB_DOMAIN_RUNTIME_API,
                       cbid, &name);
  char text[128];
  if (!name) {
    std::snprintf(text, sizeof text, "%s API %u", driver ? "driver" : "runtime",
                  cbid);
  } else {
    // CUPTI names the versioned entry point ("cudaLaunchKernel_v7000");
    // Kineto, Holistic Trace Analysis and people use the API's name.
    std::snprintf(text, sizeof text, "%s", name);
    char *v = std::strrchr(text, '_');
    if (v && v[1] == 'v' && v[2] &&
        std::strspn(v + 2, "0123456789") == std::strlen(v + 2))
      *v = '\0';
  }
  uint32_t id = gSink->intern(text);
  if (cbid < 65536) {
    if (table.size() <= cbid)
      table.resize(cbid + 1);
    table[cbid] = id;
  }
  return id;
}

const char *memoryKindName(uint8_t kind) {
  switch (kind) {
  case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE:
    return "Pageable";
  case CUPTI_ACTIVITY_MEMORY_KIND_PINNED:
    return "Pinned";
  case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
  case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC:
    return "Device";
  case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY:
    return "Array";
  case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
  case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC:
    return "Managed";
  default:
    return "Unknown";
  }
}

const char *copyKindName(uint8_t kind) {
  static const char *const names[] = {"Unknown", "HtoD", "DtoH", "HtoA",
                                      "AtoH",    "AtoA", "AtoD", "DtoA",
                                      "DtoD",    "HtoH", "PtoP"};
  return kind < sizeof names / sizeof *names ? names[kind] : "Unknown";
}

/// Kineto's copy names: "Memcpy HtoD (Pinned -> Device)".
uint32_t copyName(const CUpti_ActivityMemcpy6 &m) {
  char text[96];
  std::snprintf(text, sizeof text, "Memcpy %s (%s -> %s)",
                copyKindName(m.copyKind), memoryKindName(m.srcKind),
                memoryKindName(m.dstKind));
  return gSink->intern(text);
}

const char *syncKindName(CUpti_ActivitySynchronizationType t) {
  switch (t) {
  case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
    return "Event Sync";
  case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:
    return "Stream Wait Event";
  case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
    return "Stream Sync";
  case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
    return "Context Sync";
  default:
    return "Unknown Sync";
  }
}

/// The fields every GPU record of kind \p kind shares (kernels, copies and
/// memsets name them alike in their CUPTI structs).
template <typename Record>
perfrt_gpu_work gpuWork(uint32_t kind, const Record &r) {
  perfrt_gpu_work out{};
  out.kind = kind;
  out.start = r.start;
  out.end = r.end;
  out.correlation = r.correlationId;
  out.device = r.deviceId;
  out.context = r.contextId;
  out.stream = r.streamId;
  out.graph_id = r.graphId;
  out.graph_node_id = r.graphNodeId;
  return out;
}

/// A kernel record's name is a pointer into this process's CUPTI. Keeping
/// buffers raw collects the pointers (their text is kept beside the
/// buffer); replaying a kept buffer maps each back to its kept text.
struct NameHooks {
  std::vector<const char *> *seen = nullptr;
  const char *(*kept)(const char *address, void *context) = nullptr;
  void *context = nullptr;
};

const char *kernelName(const char *name, const NameHooks &hooks) {
  if (name && hooks.kept)
    return hooks.kept(name, hooks.context);
  if (name && hooks.seen)
    hooks.seen->push_back(name);
  return name;
}

void convert(const CUpti_Activity *r, std::vector<perfrt_gpu_api> &apis,
             std::vector<perfrt_gpu_work> &work, const NameHooks &hooks) {
  switch (r->kind) {
  case CUPTI_ACTIVITY_KIND_RUNTIME:
  case CUPTI_ACTIVITY_KIND_DRIVER: {
    auto *a = reinterpret_cast<const CUpti_ActivityAPI *>(r);
    bool driver = r->kind == CUPTI_ACTIVITY_KIND_DRIVER;
    perfrt_gpu_api out{};
    out.start = a->start;
    out.end = a->end;
    out.correlation = a->correlationId;
    out.tid = a->threadId;
    out.cbid = a->cbid;
    out.name = apiName(driver, a->cbid);
    out.driver = driver;
    apis.push_back(out);
    break;
  }
  case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
    auto *k = reinterpret_cast<const CUpti_ActivityKernel10 *>(r);
    perfrt_gpu_work out = gpuWork(PERFRT_GPU_KERNEL, *k);
    const char *name = kernelName(k->name, hooks);
    out.name = gSink->intern(name ? name : "(unnamed kernel)");
    out.registers = k->registersPerThread;
    out.grid[0] = k->gridX, out.grid[1] = k->gridY, out.grid[2] = k->gridZ;
    out.block[0] = k->blockX, out.block[1] = k->blockY,
    out.block[2] = k->blockZ;
    out.shared_memory =
        uint32_t(k->staticSharedMemory) + uint32_t(k->dynamicSharedMemory);
    work.push_back(out);
    break;
  }
  case CUPTI_ACTIVITY_KIND_MEMCPY: {
    auto *m = reinterpret_cast<const CUpti_ActivityMemcpy6 *>(r);
    perfrt_gpu_work out = gpuWork(PERFRT_GPU_MEMCPY, *m);
    out.name = copyName(*m);
    out.bytes = m->bytes;
    work.push_back(out);
    break;
  }
  case CUPTI_ACTIVITY_KIND_MEMSET: {
    auto *m = reinterpret_cast<const CUpti_ActivityMemset4 *>(r);
    perfrt_gpu_work out = gpuWork(PERFRT_GPU_MEMSET, *m);
    char text[48];
    std::snprintf(text, sizeof text, "Memset (%s)",
                  memoryKindName(uint8_t(m->memoryKind)));
    out.name = gSink->intern(text);
    out.bytes = m->bytes;
    work.push_back(out);
    break;
  }
  case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
    auto *s = reinterpret_cast<const CUpti_ActivitySynchronization2 *>(r);
    perfrt_gpu_work out{};
    out.kind = PERFRT_GPU_SYNC;
    out.start = s->start;
    out.end = s->end;
    out.correlation = s->correlationId;
    out.device = ~0u; // the record names only the context
    out.context = s->contextId;
    out.stream = s->streamId == uint32_t(CUPTI_SYNCHRONIZATION_INVALID_VALUE)
                     ? 0
                     : s->streamId;
    out.sync_kind = gSink->intern(syncKindName(s->type));
    work.push_back(out);
    break;
  }
  default:
    break; // kinds we did not enable
  }
}

void CUPTIAPI bufferRequested(uint8_t **buffer, size_t *size,
                              size_t *maxNumRecords) {
  *buffer =
      static_cast<uint8_t *>(std::aligned_alloc(BufferAlign, BufferBytes));
  *size = *buffer ? BufferBytes : 0;
  *maxNumRecords = 0; // as many as fit
}

/// Converts one buffer's records and hands them to the sink in one call.
void deliver(uint8_t *buffer, size_t validSize, const NameHooks &hooks) {
  // Per-thread buffers (CUPTI 13's default) complete on many threads: all
  // state here is local or behind the sink's lock.
  std::vector<perfrt_gpu_api> apis;
  std::vector<perfrt_gpu_work> work;
  CUpti_Activity *record = nullptr;
  while (validSize && cuptiActivityGetNextRecord(buffer, validSize, &record) ==
                          CUPTI_SUCCESS)
    convert(record, apis, work, hooks);
  if (!apis.empty() || !work.empty())
    gSink->records(apis.data(), uint32_t(apis.size()), work.data(),
                   uint32_t(work.size()));
}

// PERFCC_CUPTI_RAW (perfrt_cupti_raw.h): buffers complete on many threads;
// one frame at a time.
std::mutex gRawLock;
bool gRawFailed = false;
std::unordered_set<const char *> gRawNamesKept; // name frames written

/// Writes all of \p size bytes, or says why not (once) and stops keeping.
bool rawWrite(const void *data, size_t size) {
  const char *p = static_cast<const char *>(data);
  while (size && !gRawFailed) {
    ssize_t n = ::write(gSink->raw_fd, p, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      char line[192];
      std::snprintf(line, sizeof line,
                    "perfcc: PERFCC_CUPTI_RAW: writing CUPTI's buffers "
                    "failed (%s); later buffers are not kept\n",
                    n < 0 ? std::strerror(errno) : "nothing written");
      ssize_t ignored = ::write(2, line, std::strlen(line));
      (void)ignored;
      gRawFailed = true;
      return false;
    }
    p += n;
    size -= size_t(n);
  }
  return !gRawFailed;
}

/// One frame: its type and size, two parts of payload, zeros to 8 bytes.
bool rawFrame(uint32_t type, const void *a, size_t aSize, const void *b,
              size_t bSize) {
  static const uint8_t zeros[8] = {};
  perfrt_cupti_raw_frame f{type, 0, aSize + bSize};
  return rawWrite(&f, sizeof f) && rawWrite(a, aSize) && rawWrite(b, bSize) &&
         rawWrite(zeros, (8 - f.size % 8) % 8);
}

void rawHeader(uint32_t cuptiVersion) {
  if (gSink->raw_fd < 0)
    return;
  perfrt_cupti_raw_header h{};
  std::memcpy(h.magic, PERFRT_CUPTI_RAW_MAGIC, sizeof h.magic);
  h.format = PERFRT_CUPTI_RAW_FORMAT;
  h.cupti_version = cuptiVersion;
  std::lock_guard<std::mutex> g(gRawLock);
  rawWrite(&h, sizeof h);
}

/// The buffer, then the text of each name pointer in it not kept before:
/// the pointers mean nothing outside this process.
void rawKeep(const uint8_t *buffer, size_t validSize,
             const std::vector<const char *> &names) {
  if (gSink->raw_fd < 0)
    return;
  std::lock_guard<std::mutex> g(gRawLock);
  rawFrame(PERFRT_CUPTI_RAW_BUFFER, buffer, validSize, nullptr, 0);
  for (const char *name : names)
    if (gRawNamesKept.insert(name).second) {
      uint64_t address = reinterpret_cast<uintptr_t>(name);
      rawFrame(PERFRT_CUPTI_RAW_NAME, &address, sizeof address, name,
               std::strlen(name) + 1);
    }
}

void CUPTIAPI bufferCompleted(CUcontext, uint32_t, uint8_t *buffer, size_t,
                              size_t validSize) {
  std::vector<const char *> names;
  NameHooks hooks;
  if (gSink->raw_fd >= 0)
    hooks.seen = &names;
  deliver(buffer, validSize, hooks);
  rawKeep(buffer, validSize, names);
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) ==
          CUPTI_SUCCESS &&
      dropped)
    gSink->dropped(dropped);
  std::free(buffer);
}

uint64_t CUPTIAPI timestamp() { return gSink->now(); }

uint32_t currentTid() { return uint32_t(syscall(SYS_gettid)); }

void onGraphNode(CUpti_CallbackId cbid, const CUpti_ResourceData *data) {
  auto *g = static_cast<const CUpti_GraphData *>(data->resourceDescriptor);
  if (!g || !g->node)
    return;
  perfrt_gpu_graph_node n{};
  n.time = gSink->now();
  n.tid = currentTid();
  cuptiGetGraphNodeId(g->node, &n.node_id);
  if (g->graph)
    cuptiGetGraphId(g->graph, &n.graph_id);
  if (cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED && g->originalNode)
    cuptiGetGraphNodeId(g->originalNode, &n.original_node_id);
  gSink->graph_node(&n);
}

void flushForced() {
  if (!gExiting)
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

void CUPTIAPI onCallback(void *, CUpti_CallbackDomain domain,
                         CUpti_CallbackId cbid, const void *data) {
  if (domain != CUPTI_CB_DOMAIN_RESOURCE)
    return;
  auto *resource = static_cast<const CUpti_ResourceData *>(data);
  switch (cbid) {
  case CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING:
    // The context's records must leave CUPTI before it goes.
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    break;
  case CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED:
  case CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED:
    onGraphNode(cbid, resource);
    break;
  default:
    break;
  }
}

/// Registered at attach, after the CUDA runtime registered its own teardown,
/// so it runs first at exit: everything still in CUPTI is flushed while
/// CUDA is alive. Later flushes (the runtime's destructor) are skipped.
void atExit() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  gExiting = true;
}

/// Pure queries: no GPU work, no wait, a fraction of a microsecond each, and
/// called per launch by common code (cudaGetLastError after every launch;
/// the runtime's own cuKernelGetName before it). Each record costs the
/// program CUPTI's time per call, and none changes an answer: their API
/// records are not taken.
const CUpti_CallbackId QueryRuntimeCalls[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceCount_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetAttribute_v5000,
    CUPTI_RUNTIME_TRACE_CBID_cudaPointerGetAttributes_v4000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetPriority_v5050,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetPriority_ptsz_v7000,
};
const CUpti_CallbackId QueryDriverCalls[] = {
    CUPTI_DRIVER_TRACE_CBID_cuKernelGetName,
    CUPTI_DRIVER_TRACE_CBID_cuFuncGetName,
    CUPTI_DRIVER_TRACE_CBID_cuDeviceGet,
    CUPTI_DRIVER_TRACE_CBID_cuDeviceGetCount,
    CUPTI_DRIVER_TRACE_CBID_cuDeviceGetAttribute,
    CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent,
    CUPTI_DRIVER_TRACE_CBID_cuCtxGetDevice,
    CUPTI_DRIVER_TRACE_CBID_cuCtxGetDevice_v2,
    CUPTI_DRIVER_TRACE_CBID_cuCtxGetId,
    CUPTI_DRIVER_TRACE_CBID_cuStreamGetCtx,
    CUPTI_DRIVER_TRACE_CBID_cuStreamGetCtx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamGetCtx_v2,
    CUPTI_DRIVER_TRACE_CBID_cuStreamGetCtx_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamGetId,
    CUPTI_DRIVER_TRACE_CBID_cuStreamGetId_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuPointerGetAttribute,
    CUPTI_DRIVER_TRACE_CBID_cuPointerGetAttributes,
    CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress,
    CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress_v2,
};

bool check(CUptiResult r, const char *what) {
  if (r == CUPTI_SUCCESS)
    return true;
  char line[256];
  std::snprintf(line, sizeof line, "%s failed: %s", what, resultText(r));
  gSink->unavailable(line);
  return false;
}

void attach() {
  auto lookup = reinterpret_cast<const perfrt_gpu_sink *(*)()>(
      dlsym(RTLD_DEFAULT, PERFRT_GPU_SINK_SYMBOL));
  // No runtime here (a child that inherited the variable), or one that
  // speaks another version, or one that asked for nothing: do nothing.
  const perfrt_gpu_sink *sink = lookup ? lookup() : nullptr;
  if (!sink || sink->version != PERFRT_GPU_SINK_VERSION || sink->policy == 0)
    return;
  gSink = sink;

  CUptiResult r = cuptiSubscribe(&gSubscriber, onCallback, nullptr);
  if (r != CUPTI_SUCCESS) {
    char line[256];
    std::snprintf(line, sizeof line,
                  "cuptiSubscribe: %s (another profiler, such as Nsight "
                  "Systems, may hold CUPTI)",
                  resultText(r));
    gSink->unavailable(line);
    return;
  }
  // The clock first: records made before it would be on CUPTI's default
  // clock, not the probes' (a later change leaves such records behind).
  if (!check(cuptiActivityRegisterTimestampCallback(timestamp),
             "cuptiActivityRegisterTimestampCallback") ||
      !check(cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM),
             "cuptiSetThreadIdType") ||
      !check(cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted),
             "cuptiActivityRegisterCallbacks"))
    return;
  static const CUpti_CallbackId resources[] = {
      CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING,
      CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED,
      CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED};
  for (CUpti_CallbackId cbid : resources)
    if (!check(
            cuptiEnableCallback(1, gSubscriber, CUPTI_CB_DOMAIN_RESOURCE, cbid),
            "cuptiEnableCallback(RESOURCE)"))
      return;
  uint32_t version = 0;
  cuptiGetVersion(&version);
  rawHeader(version); // before any buffer can complete
  // CONCURRENT_KERNEL, never KERNEL: KERNEL serializes every kernel.
  static const CUpti_ActivityKind kinds[] = {
      CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
      CUPTI_ACTIVITY_KIND_MEMCPY,
      CUPTI_ACTIVITY_KIND_MEMSET,
      CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
      CUPTI_ACTIVITY_KIND_RUNTIME,
      CUPTI_ACTIVITY_KIND_DRIVER};
  for (CUpti_ActivityKind kind : kinds)
    if (!check(cuptiActivityEnable(kind), "cuptiActivityEnable"))
      return;
  // Best effort: a CUPTI without per-call control records them all.
  for (CUpti_CallbackId cbid : QueryRuntimeCalls)
    cuptiActivityEnableRuntimeApi(cbid, 0);
  for (CUpti_CallbackId cbid : QueryDriverCalls)
    cuptiActivityEnableDriverApi(cbid, 0);
  std::atexit(atExit);
  gSink->attached(version, flushForced);
}

} // namespace

/// CUDA_INJECTION64_PATH's entry point, called by the driver in cuInit.
PERFRT_CUPTI_API int InitializeInjection(void) {
  std::call_once(gAttachOnce, attach);
  return 1;
}

/// Replays a buffer of CUPTI activity records into \p sink, through the
/// same conversion as a buffer CUPTI completed. For tests: libcupti parses
/// buffers without a GPU, so the adapter's field copies are checked on
/// records built from cupti.h's own structs, or on buffers a real GPU filled
/// (PERFCC_CUPTI_RAW), whose kernel names \p keptName gives back (null for
/// buffers made in this process).
PERFRT_CUPTI_API void
perfrt_cupti_replay(const perfrt_gpu_sink *sink, uint8_t *buffer,
                    size_t validSize,
                    const char *(*keptName)(const char *address, void *context),
                    void *context) {
  gSink = sink;
  NameHooks hooks;
  hooks.kept = keptName;
  hooks.context = context;
  deliver(buffer, validSize, hooks);
}

/// For a process that initialized CUDA before the runtime started.
PERFRT_CUPTI_API int perfrt_cupti_attach(void) {
  std::call_once(gAttachOnce, attach);
  return 1;
}

PERFRT_NOINSTR_END
