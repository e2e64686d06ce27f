//===- perfrt_clock.h - one clock for all threads -------------------------===//
//
// Probes read raw ticks: the TSC where it is invariant and the kernel itself
// uses it as its clocksource (so it is synchronized across CPUs), else
// CLOCK_MONOTONIC in ns. Ticks become nanoseconds of CLOCK_MONOTONIC only when
// written out, through a calibration against that clock measured over the
// run, so GPU activity (which CUPTI can time on CLOCK_MONOTONIC too) lands on
// the same time line.
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_CLOCK_H
#define PERFRT_CLOCK_H

#include "perfrt_flags.h"

#include <cstdint>
#include <ctime>
#include <x86intrin.h>

namespace perfrt {

struct ClockState {
  bool useTsc = false;
  uint64_t tsc0 = 0, mono0 = 0; // taken together at start-up
  double nsPerTick = 1.0;       // 1.0 for CLOCK_MONOTONIC
  bool calibrated = false;
  const char *reason = ""; // why this source was chosen
};

extern ClockState gClock;

inline uint64_t monotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

/// The calling thread's CPU time, ns (PERFCC_CPU_TIME): the kernel's
/// per-thread clock, a system call on Linux (no vDSO path for it).
inline uint64_t threadCpuNs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

/// The CPU time one threadCpuNs() call itself takes, ns (the smallest of
/// many back-to-back differences; threadCpuCalibrate). A call's CPU
/// interval holds about one read (the rest of the entry's, the start of the
/// exit's), so each call's CPU time is charged that much less.
extern uint64_t gThreadCpuReadNs;
void threadCpuCalibrate();

/// Current time in ticks of the chosen source. The branch is on a value that
/// never changes after start-up, so it predicts perfectly.
__attribute__((always_inline)) inline uint64_t nowTicks() {
  if (__builtin_expect(gClock.useTsc, 1))
    return __rdtsc();
  return monotonicNs();
}

/// Chooses the source (once, at start-up) and records the start pair.
void clockInit(ClockChoice choice);

/// Fixes ticks-per-ns from the start pair and now, waiting until the
/// baseline is at least 20 ms for precision. Idempotent; call before the
/// first conversion.
void clockCalibrate();

/// Records a (ticks, CLOCK_MONOTONIC) pair for checking the fit, at most
/// one per 100 ms and 64 in all. Called off the hot path (the span writer
/// thread, CUPTI's buffer completions); thread-safe.
void clockSample();

/// After clockCalibrate: the largest distance, in ns, between the linear
/// fit and the pairs clockSample took during the run; \p samples gets how
/// many there were (0: nothing to report).
uint64_t clockFitMaxResidualNs(uint32_t &samples);

/// Ticks (a timestamp) to CLOCK_MONOTONIC ns.
inline uint64_t ticksToNs(uint64_t ticks) {
  if (!gClock.useTsc)
    return ticks;
  int64_t delta = int64_t(ticks - gClock.tsc0);
  return gClock.mono0 + int64_t(double(delta) * gClock.nsPerTick);
}

/// A tick interval to ns.
inline uint64_t durationToNs(uint64_t ticks) {
  return gClock.useTsc ? uint64_t(double(ticks) * gClock.nsPerTick) : ticks;
}

} // namespace perfrt

#endif // PERFRT_CLOCK_H
