//===- perfrt_spans.h - bounded memory for trace spans --------------------===//
//
// In trace mode each thread appends completed spans to its current chunk.
// A full chunk is handed to a writer thread that streams it to the trace file
// and recycles it, so a long run needs only as much memory as the writer is
// behind. Chunk memory is capped (PERFCC_BUFFER_MB); when the cap is reached
// spans are dropped and counted, never lost silently. The chunk switch is the
// only place a probe can take a lock, once per ChunkRecords spans.
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_SPANS_H
#define PERFRT_SPANS_H

#include <cstddef>
#include <cstdint>

namespace perfrt {

struct ThreadState;

/// One completed call; times in clock ticks.
struct SpanRecord {
  uint64_t start, end;
  uint32_t fn, flags;
};

constexpr size_t ChunkBytes = 64 * 1024;
constexpr size_t ChunkRecords = (ChunkBytes - 16) / sizeof(SpanRecord);

struct SpanChunk {
  SpanChunk *next;
  uint32_t tid;
  uint32_t count;
  SpanRecord records[ChunkRecords];
};
static_assert(sizeof(SpanChunk) <= ChunkBytes, "chunk fits its allocation");

/// Sets the memory cap. Called once at start-up.
void spansInit(size_t capBytes);

/// Publishes \p t's full chunk (if any) and gives it a fresh one; null when
/// the cap is reached and the writer has nothing to give back.
SpanChunk *spansNextChunk(ThreadState *t);

/// Hands a chunk to the writer (thread exit, final flush).
void spansPublish(SpanChunk *c);

/// Stops the writer thread (joined unless \p inSignal) and writes every
/// chunk still queued. False when, in a signal, the writer could not be
/// stopped safely: then nothing more may be written.
bool spansStopWriter(bool inSignal);

/// In a forked child: no writer thread, no queued chunks (they are the
/// parent's to write), a fresh lock.
void spansAfterFork();

} // namespace perfrt

#endif // PERFRT_SPANS_H
