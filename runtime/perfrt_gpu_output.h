//===- perfrt_gpu_output.h - GPU activity in the trace and the summary ----===//
//
// At the end of a run: takes the GPU records out of the store, charges API
// calls to the host spans as the trace writer streams them (gpuOnSpan), then
// writes the GPU side in Kineto's names (docs/gpu-tracing.md): a process per
// device with a row per stream, CUDA API calls on their threads, one `ac2g`
// flow per launch and GPU record it caused, and what was lost
// (metadata.gpu); and the summary's `gpu` object. Nothing here runs unless
// the process used CUDA.
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_GPU_OUTPUT_H
#define PERFRT_GPU_OUTPUT_H

#include <cstdint>

namespace perfrt {

class JsonOut;

/// Start of the output: flushes CUPTI, closes the store and prepares the
/// correlation over [\p runStartNs, \p runEndNs]. Not async-signal-safe
/// when CUPTI is attached (\p inSignal skips the flush: CUPTI may hold the
/// lock the signal interrupted).
void gpuBeginOutput(uint64_t runStartNs, uint64_t runEndNs, bool inSignal);

/// True when there is GPU activity (or a CUPTI state) to write.
bool gpuHasOutput();

/// A host span, in completion order per thread (see GpuCorrelation::onSpan):
/// its External id, or 0.
uint64_t gpuOnSpan(uint32_t tid, uint64_t startNs, uint64_t endNs, uint32_t fn);

/// Writes the GPU events (after the last span). \p beginEvent opens each
/// event in the trace's array.
void gpuWriteTraceEvents(JsonOut &out, void (*beginEvent)());

/// Threads that made CUDA calls but ran no probe: their ids, for names.
/// Returns how many were written into \p tids (at most \p max).
uint32_t gpuApiOnlyThreads(uint32_t *tids, uint32_t max);

/// `"gpu":{...}` for the trace's metadata (a leading comma included).
void gpuWriteTraceMetadata(JsonOut &out);

/// `"gpu":{...}` for the summary (a leading comma included).
void gpuWriteSummary(JsonOut &out);

/// One line for stderr at exit when GPU records were lost, else empty.
const char *gpuLossWarning();

} // namespace perfrt

#endif // PERFRT_GPU_OUTPUT_H
