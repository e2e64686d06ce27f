//===- perfrt_locks.cpp - mutexes and condition variables, interposed -----===//
#include "perfrt_noinstr.h"
PERFRT_NOINSTR_BEGIN

#include "perfrt_locks.h"

#include "perfrt_clock.h"
#include "perfrt_delay.h"
#include "perfrt_record.h"
#include "perfrt_speedup.h"

#include <cerrno>
#include <dlfcn.h>
#include <pthread.h>

namespace perfrt {

namespace {

bool gArmed = false;

using LockFn = int (*)(pthread_mutex_t *);
using WaitFn = int (*)(pthread_cond_t *, pthread_mutex_t *);
using TimedWaitFn = int (*)(pthread_cond_t *, pthread_mutex_t *,
                            const struct timespec *);

/// libc's own functions, found once. libperfrt.so precedes libc in symbol
/// lookup, so these calls resolve here first; RTLD_NEXT finds libc's.
/// (glibc's dlsym takes no public pthread mutex, so resolving cannot
/// recurse into the interposers.)
template <typename Fn> Fn next(const char *name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}
/// Plain pointers filled on first use, not function-local statics: a
/// static's guard could itself take a mutex and re-enter here. Two threads
/// racing to fill one store the same value.
LockFn gLock, gTryLock, gUnlock;
LockFn realLock() {
  if (__builtin_expect(!gLock, 0))
    gLock = next<LockFn>("pthread_mutex_lock");
  return gLock;
}
LockFn realTryLock() {
  if (__builtin_expect(!gTryLock, 0))
    gTryLock = next<LockFn>("pthread_mutex_trylock");
  return gTryLock;
}
LockFn realUnlock() {
  if (__builtin_expect(!gUnlock, 0))
    gUnlock = next<LockFn>("pthread_mutex_unlock");
  return gUnlock;
}

void acquired(ThreadState *t, uint64_t now) {
  if (t->locks.held++ == 0)
    t->locks.heldSince = now;
  // A speed bump owed by a call still running is paid here, holding the
  // mutex, as the slower work it stands for would be.
  if (t->locks.pendingTicks)
    delayPayPending(t);
}

void released(ThreadState *t, uint64_t now) {
  if (!t->locks.held)
    return; // locked before tracking began, or by an untracked path
  if (--t->locks.held == 0)
    t->locks.heldTicks +=
        now > t->locks.heldSince ? now - t->locks.heldSince : 0;
}

/// A wait on another thread: a condition wait (the mutex is given up for
/// the wait and held again after: \p mutex) or a join. The wait is time
/// blocked on another thread. In a virtual speedup the thread skips what
/// accrued while it waited (Coz's rule: it was waiting anyway). Without that
/// for joins, a thread that starts workers and joins them would pay, after
/// each join, every delay inserted while the workers ran, and hold up the
/// next round by exactly what the speedup took off. What it owes from before
/// is paid before a condition wait (which gives up a mutex: paid holding it,
/// as before an unlock), and after a join only as far as the wait did not
/// cover it (perfrt_speedup.cpp).
template <typename Wait> int blockedWait(Wait wait, bool mutex) {
  ThreadState *t = locksTracked();
  if (!t)
    return wait();
  uint64_t owedBeforeJoin = 0;
  if (gSpeedup.on) {
    uint64_t now = nowTicks();
    if (mutex) {
      speedupBeforeBlock(t, now);
      speedupReleasing(now); // the wait gives the mutex up
    } else {
      owedBeforeJoin = speedupBeforeJoin(t, now);
    }
  }
  uint64_t before = nowTicks();
  if (mutex)
    released(t, before);
  release(t);
  int rc = wait();
  ThreadState *again = acquire();
  if (!again)
    return rc;
  uint64_t after = nowTicks();
  again->locks.blockedTicks += after - before;
  if (gSpeedup.on) {
    if (mutex)
      speedupAfterBlock(again, after);
    else
      speedupAfterJoin(again, after, owedBeforeJoin, after - before);
  }
  if (mutex)
    acquired(again, after);
  release(again);
  return rc;
}

/// In a virtual speedup, what \p t owes is paid before it takes a mutex,
/// not inside the critical section that follows: the pause stands for its
/// work before the lock running slower, and that work would have reached
/// the lock later, not held it longer. Paid at the unlock instead (the next
/// point that could wake another thread), it held the mutex for the whole
/// pause: in examples/causal/producer_consumer the producer spins for room
/// in the queue outside the lock and paid what accrued meanwhile holding
/// the queue's mutex, and the consumer, sped up 50%, waited 9-14 ms of a
/// 480 ms run for that mutex (0.2 ms at 1%). In 12 interleaved rounds its
/// virtual speedup read +84% before and +89% after, against +88% for the
/// program doing half of the consumer's work.
void payBeforeTaking(ThreadState *t) {
  if (gSpeedup.on)
    speedupCatchUp(t);
}

/// In a virtual speedup, \p t has just taken \p m after blocking, owing
/// what accrued after its release, while the kernel woke it. In the faster
/// program it would have paid that first and reached \p m that much later,
/// and the thread that released \p m, running on meanwhile in a call that
/// is faster there, may have taken \p m again first. glibc's mutex lets it:
/// a thread that comes back before the woken waiter runs takes the mutex
/// ahead of it, and the waiter sleeps again. Paid holding \p m, the pause
/// kept the other thread out for its length and made the hand-off to the
/// waiter, which the faster program has less of, look as common as in the
/// slower one: lock_convoy's lock-free prepare_local, 50% faster, read +4%
/// against a real +10% (docs/methodology.md#locks). So \p t gives \p m up,
/// pays, and tries again; the order it reaches \p m in is then the faster
/// program's. Returns true if it must block again; \p rc and \p now are
/// then its attempt's.
bool reachedItLater(ThreadState *t, pthread_mutex_t *m, int &rc,
                    uint64_t &now) {
  if (rc != 0 || !gSpeedup.on || !speedupOwed(t, now))
    return false;
  speedupReleasing(now);
  realUnlock()(m);
  speedupCatchUp(t);
  rc = realTryLock()(m);
  now = nowTicks();
  return rc == EBUSY;
}

} // namespace

void locksInit(bool armed) {
  // Resolve now, at start-up, rather than inside a program's first lock.
  realLock();
  realTryLock();
  realUnlock();
  gArmed = armed;
}

bool locksArmed() { return gArmed; }

ThreadState *locksTracked() {
  if (__builtin_expect(!gArmed, 1) || tlsRuntimeThread)
    return nullptr;
  return acquire();
}

void locksPayBeforeWaking() {
  if (!gSpeedup.on)
    return;
  if (ThreadState *t = locksTracked()) {
    speedupBeforeWaking(t);
    release(t);
  }
}

uint64_t lockHeldTicks(const ThreadState *t, uint64_t now) {
  uint64_t current =
      t->locks.held && now > t->locks.heldSince ? now - t->locks.heldSince : 0;
  return t->locks.heldTicks + current;
}

} // namespace perfrt

