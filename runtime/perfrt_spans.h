//===- perfrt_spans.h - bounded memory for trace spans --------------------===//
//
// In trace mode each thread appends completed spans to its current chunk.
// A full chunk is handed to a writer thread that appends it, raw, to a spill
// file and recycles it, so a long run needs only as much memory as the writer
// is behind. Formatting JSON is left to the end of the run: during the run
// the writer costs a write(2) per 256 KiB, not a formatter per span that would
// compete with the program for the CPU it is measuring. Chunk memory is capped
// (PERFCC_BUFFER_MB); when the cap is reached spans are dropped and counted,
// never lost silently. The chunk switch is the only place a probe can take a
// lock, once per ChunkRecords spans.
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_SPANS_H
#define PERFRT_SPANS_H

#include <cstddef>
#include <cstdint>

namespace perfrt {

struct ThreadState;

/// One completed call; times in clock ticks. Exclusive time travels with
/// the span because it is known exactly only at the exit, from the shadow
/// stack; the writer derives the summary's aggregates from these records.
struct SpanRecord {
  uint64_t start, end, exclusive;
  uint32_t fn, flags;
};

constexpr size_t ChunkBytes = 256 * 1024;
constexpr size_t ChunkHeader = 32;
constexpr size_t ChunkRecords = (ChunkBytes - ChunkHeader) / sizeof(SpanRecord);

struct SpanChunk {
  SpanChunk *next;
  ThreadState *owner; // the writer charges the spans to its aggregates
  uint32_t tid;
  uint32_t count;
  /// Its allocation: ChunkBytes for a pool chunk; less for the compact copy
  /// an exiting thread hands over (spansPublish), which holds only `count`
  /// records and is freed, not pooled, once written.
  uint32_t bytes;
  /// Records [0, spilled) are in the spill file already: the writer took
  /// them from the thread's live chunk (spansCheckpoint). Whoever writes or
  /// charges the chunk later takes records [spilled, count) only.
  uint32_t spilled;
  SpanRecord records[ChunkRecords];
};
static_assert(sizeof(SpanChunk) <= ChunkBytes, "chunk fits its allocation");
static_assert(offsetof(SpanChunk, records) == ChunkHeader, "header size");

/// Sets the memory cap. Called once at start-up.
void spansInit(size_t capBytes);

/// Slow path of appendSpan: publishes \p t's full chunk, takes a fresh one
/// and stores \p r there; when the cap is reached and the writer has nothing
/// to give back, drops \p r (counted) and the next DropBatch spans without
/// trying again, so a thread outrunning the writer never contends for the
/// lock on every call.
void spansAppendSlow(ThreadState *t, const SpanRecord &r);

/// Appends \p span and its SpanCpu record \p cpu to one chunk, so a reader
/// finds the CPU time right after its span: a chunk with one slot left is
/// handed over first. When no chunk memory is left both are charged to the
/// thread's own aggregates, as a dropped span is.
void spansAppendPair(ThreadState *t, const SpanRecord &span,
                     const SpanRecord &cpu);

constexpr uint32_t DropBatch = 1024;

/// Hands an exiting thread's last chunk to the writer. A mostly empty one
/// goes as a compact copy and the chunk back to the pool: a program whose
/// threads each make a few calls would otherwise hold a whole chunk per
/// thread until the writer runs, and at 256 KiB a thread, a few hundred
/// threads ending while the writer waits for a CPU fill PERFCC_BUFFER_MB.
void spansPublish(SpanChunk *c);

/// How old the oldest unwritten call of a live chunk may grow before the
/// writer copies the chunk's new records to the spill: a thread making a
/// few calls a second takes hours to fill a chunk, and until then its calls
/// are in memory only, lost to `kill -9`. Matches the spill's sync period.
constexpr uint64_t CheckpointAgeNs = 1'000'000'000;

/// Trace mode, the writer thread: for each thread whose live chunk holds
/// records not yet spilled, the oldest of them stored (its end) more than
/// \p ageTicks before \p now, copies those records into a chunk of their own,
/// marks them spilled, and hands the copy to \p write. Returns how many copies
/// it made. Only the hot threads' chunks fill before they age, so they give
/// none.
unsigned spansCheckpoint(uint64_t now, uint64_t ageTicks,
                         void (*write)(SpanChunk *));

/// Stops the writer thread (joined unless \p inSignal). False when, in a
/// signal, the writer could not be stopped safely: then nothing more may be
/// written.
bool spansStopWriter(bool inSignal);

/// After spansStopWriter: hands every chunk still queued, oldest first, to
/// \p convert.
void spansDrainQueue(void (*convert)(SpanChunk *));

/// In a forked child: no writer thread, no queued chunks (they are the
/// parent's to write), a fresh lock.
void spansAfterFork();

} // namespace perfrt

#endif // PERFRT_SPANS_H
