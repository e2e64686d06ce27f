//===- perfrt_trace_writer.h - the Chrome trace file ----------------------===//
//
// Writes `<program>.<pid>.trace.json` (Chrome Trace Event Format, object
// form): one complete event (ph X, category cpu_op) per span, the process
// and thread names, and the `metadata` object with every drop counted.
// During the run full chunks go to the spill file, `.<program>.<pid>.spans`
// in the output folder (perfrt_spill.h); the end of the run converts them. The
// names and keys are perfcc/OutputSchema.h's, shared with the tools that read
// traces. Calls are serialized by the caller (the writer thread or the final
// flush).
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_TRACE_WRITER_H
#define PERFRT_TRACE_WRITER_H

#include <cstdint>

namespace perfrt {

struct SpanChunk;

/// Writer thread: charges the chunk's records not spilled yet to their
/// thread's aggregates and appends them to the spill file.
void traceSpillChunk(SpanChunk *c);

/// Summary mode's writer thread, and its end of the run: charges the chunk's
/// spans to their thread's aggregates, and nothing else.
void traceChargeChunk(SpanChunk *c);

/// End of the run: converts every spilled chunk to trace events (oldest
/// first); their calls were charged when the writer took them. The spill file
/// stays until the trace is written (perfrt_spill.h: spillRemove).
void traceConvertSpill();

/// End of the run: charges the chunk's spans not spilled to the aggregates
/// and writes them as trace events (opening the trace first if needed).
void traceConvertChunk(SpanChunk *c);

/// Writes thread names and metadata and closes the file. Returns false and
/// fills \p path anyway if the file could not be written.
bool traceFinish(char *path, unsigned pathSize);

/// Spans the spill file did not take (PERFCC_TRACE_MAX_MB reached, or a
/// write failed): in the summary, not in the trace.
uint64_t traceDroppedSpans();

/// In a forked child: the parent's open trace file is not ours.
void traceAfterFork();

} // namespace perfrt

#endif // PERFRT_TRACE_WRITER_H
