//===- perfrt_probes.cpp - the hot path: __perfcc_enter and friends -------===//
//
// Invariants (docs/architecture.md): no allocation and no locks on the common
// path, a recursion guard in every handler, nothing here is instrumented.
// Enter pushes a frame on the thread's shadow stack; exit pops it, updates
// the function's aggregates and, in trace mode, appends one complete span.
// The shadow stack is repaired when frames were skipped (longjmp, a frame
// without probes that unwound), so spans never overlap.
//
//===----------------------------------------------------------------------===//
#include "perfrt_clock.h"
#include "perfrt_record.h"

#include "perfcc/ABI.h"

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

using namespace perfrt;

namespace {

/// The calling thread's state if it may record now, else null. Sets the
/// recursion guard; every non-null return must be paired with release().
__attribute__((noinline, cold)) PERFRT_NOINSTR ThreadState *firstProbe() {
  if (!gRt.recording.load(std::memory_order_relaxed))
    return nullptr;
  return createThreadState();
}

PERFRT_NOINSTR inline ThreadState *acquire() {
  ThreadState *t = tlsState;
  if (UNLIKELY(!t)) {
    t = firstProbe();
    if (!t)
      return nullptr;
  }
  // A finished thread keeps `busy` set for good (see onThreadExit).
  if (UNLIKELY(t->busy.load(std::memory_order_relaxed)))
    return nullptr;
  t->busy.store(1, std::memory_order_relaxed);
  // Orders the guard against a signal handler on this same thread.
  std::atomic_signal_fence(std::memory_order_seq_cst);
  if (UNLIKELY(!gRt.recording.load(std::memory_order_relaxed))) {
    t->busy.store(0, std::memory_order_relaxed);
    return nullptr;
  }
  return t;
}

PERFRT_NOINSTR inline void release(ThreadState *t) {
  std::atomic_signal_fence(std::memory_order_seq_cst);
  t->busy.store(0, std::memory_order_release);
}

__attribute__((always_inline)) PERFRT_NOINSTR inline void
exitWith(perfcc_desc *desc, uint32_t flags) {
  uint64_t end = nowTicks(); // first, so bookkeeping is not charged to the call
  ThreadState *t = acquire();
  if (!t)
    return;
  exitFrame(t, desc->id, end, flags);
  release(t);
}

} // namespace

PERFRT_API PERFRT_NOINSTR void __perfcc_enter(perfcc_desc *desc) {
  ThreadState *t = acquire();
  if (!t)
    return;
  // This function's frame sits right below its caller's stack pointer.
  uintptr_t sp = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  if (UNLIKELY(needsRepair(t, sp)))
    closeAbandonedBelow(t, sp, nowTicks());
  if (Frame *f = pushFrame(t, desc->id, sp))
    f->start = nowTicks(); // last, so bookkeeping is not charged to the call
  release(t);
}

PERFRT_API PERFRT_NOINSTR void __perfcc_exit(perfcc_desc *desc) {
  exitWith(desc, 0);
}

PERFRT_API PERFRT_NOINSTR void __perfcc_unwind(perfcc_desc *desc) {
  exitWith(desc, SpanUnwind);
}

PERFRT_API PERFRT_NOINSTR void __perfcc_resync(perfcc_desc *desc) {
  ThreadState *t = acquire();
  if (!t)
    return;
  // setjmp returned: this function's frame is live, so every frame above its
  // top-most record was abandoned by a longjmp (or this is setjmp's first
  // return, and there is nothing above it).
  closeAbove(t, desc->id, nowTicks());
  release(t);
}
