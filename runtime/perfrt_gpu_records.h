//===- perfrt_gpu_records.h - GPU activity as the runtime's own records ---===//
//
// What the CUPTI adapter (cupti/perfrt_cupti.cpp, the only file that includes
// cupti.h) turns each CUPTI activity record into, and the C interface it
// hands them over by. Everything after this boundary (storing, correlating,
// attributing, writing) is ordinary code that tests drive with synthetic
// records on machines without a GPU.
//
// The adapter is a separate library, loaded only into processes that use
// CUDA, so it reaches the runtime through one exported function,
// __perfrt_gpu_sink(), rather than by linking it: a child process that
// inherited CUDA_INJECTION64_PATH but has no libperfrt.so finds no sink and
// the adapter does nothing.
//
// All times are CLOCK_MONOTONIC nanoseconds: the adapter registers the
// runtime's clock as CUPTI's timestamp source before enabling any record.
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_GPU_RECORDS_H
#define PERFRT_GPU_RECORDS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A CUDA runtime or driver API call, on the host thread that made it.
struct perfrt_gpu_api {
  uint64_t start, end;  /* ns */
  uint32_t correlation; /* CUPTI's id, shared with the GPU work it caused */
  uint32_t tid;         /* the calling thread, as gettid() */
  uint32_t cbid;        /* CUPTI's callback id */
  uint32_t name;        /* interned (perfrt_gpu_sink.intern) */
  uint32_t driver;      /* 1: driver API, 0: runtime API */
  uint32_t pad;
};

enum perfrt_gpu_work_kind {
  PERFRT_GPU_KERNEL = 1,
  PERFRT_GPU_MEMCPY = 2,
  PERFRT_GPU_MEMSET = 3,
  PERFRT_GPU_SYNC = 4, /* a host wait on the GPU (stream, event, context) */
};

/// Work the GPU did (a kernel, a copy, a memset) or a synchronization.
struct perfrt_gpu_work {
  uint64_t start, end; /* ns; 0 when CUPTI could not time it */
  uint32_t kind;       /* perfrt_gpu_work_kind */
  uint32_t correlation;
  uint32_t device; /* ~0u when CUPTI does not say (sync records) */
  uint32_t context;
  uint32_t stream;
  uint32_t name; /* interned: kernel name, "Memcpy HtoD (Pageable -> Device)" */
  uint32_t graph_id; /* 0 unless replayed from a CUDA graph */
  uint32_t registers;
  uint64_t graph_node_id;
  uint64_t bytes; /* copies and memsets */
  int32_t grid[3], block[3];
  uint32_t shared_memory; /* static + dynamic, bytes */
  uint32_t sync_kind;     /* interned, sync records: "Stream Sync" ... */
};

/// A CUDA graph node created (during stream capture, by the capturing
/// thread) or cloned into an executable graph at instantiation.
struct perfrt_gpu_graph_node {
  uint64_t time; /* ns */
  uint64_t node_id;
  uint64_t original_node_id; /* cloned: the node it was cloned from; else 0 */
  uint32_t graph_id;
  uint32_t tid;
};

/// The runtime's side of the boundary. Thread-safe: CUPTI completes buffers
/// on threads of its own.
struct perfrt_gpu_sink {
  uint32_t version; /* PERFRT_GPU_SINK_VERSION */
  /** What PERFCC_CUPTI asks for: 0 off, 1 auto, 2 on. */
  uint32_t policy;
  /** CLOCK_MONOTONIC ns: the timestamp source the adapter gives CUPTI. */
  uint64_t (*now)(void);
  /** A stable id for a string (kernel and API names). */
  uint32_t (*intern)(const char *text);
  /** One completed buffer's records, converted. */
  void (*records)(const struct perfrt_gpu_api *apis, uint32_t apiCount,
                  const struct perfrt_gpu_work *work, uint32_t workCount);
  void (*graph_node)(const struct perfrt_gpu_graph_node *node);
  /** Records CUPTI dropped (its own count). */
  void (*dropped)(uint64_t count);
  /** CUPTI is collecting; \p flush forces out what it still holds. */
  void (*attached)(uint32_t cuptiVersion, void (*flush)(void));
  /** CUPTI cannot be had; \p reason is one line. */
  void (*unavailable)(const char *reason);
  /** PERFCC_CUPTI_RAW: the open file that every buffer CUPTI completes is
   *  also appended to, raw (perfrt_cupti_raw.h); -1 when off. */
  int32_t raw_fd;
};

#define PERFRT_GPU_SINK_VERSION 2u
#define PERFRT_GPU_SINK_SYMBOL "__perfrt_gpu_sink"

/// Exported by libperfrt.so.
const struct perfrt_gpu_sink *__perfrt_gpu_sink(void);

#ifdef __cplusplus
}
#endif

#endif /* PERFRT_GPU_RECORDS_H */
