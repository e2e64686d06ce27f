//===- perfrt_probes.cpp - the hot path: __perfcc_enter and friends -------===//
//
// Invariants (docs/architecture.md): no allocation and no locks on the common
// path, a recursion guard in every handler, nothing here is instrumented.
// Enter pushes a frame on the thread's shadow stack; exit pops it and, in
// trace mode, appends one complete span (in summary mode it charges the
// function's aggregates). The shadow stack is repaired when frames were
// skipped (longjmp, a frame without probes that unwound), so spans never
// overlap.
//
// Each probe is a fast path that handles the common case with no call but
// the clock, and a slow path it tail-calls for everything else (first probe
// of a thread, repairs, a full chunk, summary mode). Keeping the calls out of
// the fast path keeps it free of register saves: measured, the pair went
// from 33 to 27 ns here with the chunk and signalling changes of the writer.
//
//===----------------------------------------------------------------------===//
#include "perfrt_noinstr.h"
PERFRT_NOINSTR_BEGIN

#include "perfrt_clock.h"
#include "perfrt_delay.h"
#include "perfrt_nvtx.h"
#include "perfrt_record.h"
#include "perfrt_speedup.h"

#include "perfcc/ABI.h"

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

using namespace perfrt;

namespace {

__attribute__((noinline)) void enterSlow(perfcc_desc *desc, uintptr_t sp) {
  ThreadState *t = acquire();
  if (!t)
    return;
  uint32_t bits = desc->enabled;
  if (bits & PERFCC_ENABLED_CATCHUP)
    speedupCatchUp(t);
  if (bits & PERFCC_ENABLED_RECORD) {
    if (needsRepair(t, sp))
      closeAbandonedBelow(t, sp, nowTicks());
    if (bits & PERFCC_ENABLED_NVTX)
      nvtxEnter(desc->id);
    if (Frame *f = pushFrame(t, desc->id, sp)) {
      if (bits & PERFCC_ENABLED_CPU)
        t->cpuStack[t->depth - 1] = CpuFrame{threadCpuNs(), 0};
      f->start = nowTicks(); // last: bookkeeping is not charged to the call
    }
  }
  // After the frame's start: the bump is part of the function's time.
  if (bits & PERFCC_ENABLED_DELAY) {
    if (gSpeedup.on)
      speedupEnterSelected(t, nowTicks());
    else
      delayEnter(t, desc->id);
  }
  release(t);
}

__attribute__((noinline)) void exitSlow(perfcc_desc *desc, uint64_t end,
                                        uint32_t flags, uint32_t bits) {
  // The CPU clock right after the wall clock, before any bookkeeping.
  uint64_t cpu = bits & PERFCC_ENABLED_CPU ? threadCpuNs() : 0;
  ThreadState *t = acquire();
  if (!t)
    return;
  t->cpuNow = cpu;
  if ((bits & PERFCC_ENABLED_DELAY) && gSpeedup.on)
    speedupExitSelected(t, end);
  else if (bits & PERFCC_ENABLED_DELAY)
    delayExit(t, desc->id, end); // before its frame goes: it owns the depth
  // Only a recorded function's entry pushed a frame.
  if (bits & PERFCC_ENABLED_RECORD)
    exitFrame(t, desc->id, end, flags);
  if (bits & PERFCC_ENABLED_NVTX)
    nvtxExit();
  if (bits & PERFCC_ENABLED_CATCHUP)
    speedupCatchUp(t);
  release(t);
}

/// The common exit: the top frame is this function's and its thread's chunk
/// can take the call (both modes record spans: gRt.spans). Anything else
/// goes to exitSlow.
__attribute__((always_inline)) inline void exitWith(perfcc_desc *desc,
                                                    uint32_t flags) {
  uint64_t end = nowTicks(); // first, so bookkeeping is not charged to the call
  uint32_t bits = desc->enabled;
  if (UNLIKELY(bits != PERFCC_ENABLED_RECORD))
    return exitSlow(desc, end, flags, bits);
  ThreadState *t = tlsState;
  if (UNLIKELY(!t || t->busy.load(std::memory_order_relaxed) || t->overflow ||
               !t->depth || t->stack[t->depth - 1].fn != desc->id))
    return exitSlow(desc, end, flags, bits);
  // A first chunk, or a full one, takes the slow path. Every recording mode
  // records spans, so a chunk with room is the only case here.
  SpanChunk *c = t->chunk;
  if (UNLIKELY(!chunkHasRoom(c)))
    return exitSlow(desc, end, flags, bits);
  if (UNLIKELY(!enterGuard(t)))
    return;
  // popFrame for the case checked above.
  CompletedCall call = popTop(t, end);
  storeSpan(c,
            SpanRecord{call.start, call.end, call.exclusive, call.fn, flags});
  release(t);
}

} // namespace

PERFRT_API void __perfcc_enter(perfcc_desc *desc) {
  // The stack pointer here is a fixed distance below the caller's (this
  // function's prologue is the same on every call), which is all the repair
  // needs: an order between frames. Read directly, since
  // __builtin_frame_address would force a frame pointer.
  uintptr_t sp;
  __asm__("mov %%rsp, %0" : "=r"(sp));
  ThreadState *t = tlsState;
  if (UNLIKELY(!t || t->busy.load(std::memory_order_relaxed) ||
               desc->enabled != PERFCC_ENABLED_RECORD || needsRepair(t, sp)))
    return enterSlow(desc, sp);
  if (UNLIKELY(!enterGuard(t)))
    return;
  // Past MaxDepth pushFrame counts the call and returns null, as on the slow
  // path.
  if (Frame *f = pushFrame(t, desc->id, sp))
    f->start = nowTicks(); // last, so bookkeeping is not charged to the call
  release(t);
}

PERFRT_API void __perfcc_exit(perfcc_desc *desc) { exitWith(desc, 0); }

PERFRT_API void __perfcc_unwind(perfcc_desc *desc) {
  exitWith(desc, SpanUnwind);
}

PERFRT_API void __perfcc_resync(perfcc_desc *desc) {
  if (!(desc->enabled & PERFCC_ENABLED_RECORD))
    return;
  ThreadState *t = acquire();
  if (!t)
    return;
  // setjmp returned: this function's frame is live, so every frame above its
  // top-most record was abandoned by a longjmp (or this is setjmp's first
  // return, and there is nothing above it).
  closeAbove(t, desc->id, nowTicks());
  release(t);
}

PERFRT_NOINSTR_END
