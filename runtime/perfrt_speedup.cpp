//===- perfrt_speedup.cpp - virtual speedups and the blocking rules -------===//
#include "perfrt_noinstr.h"
PERFRT_NOINSTR_BEGIN

#include "perfrt_speedup.h"

#include "perfrt_clock.h"
#include "perfrt_delay.h"
#include "perfrt_gpu_attach.h"
#include "perfrt_record.h"

namespace perfrt {

SpeedupState gSpeedup;

void speedupInit(const Flags &flags) {
  gSpeedup.on = flags.speedupPercent != 0;
  gSpeedup.percent = flags.speedupPercent;
}

void speedupEnterSelected(ThreadState *t, uint64_t now) {
  if (t->selectedDepth++ == 0) {
    t->selectedStart = now;
    t->selectedBlockedAtStart = t->locks.blockedTicks;
  }
}

void speedupExitSelected(ThreadState *t, uint64_t now) {
  if (t->selectedDepth == 0 || --t->selectedDepth != 0)
    return;
  if (!inWindow(now))
    return;
  // Its own work only: the time it sat blocked on a mutex another thread
  // held, or on a condition another thread signals, is that thread's to
  // speed up (perfrt_locks.h). Sleeps and I/O stay its own.
  uint64_t spent = now > t->selectedStart ? now - t->selectedStart : 0;
  uint64_t blocked = t->locks.blockedTicks - t->selectedBlockedAtStart;
  spent = spent > blocked ? spent - blocked : 0;
  uint64_t delay = spent * gSpeedup.percent / 100;
  gSpeedup.globalTicks.fetch_add(delay, std::memory_order_relaxed);
  gSpeedup.insertedTicks.fetch_add(delay, std::memory_order_relaxed);
  t->localDelayTicks += delay; // this thread ran "faster": it owes nothing
}

void speedupCatchUp(ThreadState *t) {
  if (t->selectedDepth)
    return;
  uint64_t global = gSpeedup.globalTicks.load(std::memory_order_relaxed);
  if (global <= t->localDelayTicks)
    return;
  uint64_t owed = global - t->localDelayTicks;
  spinTicks(owed);
  t->localDelayTicks += owed;
  gSpeedup.paidTicks.fetch_add(owed, std::memory_order_relaxed);
}

void speedupSkip(ThreadState *t) {
  uint64_t global = gSpeedup.globalTicks.load(std::memory_order_relaxed);
  if (global > t->localDelayTicks)
    t->localDelayTicks = global;
}

bool speedupSawGpu() { return libraryMapped("libcuda.so"); }

} // namespace perfrt

PERFRT_NOINSTR_END
