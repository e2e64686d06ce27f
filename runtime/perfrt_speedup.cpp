//===- perfrt_speedup.cpp - virtual speedups and the blocking rules -------===//
#include "perfrt_noinstr.h"
PERFRT_NOINSTR_BEGIN

#include "perfrt_speedup.h"

#include "perfrt_clock.h"
#include "perfrt_delay.h"
#include "perfrt_record.h"

#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <pthread.h>

namespace perfrt {

SpeedupState gSpeedup;

void speedupInit(const Flags &flags) {
  gSpeedup.on = flags.speedupPercent != 0;
  gSpeedup.percent = flags.speedupPercent;
}

void speedupEnterSelected(ThreadState *t, uint64_t now) {
  if (t->selectedDepth++ == 0)
    t->selectedStart = now;
}

void speedupExitSelected(ThreadState *t, uint64_t now) {
  if (t->selectedDepth == 0 || --t->selectedDepth != 0)
    return;
  if (!inWindow(now))
    return;
  uint64_t spent = now > t->selectedStart ? now - t->selectedStart : 0;
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

bool speedupSawGpu() {
  FILE *maps = std::fopen("/proc/self/maps", "r");
  if (!maps)
    return false;
  char line[512];
  bool gpu = false;
  while (!gpu && std::fgets(line, sizeof line, maps))
    gpu = std::strstr(line, "libcuda.so") != nullptr;
  std::fclose(maps);
  return gpu;
}

namespace {

/// The thread's state when a virtual speedup is running, else null.
ThreadState *speedupThread() {
  if (!gSpeedup.on || !gRt.recording.load(std::memory_order_relaxed))
    return nullptr;
  ThreadState *t = tlsState;
  if (!t || t->busy.load(std::memory_order_relaxed))
    return nullptr;
  return t;
}

template <typename Fn> Fn next(const char *name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

} // namespace
} // namespace perfrt

using namespace perfrt;

// Blocking, interposed (libperfrt.so precedes libc in symbol lookup);
// outside a virtual speedup they only forward. Coz also makes a thread pay
// before it wakes another (pthread_cond_signal); not here: programs signal
// while holding the lock, and paying there stalls every thread waiting for
// that lock in real time, which the effective time cannot subtract
// (measured: a consumer-bound pipeline lost 6% of real throughput, and the
// prediction half its gain).

PERFRT_API int pthread_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex) {
  static auto real =
      next<int (*)(pthread_cond_t *, pthread_mutex_t *)>("pthread_cond_wait");
  ThreadState *t = speedupThread();
  if (t)
    speedupCatchUp(t);
  int rc = real(cond, mutex);
  if (t)
    speedupSkip(t);
  return rc;
}

PERFRT_API int pthread_cond_timedwait(pthread_cond_t *cond,
                                      pthread_mutex_t *mutex,
                                      const struct timespec *until) {
  static auto real =
      next<int (*)(pthread_cond_t *, pthread_mutex_t *, const timespec *)>(
          "pthread_cond_timedwait");
  ThreadState *t = speedupThread();
  if (t)
    speedupCatchUp(t);
  int rc = real(cond, mutex, until);
  if (t)
    speedupSkip(t);
  return rc;
}

PERFRT_NOINSTR_END
