//===- perfrt_speedup.h - virtual speedups (Coz's mode) -------------------===//
//
// To pretend the selected functions are P% faster, every other thread is
// delayed by P% of the time a thread spends in them. A thread leaving a
// selected function adds that delay to a global count and to its own local
// count (it "ran faster"); every thread pays the difference between the two
// at its probes, progress points, before it takes a mutex, before it
// blocks, and before it can wake another (unlocking a mutex, signalling a
// condition). A thread that blocked waiting for another skips what accrued
// while it slept: it was waiting anyway (Coz's rule). It skips only what had
// accrued by the time it was released (the last unlock, signal or thread exit
// before it ran again), not what accrued while the kernel woke it: the thread
// that released it runs on meanwhile, possibly in a selected call, and a waiter
// that skipped that too ran ahead of the others. With 20-30 us wake-ups (a VM),
// a lock-free function beside a lock-bound one (examples/causal/lock_handoff)
// read +5 to +9.5% at 50% faster for a real +0.8%: half its time was inserted
// and never paid.
//
// Paying before a wake-up is Coz's rule too, and the reason is the same as
// for accruing while f runs: the pause stands for this thread's work running
// slower, and work done holding a mutex, slower, holds the mutex longer. A
// thread with no probe inside its critical section used to pay what accrued
// there at its next probe, after the unlock, where it would have waited for
// the mutex again anyway: the pause vanished into that slack, its
// subtraction from the run's time read as a gain, and a lock-free function
// beside a lock-bound one (examples/causal/lock_handoff) was predicted +24%
// at 50% faster for a real +0.1%.
//
// The delay accrues while the selected call runs, not in one lump at its
// exit: a thread inside one publishes when its own work began (a running
// slot), and the others owe P% of it so far at each probe. The pause stands
// for "the other threads ran slower while f ran", so it must fall while f
// runs. Paid in a lump after f's exit, it falls in what follows f, which
// is not random: a poller that runs f and then takes a lock made the worker
// pay its pause exactly while the poller held the lock, hiding the wait the
// worker would have had behind the pause; a function whose speedup costs
// throughput was predicted a gain of +21% against a real -12%
// (docs/methodology.md#locks). A selected thread that blocks on another
// pauses its slot: that time is not its own work. The run's effective
// time is its real time minus the total delay inserted, which turns the
// measured progress into the predicted throughput of the faster program.
//
// Valid for CPU threads only: a GPU cannot be paused by delaying the threads
// that feed it, so the runtime marks the result invalid when the process
// loaded a CUDA driver.
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_SPEEDUP_H
#define PERFRT_SPEEDUP_H

#include "perfrt_flags.h"

#include <atomic>
#include <cstdint>

namespace perfrt {

struct ThreadState;

/// Threads that can be inside a selected call at once and accrue delay as
/// they run; a thread beyond them adds its delay at exit only.
constexpr uint32_t SpeedupRunningSlots = 64;

struct SpeedupState {
  bool on;
  uint64_t percent;
  std::atomic<uint64_t> globalTicks;   // total delay owed, in ticks
  std::atomic<uint64_t> insertedTicks; // added inside the window
  std::atomic<uint64_t> paidTicks;     // actually spun, all threads
  // The owed total (speedupOwedTotal) at the latest release of a waiting
  // thread: the most a thread that blocked may skip when it runs again.
  std::atomic<uint64_t> releasedTicks;
  // One per thread that has run a selected call, kept until it exits (a
  // store per call, no compare-and-swap: selected functions can be 100 ns
  // hot). perfrt_speedup.cpp has the encoding: 0 outside a selected call,
  // else when its own work began, or how much it did before blocking.
  struct alignas(64) RunningSlot {
    std::atomic<uint64_t> value;
    std::atomic<uint32_t> owned;
  };
  RunningSlot running[SpeedupRunningSlots];
  std::atomic<uint32_t> runningHigh; // slots ever owned: readers scan these
};

extern SpeedupState gSpeedup;

void speedupInit(const Flags &flags);

/// Entry of a selected function on \p t.
void speedupEnterSelected(ThreadState *t, uint64_t now);
/// Exit of a selected function on \p t.
void speedupExitSelected(ThreadState *t, uint64_t now);
/// Pays what \p t owes at \p now (nothing while it runs a selected
/// function). A \p now of 0 reads the clock, only if a selected call runs.
void speedupCatchUp(ThreadState *t, uint64_t now = 0);
/// \p t resumes after blocking at \p now: forgets what accrued meanwhile,
/// up to its release (speedupReleasing).
void speedupSkip(ThreadState *t, uint64_t now = 0);
/// The calling thread is about to release threads that wait for it
/// (unlocking a mutex, signalling a condition, giving a mutex up for a
/// condition wait, exiting): what is owed at \p now (0: read the clock if
/// needed) is what they may skip.
void speedupReleasing(uint64_t now = 0);
/// What \p t would pay at a catch-up at \p now (0: read the clock if
/// needed): nothing inside a selected call.
uint64_t speedupOwed(const ThreadState *t, uint64_t now = 0);
/// \p t is about to wake threads that wait for it (unlocking a mutex,
/// signalling a condition): speedupCatchUp, then speedupReleasing, with the
/// owed total read once.
void speedupBeforeWaking(ThreadState *t);
/// \p t is about to block on another thread at \p now: pays what it owes,
/// or, inside a selected call, stops accruing (blocked time is not its
/// work).
void speedupBeforeBlock(ThreadState *t, uint64_t now);
/// \p t resumes at \p now after blocking: skips what accrued meanwhile and,
/// inside a selected call, accrues again.
void speedupAfterBlock(ThreadState *t, uint64_t now);
/// \p t is about to join another thread at \p now. Outside a selected call
/// what it owes is not paid now but counted as paid, and returned: after
/// the join it pays only what the wait did not cover (speedupAfterJoin).
/// Inside one, as speedupBeforeBlock (returns 0).
uint64_t speedupBeforeJoin(ThreadState *t, uint64_t now);
/// \p t resumes at \p now from a join that took \p waited ticks, owing
/// \p owed from before it: skips what accrued meanwhile, and pays what of
/// \p owed exceeds \p waited.
void speedupAfterJoin(ThreadState *t, uint64_t now, uint64_t owed,
                      uint64_t waited);
/// Every delay owed at \p now (0: read the clock if needed), including what
/// the selected calls running then have accrued: what a new thread starts
/// from.
uint64_t speedupOwedTotal(uint64_t now = 0);
/// \p t exits: its running slot is free for another thread.
void speedupThreadExit(ThreadState *t);
/// In a forked child: the parent's running calls are not the child's.
void speedupAfterFork();

/// True when the process loaded a GPU driver (CUDA), which a virtual speedup
/// cannot pause.
bool speedupSawGpu();

} // namespace perfrt

#endif // PERFRT_SPEEDUP_H
