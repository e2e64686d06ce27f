//===- perfrt_trace_writer.h - the Chrome trace file ----------------------===//
//
// Streams `<program>.<pid>.trace.json` (Chrome Trace Event Format, object
// form): the header when the first chunk arrives, one complete event (ph X,
// category cpu_op) per span, and at the end the process and thread names and
// the `metadata` object with every drop counted. The names and categories are
// in perfrt_trace_format.h, shared with the tools that read traces.
// Calls are serialized by the caller (the writer thread or the final flush).
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_TRACE_WRITER_H
#define PERFRT_TRACE_WRITER_H

#include <cstdint>

namespace perfrt {

struct SpanChunk;

/// Writes the chunk's spans (opening the file first if needed).
void traceWriteChunk(SpanChunk *c);

/// Writes thread names and metadata and closes the file. Returns false and
/// fills \p path anyway if the file could not be written.
bool traceFinish(char *path, unsigned pathSize);

/// Output path for \p kind ("trace" or "summary") of this process.
void outputPath(const char *kind, char *path, unsigned pathSize);

/// Creates the output folder (and parents). Returns errno or 0.
int makeOutputDir();

/// In a forked child: the parent's open trace file is not ours.
void traceAfterFork();

} // namespace perfrt

#endif // PERFRT_TRACE_WRITER_H
