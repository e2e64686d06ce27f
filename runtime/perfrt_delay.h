//===- perfrt_delay.h - speed bumps: calibrated delays in a window --------===//
//
// A function named by PERFCC_DELAY_TARGETS is slowed on entry by spinning
// for PERFCC_DELAY_NS, every PERFCC_FREQUENCY-th call, but only inside the
// window [PERFCC_START_MS, +PERFCC_DURATION_MS) after start-up, the same
// window in which progress points measure throughput. The spin reads the
// clock until the requested ticks have passed; what it delivered is measured
// and reported against what was requested (perfrt_summary.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_DELAY_H
#define PERFRT_DELAY_H

#include "perfrt_flags.h"

#include <cstdint>

namespace perfrt {

struct ThreadState;

struct DelayConfig {
  bool armed;                      // a delay targets file was given
  uint64_t delayNs;                // requested per triggered call
  uint64_t delayTicks;             // the same in clock ticks
  uint64_t frequency;              // every Nth call in the window
  uint64_t windowStart, windowEnd; // ticks; windowEnd = ~0 for "to the end"
  double clockReadNs;              // median cost of one clock read
  double minDelayNs; // median delivered for a requested delay of 0
};

extern DelayConfig gDelay;

/// Per thread and function: what the speed bumps did.
struct DelayStats {
  uint64_t eligible;         // calls inside the window
  uint64_t delayed;          // calls that got a delay
  uint64_t deliveredTicks;   // total spin time
  uint64_t worstErrorTicks;  // largest |delivered - requested|
  uint64_t sumAbsErrorTicks; // for the mean error
  uint64_t paidHolding; // calls whose delay was paid (partly) holding a mutex
  // The function's own work (its time less delays and time blocked on other
  // threads), and the part of it done holding a mutex: their ratio is the
  // share of each delay paid holding one (perfrt_locks.h). Sums over the
  // calls with the older ones decaying (1/16 a call), after a thread's first
  // call, which carries one-time costs (lazy binding, cold caches: measured
  // 65 times a later call's work in a 2 us critical section).
  // A call's work is capped at 4 times the recent mean, so a call that was
  // descheduled for milliseconds (time the ratio would count as work done
  // without the mutex) moves the share by at most a few points.
  uint64_t workTicks;
  uint64_t heldWorkTicks;
  // The same work, summed without decay or cap over the measured calls:
  // its mean is what "this function P% faster" takes off a call (perfctl's
  // --extrapolate P%), the time a virtual speedup shortens too.
  uint64_t ownWorkTicks;
  uint64_t ownWorkCalls;
  uint64_t weight; // the decayed count of calls, in 1/1024ths
  uint64_t measuredCalls;

  /// Adds \p d's calls (several threads' figures as one).
  void merge(const DelayStats &d) {
    eligible += d.eligible;
    delayed += d.delayed;
    deliveredTicks += d.deliveredTicks;
    sumAbsErrorTicks += d.sumAbsErrorTicks;
    paidHolding += d.paidHolding;
    workTicks += d.workTicks;
    heldWorkTicks += d.heldWorkTicks;
    ownWorkTicks += d.ownWorkTicks;
    ownWorkCalls += d.ownWorkCalls;
    weight += d.weight;
    measuredCalls += d.measuredCalls;
    if (d.worstErrorTicks > worstErrorTicks)
      worstErrorTicks = d.worstErrorTicks;
  }
};

/// A delayed function's call in progress on a thread, for measuring its
/// work and where its delay went.
struct DelayFrame {
  uint32_t fn;
  uint32_t depth;       // its shadow-stack depth
  uint64_t entry;       // ticks
  uint64_t heldAtEntry; // LockState::heldTicks (current stretch included)
  uint64_t blockedAtEntry;
  uint64_t spunAtEntry; // ThreadState::delaySpunTicks
  uint64_t delayHeldAtEntry;
};
constexpr uint32_t MaxDelayFrames = 64;

/// Sets up the window and, when delays are armed, calibrates: a quick
/// ticks-per-ns estimate (10 ms), the clock's own cost and the smallest
/// delay the spin delivers. Call after clockInit, with gRt.startTicks set.
void delayInit(const Flags &flags);

/// True when \p now lies in the measurement window.
inline bool inWindow(uint64_t now) {
  return now >= gDelay.windowStart && now < gDelay.windowEnd;
}

/// Entry of a delayed function \p fn on thread \p t (its frame already
/// pushed): when this call is one to slow down, pays the share of the delay
/// its work does without a mutex now and owes the rest to its next mutex
/// acquisition (all of it now if a mutex is already held), recording each
/// payment (and, in trace mode, a `delay` span). The caller holds t's
/// recursion guard.
void delayEnter(ThreadState *t, uint32_t fn);

/// Exit of delayed function \p fn at \p now, its frame still on the shadow
/// stack: pays what it still owes, and adds the call's work to what decides
/// the next calls' split.
void delayExit(ThreadState *t, uint32_t fn, uint64_t now);

/// After \p t acquired a mutex: pays a delay owed by a call still running.
void delayPayPending(ThreadState *t);

/// Spins for \p ticks (at least one clock read); returns the delivered ticks.
uint64_t spinTicks(uint64_t ticks);

/// How far from its end a spin may still execute a pause instruction
/// (spinTicks; a virtual speedup's pause spins by the same rule).
uint64_t spinPauseAboveTicks();

} // namespace perfrt

#endif // PERFRT_DELAY_H
