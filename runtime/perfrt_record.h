//===- perfrt_record.h - recording a completed call -----------------------===//
//
// Inline helpers of the hot path shared by the probes and the shadow-stack
// repair: pop a frame, charge it to the function's aggregates and, in trace
// mode, append its span.
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_RECORD_H
#define PERFRT_RECORD_H

#include "perfrt_runtime.h"
#include "perfrt_spans.h"
#include "perfrt_thread.h"

namespace perfrt {

__attribute__((always_inline)) inline FnStats *statsFor(ThreadState *t,
                                                        uint32_t fn) {
  FnStats **page = t->stats[fn / StatsPageSize];
  FnStats *s = page ? page[fn % StatsPageSize] : nullptr;
  if (__builtin_expect(s != nullptr, 1))
    return s;
  return createThreadStats(t, fn);
}

__attribute__((always_inline)) inline void
appendSpan(ThreadState *t, uint64_t start, uint64_t end, uint32_t fn,
           uint32_t flags) {
  SpanChunk *c = t->chunk;
  if (__builtin_expect(!c || c->count == ChunkRecords, 0)) {
    c = spansNextChunk(t);
    if (!c) {
      ++t->droppedSpans;
      return;
    }
  }
  c->records[c->count] = SpanRecord{start, end, fn, flags};
  // Release: the final flush may read the count from another thread.
  __atomic_store_n(&c->count, c->count + 1, __ATOMIC_RELEASE);
}

/// Records the completion of the top frame at \p end.
__attribute__((always_inline)) inline void popFrame(ThreadState *t,
                                                    uint64_t end,
                                                    uint32_t flags) {
  Frame &f = t->stack[--t->depth];
  uint64_t incl = end > f.start ? end - f.start : 0;
  uint64_t excl = incl > f.childTicks ? incl - f.childTicks : 0;
  if (t->depth)
    t->stack[t->depth - 1].childTicks += incl;
  if (FnStats *s = statsFor(t, f.fn))
    s->add(incl, excl);
  if (flags & SpanAbandoned)
    ++t->abandonedFrames;
  if (gRt.trace)
    appendSpan(t, f.start, end, f.fn, flags);
}

} // namespace perfrt

#endif // PERFRT_RECORD_H
