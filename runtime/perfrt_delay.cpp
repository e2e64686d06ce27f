//===- perfrt_delay.cpp - calibrated spin delays --------------------------===//
#include "perfrt_noinstr.h"
PERFRT_NOINSTR_BEGIN

#include "perfrt_delay.h"

#include "perfrt_clock.h"
#include "perfrt_record.h"

#include <algorithm>
#include <cmath>
#include <immintrin.h>

namespace perfrt {

DelayConfig gDelay = {false, 0, 0, 1, 0, ~0ull, 0, 0};

uint64_t spinTicks(uint64_t ticks) {
  uint64_t begin = nowTicks(), target = begin + ticks, now;
  // Short delays spin on the clock alone: a pause instruction can take over
  // 40 ns, too coarse for a 50 ns bump. Long ones pause until the last
  // microsecond or so, to be kind to a sibling hyperthread.
  uint64_t coarse = gClock.useTsc ? uint64_t(2000 / gClock.nsPerTick) : 2000;
  while ((now = nowTicks()) < target)
    if (target - now > coarse)
      _mm_pause();
  return now - begin;
}

namespace {

double median(double *v, int n) {
  std::sort(v, v + n);
  return v[n / 2];
}

void calibrate() {
  // A provisional ticks-per-ns over 10 ms (the trace's conversion later
  // uses the whole run); delays need it now.
  if (gClock.useTsc) {
    uint64_t t0 = nowTicks(), m0 = monotonicNs();
    while (monotonicNs() - m0 < 10000000)
      ;
    uint64_t t1 = nowTicks(), m1 = monotonicNs();
    gClock.nsPerTick = double(m1 - m0) / double(t1 - t0);
  }
  constexpr int N = 201;
  double samples[N];
  for (int i = 0; i < N; ++i) {
    uint64_t a = nowTicks();
    uint64_t b = nowTicks();
    samples[i] = double(b - a);
  }
  double tickNs = gClock.useTsc ? gClock.nsPerTick : 1.0;
  gDelay.clockReadNs = median(samples, N) * tickNs;
  for (int i = 0; i < N; ++i)
    samples[i] = double(spinTicks(0));
  gDelay.minDelayNs = median(samples, N) * tickNs;
}

} // namespace

void delayInit(const Flags &flags) {
  gDelay.armed = !flags.delayTargets.empty();
  gDelay.delayNs = flags.delayNs;
  gDelay.frequency = flags.frequency ? flags.frequency : 1;
  if (gDelay.armed)
    calibrate();
  double ticksPerNs = gClock.useTsc ? 1.0 / gClock.nsPerTick : 1.0;
  gDelay.delayTicks =
      uint64_t(std::llround(double(flags.delayNs) * ticksPerNs));
  gDelay.windowStart =
      gRt.startTicks + uint64_t(double(flags.startMs) * 1e6 * ticksPerNs);
  gDelay.windowEnd =
      flags.durationMs
          ? gDelay.windowStart +
                uint64_t(double(flags.durationMs) * 1e6 * ticksPerNs)
          : ~0ull;
}

void delayCall(ThreadState *t, uint32_t fn) {
  uint64_t now = nowTicks();
  if (!inWindow(now))
    return;
  DelayStats *d = t->delays.get(fn, t->arena);
  if (!d)
    return;
  if (d->eligible++ % gDelay.frequency != 0)
    return;
  if (gDelay.delayTicks == 0) {
    // The armed control: every cost of a speed bump but the spin.
    ++d->delayed;
    return;
  }
  uint64_t begin = nowTicks();
  uint64_t delivered = spinTicks(gDelay.delayTicks);
  ++d->delayed;
  d->deliveredTicks += delivered;
  uint64_t error = delivered > gDelay.delayTicks
                       ? delivered - gDelay.delayTicks
                       : gDelay.delayTicks - delivered;
  d->sumAbsErrorTicks += error;
  if (error > d->worstErrorTicks)
    d->worstErrorTicks = error;
  if (gRt.trace)
    appendSpan(t, SpanRecord{begin, begin + delivered, gDelay.delayTicks, fn,
                             SpanDelay});
}

} // namespace perfrt

PERFRT_NOINSTR_END
