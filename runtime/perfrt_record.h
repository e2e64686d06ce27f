//===- perfrt_record.h - the shadow stack and what a call leaves ----------===//
//
// The hot path's logic, free of clocks and stack pointers: every time and
// stack position comes in as an argument, so the probes pass the real ones
// and the unit tests drive exact sequences (test/unit/ShadowStackTest.cpp).
// Push a frame on entry; on exit pop it, charge it to the function's
// aggregates and, in trace mode, append its span; repair the stack when
// frames were skipped (longjmp, a frame without probes that unwound), so
// spans never overlap.
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_RECORD_H
#define PERFRT_RECORD_H

#include "perfrt_clock.h"
#include "perfrt_runtime.h"
#include "perfrt_spans.h"
#include "perfrt_thread.h"

namespace perfrt {

/// Stores \p r in chunk \p c, which has room (the caller checked). Also the
/// trace-mode exit probe's fast path.
///
/// Ordinary stores, with the line a few spans ahead prefetched for writing.
/// A recycled chunk's lines were last read by the writer thread on another
/// core, so a plain store must take each line back first; the prefetch does
/// that off the critical path. Non-temporal stores (used before) skipped the
/// read and looked 15 ns a span cheaper in a loop of empty calls, but every
/// locked instruction of the program (a mutex, an atomic) then waited for
/// the half-written write-combining line to reach memory: on LevelDB's
/// readrandom and a loop taking a mutex per call, each probed call cost
/// about 450 ns more (docs/benchmarks.md, "Probes beside locks").
constexpr unsigned PrefetchAheadBytes = 256; // 8 spans, 4 lines
__attribute__((always_inline)) inline void storeSpan(SpanChunk *c,
                                                     const SpanRecord &r) {
  SpanRecord *dst = &c->records[c->count];
  // PREFETCHW (every x86-64 CPU since 2014; a NOP on older ones). Past the
  // chunk's end it reads nothing: prefetches never fault.
  __asm__ volatile(
      "prefetchw %0"
      :
      : "m"(*(reinterpret_cast<const char *>(dst) + PrefetchAheadBytes)));
  *dst = r;
  __atomic_store_n(&c->count, c->count + 1, __ATOMIC_RELEASE);
}

/// Stores a span and its SpanCpu record, published together: a reader of
/// the live chunk (the writer's checkpoint) never sees one without the
/// other. The caller checked there is room for both.
inline void storeSpanPair(SpanChunk *c, const SpanRecord &span,
                          const SpanRecord &cpu) {
  c->records[c->count] = span;
  c->records[c->count + 1] = cpu;
  __atomic_store_n(&c->count, c->count + 2, __ATOMIC_RELEASE);
}

/// True when the thread's current chunk can take one more span.
__attribute__((always_inline)) inline bool chunkHasRoom(const SpanChunk *c) {
  return c && c->count != ChunkRecords;
}

__attribute__((always_inline)) inline void appendSpan(ThreadState *t,
                                                      const SpanRecord &r) {
  if (__builtin_expect(!chunkHasRoom(t->chunk), 0))
    return spansAppendSlow(t, r);
  storeSpan(t->chunk, r);
}

/// A call taken off the shadow stack, with its times.
struct CompletedCall {
  uint64_t start, end;
  uint64_t inclusive, exclusive;
  uint32_t fn;
};

/// Pops the top frame at \p end and charges its inclusive time to the
/// caller's frame. The one place a frame's times are computed: popFrame and
/// the exit probe's fast path both use it.
__attribute__((always_inline)) inline CompletedCall popTop(ThreadState *t,
                                                           uint64_t end) {
  Frame &f = t->stack[--t->depth];
  uint64_t incl = end > f.start ? end - f.start : 0;
  uint64_t excl = incl > f.childTicks ? incl - f.childTicks : 0;
  if (t->depth)
    t->stack[t->depth - 1].childTicks += incl;
  return CompletedCall{f.start, end, incl, excl, f.fn};
}

/// Records the completion of the top frame at \p end.
__attribute__((always_inline)) inline void
popFrame(ThreadState *t, uint64_t end, uint32_t flags) {
  CompletedCall c = popTop(t, end);
  if (flags & SpanAbandoned)
    ++t->abandonedFrames;
  SpanRecord span{c.start, c.end, c.exclusive, c.fn, flags};
  // With its CPU time (t->cpuNow, read by the exit probe; the entry probe
  // set t->cpuStack at this depth: every recorded function reads the clock
  // when the setting is on) unless a repair or the end of the run closes
  // it: then no probe read the clock at its end.
  if (__builtin_expect(gRt.flags.cpuTime, 0) &&
      !(flags & (SpanAbandoned | SpanUnfinished))) {
    const CpuFrame &f = t->cpuStack[t->depth];
    uint64_t cpuIncl = t->cpuNow > f.start + gThreadCpuReadNs
                           ? t->cpuNow - f.start - gThreadCpuReadNs
                           : 0;
    uint64_t cpuExcl = cpuIncl > f.child ? cpuIncl - f.child : 0;
    if (t->depth)
      t->cpuStack[t->depth - 1].child += cpuIncl;
    SpanRecord cpu{cpuIncl, cpuExcl, 0, c.fn, SpanCpu};
    if (gRt.spans)
      return spansAppendPair(t, span, cpu);
    if (FnStats *s = t->stats.get(c.fn, t->arena)) {
      s->add(c.inclusive, c.exclusive);
      s->addCpu(cpuIncl, cpuExcl);
    }
    return;
  }
  // The writer charges the span to the aggregates, off this thread; with
  // no spans (a unit test's runtime) this thread does it.
  if (gRt.spans)
    appendSpan(t, span);
  else if (FnStats *s = t->stats.get(c.fn, t->arena))
    s->add(c.inclusive, c.exclusive);
}

/// Sets \p t's recursion guard if the runtime still records; false (guard
/// not held) once recording stopped. acquire() and the probes' fast paths
/// share it.
__attribute__((always_inline)) inline bool enterGuard(ThreadState *t) {
  t->busy.store(1, std::memory_order_relaxed);
  // Orders the guard against a signal handler on this same thread.
  std::atomic_signal_fence(std::memory_order_seq_cst);
  if (__builtin_expect(!gRt.recording.load(std::memory_order_relaxed), 0)) {
    // Release: what this probe read of the thread's state before it saw
    // recording stop happens before the end's writes to it (runtimeFinish
    // reads `busy` with acquire before it closes the thread's frames).
    t->busy.store(0, std::memory_order_release);
    return false;
  }
  return true;
}

/// The calling thread's state if it may record now, else null. Sets the
/// recursion guard; every non-null return must be paired with release().
/// The probes' slow paths and the progress points use it; the fast paths
/// take the same guard (enterGuard) on a state they already checked.
inline ThreadState *acquire() {
  ThreadState *t = tlsState;
  if (__builtin_expect(!t, 0)) {
    if (!gRt.recording.load(std::memory_order_relaxed))
      return nullptr;
    t = createThreadState();
    if (!t)
      return nullptr;
  }
  // A finished thread keeps `busy` set for good (see onThreadExit).
  if (t->busy.load(std::memory_order_relaxed))
    return nullptr;
  return enterGuard(t) ? t : nullptr;
}

inline void release(ThreadState *t) {
  std::atomic_signal_fence(std::memory_order_seq_cst);
  t->busy.store(0, std::memory_order_release);
}

/// True when frames recorded below \p sp (the new call's stack position)
/// are on the stack: they cannot be live any more, their functions were left
/// without an exit probe (longjmp). closeAbandonedBelow closes them.
/// Limitation: a signal handler running on an alternate stack (sigaltstack)
/// above the interrupted frames makes them look dead; they are closed early
/// and their later exits count as unmatched (the trace stays balanced).
__attribute__((always_inline)) inline bool needsRepair(const ThreadState *t,
                                                       uintptr_t sp) {
  return t->depth && t->stack[t->depth - 1].sp < sp;
}

/// Entry of function \p fn whose caller's stack is at \p sp. Returns the new
/// frame, whose `start` the caller sets, or null beyond MaxDepth (counted).
__attribute__((always_inline)) inline Frame *
pushFrame(ThreadState *t, uint32_t fn, uintptr_t sp) {
  uint32_t depth = t->depth;
  if (__builtin_expect(depth >= MaxDepth, 0)) {
    ++t->overflow;
    ++t->depthOverflows;
    return nullptr;
  }
  Frame &f = t->stack[depth];
  f.fn = fn;
  f.sp = sp;
  f.childTicks = 0;
  t->depth = depth + 1;
  return &f;
}

/// Closes every frame above the top-most frame of \p fn, as abandoned, at
/// \p now. False (nothing closed) when \p fn is not on the stack.
inline bool closeAbove(ThreadState *t, uint32_t fn, uint64_t now) {
  uint32_t d = t->depth;
  while (d > 0 && t->stack[d - 1].fn != fn)
    --d;
  if (d == 0)
    return false;
  while (t->depth > d)
    popFrame(t, now, SpanAbandoned);
  // Calls deeper than MaxDepth (never recorded) are above this frame too.
  t->overflow = 0;
  return true;
}

/// The uncommon exits: beyond MaxDepth, not on top, or without an entry.
__attribute__((noinline, cold)) inline void
exitFrameSlow(ThreadState *t, uint32_t fn, uint64_t end, uint32_t flags) {
  if (t->overflow) {
    --t->overflow;
  } else if (closeAbove(t, fn, end)) {
    popFrame(t, end, flags);
  } else {
    ++t->unmatchedExits;
  }
}

/// Exit of \p fn at \p end (\p flags: SpanUnwind when an exception leaves).
/// An exit that is not on top closes the frames above it first; one with no
/// entry at all is counted and ignored.
__attribute__((always_inline)) inline void
exitFrame(ThreadState *t, uint32_t fn, uint64_t end, uint32_t flags) {
  if (__builtin_expect(
          !t->overflow && t->depth && t->stack[t->depth - 1].fn == fn, 1))
    popFrame(t, end, flags);
  else
    exitFrameSlow(t, fn, end, flags);
}

} // namespace perfrt

#endif // PERFRT_RECORD_H
