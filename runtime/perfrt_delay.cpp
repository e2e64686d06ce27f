//===- perfrt_delay.cpp - calibrated spin delays --------------------------===//
#include "perfrt_noinstr.h"
PERFRT_NOINSTR_BEGIN

#include "perfrt_delay.h"

#include "perfrt_clock.h"
#include "perfrt_locks.h"
#include "perfrt_record.h"

#include <algorithm>
#include <cmath>
#include <immintrin.h>

namespace perfrt {

DelayConfig gDelay = {false, 0, 0, 1, 0, ~0ull, 0, 0};

uint64_t spinPauseAboveTicks() {
  // Short delays spin on the clock alone: a pause instruction can take over
  // 40 ns, too coarse for a 50 ns bump. Long ones pause until the last
  // microsecond or so, to be kind to a sibling hyperthread.
  return gClock.useTsc ? uint64_t(2000 / gClock.nsPerTick) : 2000;
}

uint64_t spinTicks(uint64_t ticks) {
  uint64_t begin = nowTicks(), target = begin + ticks, now;
  uint64_t coarse = spinPauseAboveTicks();
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

namespace {

/// Spins \p ticks as part of \p fn's delay, recording the span; returns
/// what was delivered.
uint64_t pay(ThreadState *t, uint32_t fn, uint64_t ticks) {
  uint64_t begin = nowTicks();
  uint64_t delivered = spinTicks(ticks);
  t->delaySpunTicks += delivered;
  if (t->locks.held)
    t->locks.delayHeldTicks += delivered;
  if (gRt.trace)
    appendSpan(t, SpanRecord{begin, begin + delivered, ticks, fn,
                             SpanDelay | (t->locks.held ? SpanHolding : 0u)});
  return delivered;
}

/// Charges one delayed call's delivered total against what it requested.
void account(DelayStats *d, uint64_t delivered) {
  d->deliveredTicks += delivered;
  uint64_t error = delivered > gDelay.delayTicks
                       ? delivered - gDelay.delayTicks
                       : gDelay.delayTicks - delivered;
  d->sumAbsErrorTicks += error;
  if (error > d->worstErrorTicks)
    d->worstErrorTicks = error;
}

/// The share of \p d's work done holding a mutex, from the calls so far.
double heldShare(const DelayStats *d) {
  return d->workTicks ? double(d->heldWorkTicks) / double(d->workTicks) : 0.0;
}

/// Drops frames left by calls that never exited through a probe (longjmp).
void dropStaleFrames(ThreadState *t) {
  while (t->delayDepth && t->delayStack[t->delayDepth - 1].depth > t->depth)
    --t->delayDepth;
  if (t->locks.pendingTicks && t->locks.pendingDepth > t->depth)
    t->locks.pendingTicks = 0;
}

} // namespace

void delayEnter(ThreadState *t, uint32_t fn) {
  uint64_t now = nowTicks();
  dropStaleFrames(t);
  if (t->delayDepth < MaxDelayFrames) {
    DelayFrame &f = t->delayStack[t->delayDepth++];
    f.fn = fn;
    f.depth = t->depth;
    f.entry = now;
    f.heldAtEntry = lockHeldTicks(t, now);
    f.blockedAtEntry = t->locks.blockedTicks;
    f.spunAtEntry = t->delaySpunTicks;
    f.delayHeldAtEntry = t->locks.delayHeldTicks;
  }
  if (!inWindow(now))
    return;
  DelayStats *d = t->delays.get(fn, t->arena);
  if (!d)
    return;
  if (d->eligible++ % gDelay.frequency != 0)
    return;
  ++d->delayed;
  if (gDelay.delayTicks == 0)
    return; // the armed control: every cost of a speed bump but the spin
  // Holding a mutex already: the whole call's work is inside it.
  uint64_t inside = 0;
  if (locksArmed() && !t->locks.held)
    inside = uint64_t(double(gDelay.delayTicks) * heldShare(d));
  uint64_t delivered = pay(t, fn, gDelay.delayTicks - inside);
  if (t->locks.held)
    ++d->paidHolding;
  if (!inside) {
    account(d, delivered);
    return;
  }
  // The rest holds the next mutex this call takes (delayPayPending), or is
  // paid at its exit if it takes none.
  t->locks.pendingTicks = inside;
  t->locks.pendingDelivered = delivered;
  t->locks.pendingFn = fn;
  t->locks.pendingDepth = t->depth;
}

void delayPayPending(ThreadState *t) {
  if (!t->locks.pendingTicks || t->locks.pendingDepth > t->depth)
    return;
  uint32_t fn = t->locks.pendingFn;
  uint64_t delivered = pay(t, fn, t->locks.pendingTicks);
  t->locks.pendingTicks = 0;
  if (DelayStats *d = t->delays.get(fn, t->arena)) {
    ++d->paidHolding;
    account(d, t->locks.pendingDelivered + delivered);
  }
}

void delayExit(ThreadState *t, uint32_t fn, uint64_t now) {
  dropStaleFrames(t);
  if (t->locks.pendingTicks && t->locks.pendingDepth == t->depth &&
      t->locks.pendingFn == fn) {
    // It took no mutex after all: the delay is still its own.
    uint64_t delivered = pay(t, fn, t->locks.pendingTicks);
    t->locks.pendingTicks = 0;
    if (DelayStats *d = t->delays.get(fn, t->arena))
      account(d, t->locks.pendingDelivered + delivered);
  }
  if (!t->delayDepth)
    return;
  DelayFrame &f = t->delayStack[t->delayDepth - 1];
  if (f.fn != fn || f.depth != t->depth)
    return;
  --t->delayDepth;
  // Its own work: the call's time less the delays paid in it and the time
  // it sat blocked on other threads; and the part of that held a mutex.
  uint64_t spent = now > f.entry ? now - f.entry : 0;
  uint64_t spun = t->delaySpunTicks - f.spunAtEntry;
  uint64_t blocked = t->locks.blockedTicks - f.blockedAtEntry;
  uint64_t work = spent > spun + blocked ? spent - spun - blocked : 0;
  uint64_t held = lockHeldTicks(t, now) - f.heldAtEntry;
  uint64_t heldDelay = t->locks.delayHeldTicks - f.delayHeldAtEntry;
  held = held > heldDelay ? held - heldDelay : 0;
  if (DelayStats *d = t->delays.get(fn, t->arena)) {
    if (d->measuredCalls++ == 0)
      return;
    d->ownWorkTicks += work;
    ++d->ownWorkCalls;
    if (d->weight) {
      uint64_t cap = 4 * d->workTicks * 1024 / d->weight;
      work = work < cap ? work : cap;
    }
    d->workTicks += work - d->workTicks / 16;
    d->heldWorkTicks += (held < work ? held : work) - d->heldWorkTicks / 16;
    d->weight += 1024 - d->weight / 16;
  }
}

} // namespace perfrt

PERFRT_NOINSTR_END