using namespace perfrt;

PERFRT_API int pthread_mutex_lock(pthread_mutex_t *m) {
  ThreadState *t = locksTracked();
  if (!t)
    return realLock()(m);
  payBeforeTaking(t);
  // Uncontended: no wait. Contended: the wait is time blocked on the
  // thread that holds it; in a virtual speedup, pay before, skip after.
  int rc = realTryLock()(m);
  uint64_t now = nowTicks();
  if (rc == EBUSY) {
    ++t->locks.contendedLocks;
    do {
      if (gSpeedup.on)
        speedupBeforeBlock(t, now);
      uint64_t before = nowTicks();
      release(t); // no guard while blocked: signals may record meanwhile
      rc = realLock()(m);
      t = acquire();
      if (!t)
        return rc;
      now = nowTicks();
      t->locks.blockedTicks += now - before;
      t->locks.mutexWaitTicks += now - before;
      if (gSpeedup.on)
        speedupAfterBlock(t, now);
    } while (reachedItLater(t, m, rc, now));
  }
  if (rc == 0)
    acquired(t, now);
  release(t);
  return rc;
}

PERFRT_API int pthread_mutex_trylock(pthread_mutex_t *m) {
  ThreadState *t = locksTracked();
  if (!t)
    return realTryLock()(m);
  payBeforeTaking(t);
  int rc = realTryLock()(m);
  if (rc == 0)
    acquired(t, nowTicks());
  release(t);
  return rc;
}

PERFRT_API int pthread_mutex_unlock(pthread_mutex_t *m) {
  ThreadState *t = locksTracked();
  if (!t)
    return realUnlock()(m);
  // In a virtual speedup, the pause owed is paid before the mutex is
  // released (perfrt_speedup.h: nothing that can wake another thread goes
  // before it).
  if (gSpeedup.on)
    speedupBeforeWaking(t);
  int rc = realUnlock()(m);
  if (rc == 0)
    released(t, nowTicks());
  release(t);
  return rc;
}

namespace {
using JoinFn = int (*)(pthread_t, void **);
using SignalFn = int (*)(pthread_cond_t *);
WaitFn gWait;
TimedWaitFn gTimedWait;
JoinFn gJoin;
SignalFn gSignal, gBroadcast;
} // namespace

PERFRT_API int pthread_cond_signal(pthread_cond_t *cond) {
  if (__builtin_expect(!gSignal, 0))
    gSignal = next<SignalFn>("pthread_cond_signal");
  locksPayBeforeWaking();
  return gSignal(cond);
}

PERFRT_API int pthread_cond_broadcast(pthread_cond_t *cond) {
  if (__builtin_expect(!gBroadcast, 0))
    gBroadcast = next<SignalFn>("pthread_cond_broadcast");
  locksPayBeforeWaking();
  return gBroadcast(cond);
}

PERFRT_API int pthread_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex) {
  if (__builtin_expect(!gWait, 0))
    gWait = next<WaitFn>("pthread_cond_wait");
  return blockedWait([&] { return gWait(cond, mutex); }, true);
}

PERFRT_API int pthread_cond_timedwait(pthread_cond_t *cond,
                                      pthread_mutex_t *mutex,
                                      const struct timespec *until) {
  if (__builtin_expect(!gTimedWait, 0))
    gTimedWait = next<TimedWaitFn>("pthread_cond_timedwait");
  return blockedWait([&] { return gTimedWait(cond, mutex, until); }, true);
}

PERFRT_API int pthread_join(pthread_t thread, void **result) {
  if (__builtin_expect(!gJoin, 0))
    gJoin = next<JoinFn>("pthread_join");
  return blockedWait([&] { return gJoin(thread, result); }, false);
}

PERFRT_NOINSTR_END
