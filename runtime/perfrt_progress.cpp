//===- perfrt_progress.cpp - count progress points ------------------------===//
#include "perfrt_noinstr.h"
PERFRT_NOINSTR_BEGIN

#include "perfrt_progress.h"

#include "perfrt_clock.h"
#include "perfrt_delay.h"
#include "perfrt_record.h"
#include "perfrt_speedup.h"

#include "perf/perf.h"

#include <cstdio>
#include <cstring>
#include <mutex>

namespace perfrt {
namespace {

ProgressSlot slots[MaxProgressPoints];
std::atomic<unsigned> slotCount{0};
std::mutex slotMutex; // first use of a site only

/// The slot of \p p, found or created by name on the site's first use (its
/// id is 0 until then); null when the table is full.
ProgressSlot *slotOf(perf_progress_point *p, uint32_t kind) {
  uint32_t id = __atomic_load_n(&p->id, __ATOMIC_ACQUIRE);
  if (__builtin_expect(id != 0, 1))
    return &slots[id - 1];
  std::lock_guard<std::mutex> lock(slotMutex);
  unsigned n = slotCount.load(std::memory_order_relaxed);
  unsigned i = 0;
  while (i < n && std::strncmp(slots[i].name, p->name ? p->name : "",
                               sizeof slots[i].name - 1) != 0)
    ++i;
  if (i == n) {
    if (n == MaxProgressPoints)
      return nullptr;
    std::snprintf(slots[i].name, sizeof slots[i].name, "%s",
                  p->name ? p->name : "");
    slots[i].kind = kind;
    slotCount.store(n + 1, std::memory_order_release);
  }
  __atomic_store_n(&p->id, i + 1, __ATOMIC_RELEASE);
  return &slots[i];
}

/// Adds the in-flight time since the last event, clipped to the window.
void advance(ProgressSlot &s, uint64_t now) {
  uint64_t a =
      s.lastTicks > gDelay.windowStart ? s.lastTicks : gDelay.windowStart;
  uint64_t b = now < gDelay.windowEnd ? now : gDelay.windowEnd;
  if (b > a && s.inFlight > 0)
    s.inFlightTicks += uint64_t(s.inFlight) * (b - a);
  s.lastTicks = now;
}

void lock(ProgressSlot &s) {
  while (s.lock.exchange(true, std::memory_order_acquire))
    ;
}
void unlock(ProgressSlot &s) { s.lock.store(false, std::memory_order_release); }

/// In a virtual speedup, progress counts only once this thread has paid the
/// delays it owes (Coz does the same).
void payOwedDelay() {
  if (!gSpeedup.on)
    return;
  if (ThreadState *t = acquire()) {
    speedupCatchUp(t);
    release(t);
  }
}

/// One unit of progress: counted over the run and in the window, and a
/// counter event in the trace on the calling thread's chunk.
void countProgress(ProgressSlot &s, uint32_t id, uint64_t now) {
  uint64_t n = s.count.fetch_add(1, std::memory_order_relaxed) + 1;
  if (inWindow(now))
    s.countInWindow.fetch_add(1, std::memory_order_relaxed);
  if (!gRt.trace)
    return;
  if (ThreadState *t = acquire()) {
    appendSpan(t, SpanRecord{now, now, n, id, SpanCounter});
    release(t);
  }
}

} // namespace

ProgressSlot &progressSlot(unsigned index) { return slots[index]; }
unsigned progressPointCount() {
  return slotCount.load(std::memory_order_acquire);
}

void progressAfterFork() {
  for (unsigned i = 0; i < slotCount.load(); ++i) {
    ProgressSlot &s = slots[i];
    s.count = 0;
    s.countInWindow = 0;
    s.lock = false;
    s.begins = 0;
    s.inFlight = 0;
    s.lastTicks = 0;
    s.inFlightTicks = 0;
  }
}

} // namespace perfrt

using namespace perfrt;

PERFRT_API void perfcc_progress(perf_progress_point *p) {
  if (gRt.state.load(std::memory_order_relaxed) != Lifecycle::Running)
    return;
  payOwedDelay();
  ProgressSlot *s = slotOf(p, PERF_PROGRESS_THROUGHPUT);
  if (!s)
    return;
  countProgress(*s, p->id, nowTicks());
}

PERFRT_API void perfcc_latency_begin(perf_progress_point *p) {
  if (gRt.state.load(std::memory_order_relaxed) != Lifecycle::Running)
    return;
  ProgressSlot *s = slotOf(p, PERF_PROGRESS_LATENCY);
  if (!s)
    return;
  uint64_t now = nowTicks();
  lock(*s);
  advance(*s, now);
  ++s->inFlight;
  ++s->begins;
  unlock(*s);
}

PERFRT_API void perfcc_latency_end(perf_progress_point *p) {
  if (gRt.state.load(std::memory_order_relaxed) != Lifecycle::Running)
    return;
  payOwedDelay();
  ProgressSlot *s = slotOf(p, PERF_PROGRESS_LATENCY);
  if (!s)
    return;
  uint64_t now = nowTicks();
  lock(*s);
  advance(*s, now);
  if (s->inFlight > 0)
    --s->inFlight;
  unlock(*s);
  countProgress(*s, p->id, now);
}

PERFRT_NOINSTR_END
