//===- perfrt_spill.h - the spill file: chunks on disk, crash-safe --------===//
//
// The writer thread appends full chunks to `.<program>.<pid>.spans` in the
// output folder (perfcc/SpillFormat.h): framed, hashed, and preceded by what
// the file does not say yet (the functions registered since, the chunk's
// thread name, new progress points, a clock pair). The end of the run reads
// them back into the trace and removes the file; a run that never reaches
// its end leaves a file `perfctl trace recover` turns into a trace. The file
// is synced to disk at most once a second, so a power cut loses about the
// last second. PERFCC_TRACE_MAX_MB caps it: the first chunks are kept, or,
// with PERFCC_TRACE_KEEP=last, the last ones (a ring of chunk slots).
// Called by one thread at a time (the writer thread, or the final flush).
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_SPILL_H
#define PERFRT_SPILL_H

#include <cstdint>

namespace perfrt {

struct SpanChunk;

/// Writes records [\p first, \p n) of \p c as one chunk frame. False when the
/// file did not take them (the cap reached with PERFCC_TRACE_KEEP=first, or the
/// file could not be written). With PERFCC_TRACE_KEEP=last, the chunk it
/// overwrites is read back and handed to \p evicted first.
bool spillChunk(const SpanChunk *c, uint32_t first, uint32_t n,
                void (*evicted)(const SpanChunk *));

/// End of the run: hands every chunk the file kept, oldest first, to
/// \p convert.
void spillConvert(void (*convert)(SpanChunk *));

/// The trace is written: the file goes.
void spillRemove();

/// The file's path while there is one (the trace could not be written:
/// what `perfctl trace recover` reads), else null.
const char *spillLeftBehind();

/// In a forked child: the parent's spill is not the child's.
void spillAfterFork();

/// Start-up, trace mode: names, on stderr, the spills of earlier runs of
/// this program in the output folder whose process is gone (they ended
/// before writing their trace), with the command that recovers them.
void spillReportLeftovers();

} // namespace perfrt

#endif // PERFRT_SPILL_H
