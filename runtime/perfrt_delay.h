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
};

/// Sets up the window and, when delays are armed, calibrates: a quick
/// ticks-per-ns estimate (10 ms), the clock's own cost and the smallest
/// delay the spin delivers. Call after clockInit, with gRt.startTicks set.
void delayInit(const Flags &flags);

/// True when \p now lies in the measurement window.
inline bool inWindow(uint64_t now) {
  return now >= gDelay.windowStart && now < gDelay.windowEnd;
}

/// Entry of a delayed function \p fn on thread \p t: spins when this call is
/// one to slow down, recording the delay (and, in trace mode, a `delay`
/// span). The caller holds t's recursion guard.
void delayCall(ThreadState *t, uint32_t fn);

/// Spins for \p ticks (at least one clock read); returns the delivered ticks.
uint64_t spinTicks(uint64_t ticks);

} // namespace perfrt

#endif // PERFRT_DELAY_H
