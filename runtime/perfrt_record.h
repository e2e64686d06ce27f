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

#include <immintrin.h>

namespace perfrt {

__attribute__((always_inline)) inline FnStats *statsFor(ThreadState *t,
                                                        uint32_t fn) {
  FnStats **page = t->stats[fn / StatsPageSize];
  FnStats *s = page ? page[fn % StatsPageSize] : nullptr;
  if (__builtin_expect(s != nullptr, 1))
    return s;
  return createThreadStats(t, fn);
}

__attribute__((always_inline)) inline void appendSpan(ThreadState *t,
                                                      const SpanRecord &r) {
  SpanChunk *c = t->chunk;
  if (__builtin_expect(!c || c->count == ChunkRecords, 0))
    return spansAppendSlow(t, r);
  // Non-temporal stores: the writer thread reads a chunk on another core, so
  // a recycled chunk's lines live in that core's cache, and ordinary stores
  // would pull each line back first (measured: +15 ns a span). Streaming
  // stores skip the read. spansAppendSlow fences before a chunk changes
  // hands.
  auto *dst = reinterpret_cast<long long *>(&c->records[c->count]);
  const auto *src = reinterpret_cast<const long long *>(&r);
  static_assert(sizeof(SpanRecord) == 4 * sizeof(long long), "4 words");
  _mm_stream_si64(dst + 0, src[0]);
  _mm_stream_si64(dst + 1, src[1]);
  _mm_stream_si64(dst + 2, src[2]);
  _mm_stream_si64(dst + 3, src[3]);
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
  if (flags & SpanAbandoned)
    ++t->abandonedFrames;
  // In trace mode the writer charges the span to the aggregates, off this
  // thread; in summary mode there is no writer and this thread does it.
  if (gRt.trace)
    appendSpan(t, SpanRecord{f.start, end, excl, f.fn, flags});
  else if (FnStats *s = statsFor(t, f.fn))
    s->add(incl, excl);
}

} // namespace perfrt

#endif // PERFRT_RECORD_H
