//===- perfrt_waits.cpp - waits the program declares (perf_wait_begin) ----===//
//
// The interposers see pthread mutexes, condition variables and joins; a
// thread that waits for another by spinning on an atomic, or on a futex it
// calls itself, looks busy to them. In a virtual speedup such a thread pays
// every pause that accrued while it waited, which Coz's rule forgives a
// blocked one (it was waiting anyway): a queue's producer that spins for
// room while the sped-up consumer works pays for the consumer's whole call,
// becomes slower than it would be in the faster program, and turns the
// prediction low. perf_wait_begin()/perf_wait_end() around such a wait, and
// perf_wake() before the store that ends another thread's wait, give the
// runtime what the interposers give it for a mutex: the wait is time
// blocked on another thread (not a selected call's own work, not a speed
// bump's), what the waiter owes is paid before it, what accrued until its
// release is skipped after it, and the waker pays before it releases.
//
//===----------------------------------------------------------------------===//
#include "perfrt_noinstr.h"
PERFRT_NOINSTR_BEGIN

#include "perfrt_clock.h"
#include "perfrt_locks.h"
#include "perfrt_record.h"
#include "perfrt_speedup.h"

using namespace perfrt;

PERFRT_API void perfcc_wait_begin(void) {
  ThreadState *t = locksTracked();
  if (!t)
    return;
  // Nested waits count once, from the outermost.
  if (t->locks.waitDepth++ == 0) {
    uint64_t now = nowTicks();
    if (gSpeedup.on)
      speedupBeforeBlock(t, now);
    t->locks.waitSince = nowTicks();
  }
  release(t);
}

PERFRT_API void perfcc_wait_end(void) {
  ThreadState *t = locksTracked();
  if (!t)
    return;
  // An end without its begin (a begin before the experiment started
  // tracking) is ignored rather than counted from nowhere.
  if (t->locks.waitDepth && --t->locks.waitDepth == 0) {
    uint64_t now = nowTicks();
    t->locks.blockedTicks +=
        now > t->locks.waitSince ? now - t->locks.waitSince : 0;
    if (gSpeedup.on)
      speedupAfterBlock(t, now);
  }
  release(t);
}

PERFRT_API void perfcc_wake(void) { locksPayBeforeWaking(); }

PERFRT_NOINSTR_END
