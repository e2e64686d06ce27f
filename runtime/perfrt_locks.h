//===- perfrt_locks.h - what each thread does with mutexes ----------------===//
//
// Causality through locks (docs/methodology.md#locks). While an experiment
// is armed (PERFCC_DELAY_TARGETS), the runtime interposes
// pthread_mutex_lock, _trylock, _unlock, the condition-variable waits,
// signals and broadcasts, and pthread_join, and keeps per thread: how many
// mutexes it holds, how long it has held at least one (its critical-section
// time) and how long it sat blocked, waiting for a mutex another thread held,
// for a condition another thread signals or for another thread to end. Two
// experiments read them:
//  - a speed bump models "this function is slower", so the share of its
//    delay that matches the share of its work done holding a lock is paid
//    holding the lock (right after the next acquisition, or at once when a
//    lock is already held), where it holds up every thread waiting for it;
//    the rest is paid on entry, as before;
//  - a virtual speedup speeds up a function's own work, not the time it
//    spent blocked on another thread (sleeps and I/O stay its own), and a
//    thread pays the pause it owes before it unlocks a mutex or signals a
//    condition, so a pause owed for work done holding a lock holds it up.
// Without an experiment the interposers only forward, at the cost of one
// predicted branch.
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_LOCKS_H
#define PERFRT_LOCKS_H

#include <cstdint>

namespace perfrt {

struct ThreadState;

/// Per thread, in ticks (fields of ThreadState::locks).
struct LockState {
  uint32_t held;           // mutexes held now (through the interposers)
  uint32_t waitDepth;      // perf_wait_begin()s open (perfrt_waits.cpp)
  uint64_t waitSince;      // when the outermost of them began
  uint64_t heldSince;      // when `held` last went from 0 to 1
  uint64_t heldTicks;      // total time with at least one mutex held
  uint64_t blockedTicks;   // total time blocked on another thread
  uint64_t mutexWaitTicks; // the part of it waiting for a mutex
  uint64_t contendedLocks; // acquisitions that had to wait
  uint64_t delayHeldTicks; // speed bumps paid holding a mutex (not work)
  // A speed bump's share owed at the next acquisition by the delayed call
  // at shadow-stack depth `pendingDepth` (paid at its exit if it takes none).
  uint64_t pendingTicks;
  uint64_t pendingDelivered; // what that call paid on entry
  uint32_t pendingFn;
  uint32_t pendingDepth;
};

/// Arms the interposers (an experiment is running). Start-up only.
void locksInit(bool armed);

/// True when the interposers track (an experiment is armed).
bool locksArmed();
/// The calling thread's state with its guard held, when an experiment is
/// armed and the thread is the program's and may record; else null (then
/// only forward). Pair a non-null return with release().
ThreadState *locksTracked();
/// In a virtual speedup, pays what the calling thread owes before it wakes
/// another (a signal without the mutex held, a declared wake: no unlock
/// follows) and publishes what the woken may skip.
void locksPayBeforeWaking();

/// Time with a mutex held up to \p now, including the current stretch.
uint64_t lockHeldTicks(const ThreadState *t, uint64_t now);

} // namespace perfrt

#endif // PERFRT_LOCKS_H
