//===- perfrt_gpu_store.h - GPU records kept until the run ends -----------===//
//
// The runtime's end of the sink (perfrt_gpu_records.h): the records the
// adapter converted, the strings they name, CUPTI's state and what was lost.
// Filled from CUPTI's buffer-completion threads during the run, under one
// mutex taken once per completed buffer (never by a probe); read once, at
// the end, after closeGpuStore(). Records past PERFCC_GPU_BUFFER_MB are
// dropped and counted, like spans past PERFCC_BUFFER_MB.
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_GPU_STORE_H
#define PERFRT_GPU_STORE_H

#include "perfrt_gpu_records.h"

#include <cstdint>
#include <string>
#include <vector>

namespace perfrt {

/// How GPU activity was collected, for the trace's metadata and the summary.
enum class CuptiState {
  Off,         // PERFCC_CUPTI=off: CUDA never touched
  NotUsed,     // allowed, but the process never initialized CUDA
  On,          // the adapter attached and CUPTI collected records
  Unavailable, // CUDA was used but CUPTI could not be had (reason says why)
};

const char *cuptiStateName(CuptiState s);

/// Everything GPU-side a run leaves, in arrival order.
struct GpuData {
  CuptiState state = CuptiState::NotUsed;
  std::string reason;
  uint32_t cuptiVersion = 0;
  std::vector<perfrt_gpu_api> apis;
  std::vector<perfrt_gpu_work> work;
  std::vector<perfrt_gpu_graph_node> graphNodes;
  std::vector<std::string> strings; // interned; id i is strings[i]
  uint64_t cuptiDropped = 0;        // CUPTI's own count
  uint64_t capDropped = 0;          // over PERFCC_GPU_BUFFER_MB
  uint64_t lateRecords = 0;         // arrived after the store closed

  const char *string(uint32_t id) const {
    return id < strings.size() ? strings[id].c_str() : "";
  }
  /// Appends \p text as a new string and returns its id (the store's sink
  /// looks a string up first, so each is added once there).
  uint32_t intern(const char *text);
};

/// Sets the state before any adapter can attach (start-up) and the memory
/// cap for records.
void gpuStoreInit(CuptiState initial, uint64_t capBytes);

/// The state now.
CuptiState gpuStoreState();

/// Marks CUPTI unavailable with \p reason (first reason wins).
void gpuStoreUnavailable(const char *reason);

/// Forces CUPTI to hand over what it still buffers (no-op when the adapter
/// never attached). Not async-signal-safe: CUPTI takes locks.
void gpuStoreFlush();

/// Stops taking records and moves them out. Later records are counted as
/// late. Call once, at the end. \p inSignal: the signal may have
/// interrupted this thread inside the store, so the lock is only tried.
GpuData closeGpuStore(bool inSignal);

/// In a forked child: CUPTI does not follow fork, and the parent's records
/// are the parent's.
void gpuStoreAfterFork();

/// The sink the adapter receives; exported as __perfrt_gpu_sink.
const perfrt_gpu_sink *gpuSink();

/// PERFCC_CUPTI_RAW's file, for the adapter (perfrt_gpu_raw.h); -1: none.
void gpuSinkSetRawFd(int fd);

} // namespace perfrt

#endif // PERFRT_GPU_STORE_H
