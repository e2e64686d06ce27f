//===- perfrt_retire.cpp - exited threads folded into groups --------------===//
#include "perfrt_noinstr.h"
PERFRT_NOINSTR_BEGIN

#include "perfrt_retire.h"

#include "perfrt_registry.h"
#include "perfrt_runtime.h"
#include "perfrt_thread.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace perfrt {
namespace {

// The writer thread's alone (and the end of the run's, once it stopped).
ThreadState *groups[MaxThreadGroups + 1]; // the last: every other name
unsigned groupCount = 0;
uint32_t keptExited = 0;
struct RetiredName {
  uint32_t tid;
  uint32_t group;
};
RetiredName *names = nullptr;
size_t nameCount = 0, nameCapacity = 0;

// Retired states waiting for a thread, chained through nextRetired; taken
// by any thread that starts. A spin lock, not a mutex: a thread's first
// probe may be the runtime's own pthread_mutex_lock interposer
// (perfrt_locks.h), which needs the state this would hand out.
std::atomic<bool> freeLock{false};
ThreadState *freeStates = nullptr;

void lockFree() {
  while (freeLock.exchange(true, std::memory_order_acquire))
    __builtin_ia32_pause();
}
void unlockFree() { freeLock.store(false, std::memory_order_release); }

constexpr char OtherThreads[] = "other threads";

/// The group of \p name, made on first use; null when memory ran out.
ThreadState *groupFor(const char *name, uint32_t tid, uint32_t &index) {
  for (index = 0; index < groupCount; ++index)
    if (std::strcmp(groups[index]->name, name) == 0)
      return groups[index];
  if (groupCount == MaxThreadGroups) {
    name = OtherThreads;
    index = MaxThreadGroups;
    if (groups[index])
      return groups[index];
  }
  ThreadState *g = createDetachedState();
  if (!g)
    return nullptr;
  g->tid = tid; // its first thread's: the summary lists it under that tid
  setThreadName(g, name);
  g->busy.store(1, std::memory_order_relaxed);
  g->dead = 1;
  g->phase.store(uint32_t(ThreadPhase::Group), std::memory_order_release);
  groups[index] = g;
  if (index < MaxThreadGroups)
    ++groupCount;
  return g;
}

bool rememberName(uint32_t tid, uint32_t group) {
  if (nameCount == nameCapacity) {
    size_t capacity = nameCapacity ? nameCapacity * 2 : 4096;
    void *p = names ? mremap(names, nameCapacity * sizeof(RetiredName),
                             capacity * sizeof(RetiredName), MREMAP_MAYMOVE)
                    : mmap(nullptr, capacity * sizeof(RetiredName),
                           PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                           -1, 0);
    if (p == MAP_FAILED)
      return false;
    names = static_cast<RetiredName *>(p);
    nameCapacity = capacity;
  }
  names[nameCount++] = {tid, group};
  return true;
}

/// Every entry of \p from, merged into \p into's entry of the same id.
/// Only the pages registered ids can be on are looked at: a thread per
/// task retires at its rate, and all 4,096 pages of three tables each time
/// doubled the CPU time of 50,000 short threads.
template <typename T, typename Merge>
bool mergeTable(const FunctionTable<T> &from, FunctionTable<T> &into,
                Arena &arena, Merge merge) {
  uint32_t pages = gRegistry.size() / StatsPageSize + 1;
  for (uint32_t page = 0; page < pages && page < StatsPages; ++page) {
    T *const *entries = from.pages[page];
    if (!entries)
      continue;
    for (uint32_t i = 0; i < StatsPageSize; ++i)
      if (const T *s = entries[i]) {
        T *sum = into.get(page * StatsPageSize + i, arena);
        if (!sum)
          return false;
        merge(*sum, *s);
      }
  }
  return true;
}

/// Folds \p t into \p g: everything the summary and the trace read of a
/// thread. False when memory ran out (then \p t stays whole).
bool fold(const ThreadState *t, ThreadState *g) {
  auto stats = [](FnStats &sum, const FnStats &s) { sum.merge(s); };
  if (!mergeTable(t->stats, g->spanStats, g->spanArena, stats) ||
      !mergeTable(t->spanStats, g->spanStats, g->spanArena, stats) ||
      !mergeTable(t->delays, g->delays, g->spanArena,
                  [](DelayStats &sum, const DelayStats &d) { sum.merge(d); }))
    return false;
  g->droppedSpans += t->droppedSpans;
  g->speedupPaidTicks += t->speedupPaidTicks;
  g->depthOverflows += t->depthOverflows;
  g->unmatchedExits += t->unmatchedExits;
  g->abandonedFrames += t->abandonedFrames;
  g->locks.mutexWaitTicks += t->locks.mutexWaitTicks;
  g->locks.contendedLocks += t->locks.contendedLocks;
  ++g->foldedThreads;
  return true;
}

/// Gives \p t's memory back: its arenas, its tables' pages (zero pages read
/// as empty tables) and its cold fields. Its hot fields stay an exited
/// thread's (busy and dead set), so the end of the run passes it by.
void release(ThreadState *t) {
  arenaRelease(t->arena);
  arenaRelease(t->spanArena);
  std::memset(reinterpret_cast<char *>(t) + ThreadColdOffset, 0,
              ThreadSmallBytes - ThreadColdOffset);
  madvise(reinterpret_cast<char *>(t) + ThreadSmallBytes,
          sizeof(ThreadState) - ThreadSmallBytes, MADV_DONTNEED);
}

/// True once the kernel has no thread \p tid in this process: its TLS
/// destructors, which may run probes on its state, are over.
bool threadGone(uint32_t tid) {
  return syscall(SYS_tgkill, getpid(), pid_t(tid), 0) != 0 && errno == ESRCH;
}

} // namespace

unsigned retireExitedThreads(uint32_t keep) {
  unsigned retired = 0;
  for (ThreadState *t = allThreads(); t; t = t->next) {
    if (t->phase.load(std::memory_order_acquire) !=
            uint32_t(ThreadPhase::Exited) ||
        t->queuedChunks.load(std::memory_order_acquire) != 0 ||
        !threadGone(t->tid))
      continue;
    if (keptExited < keep) {
      ++keptExited;
      t->phase.store(uint32_t(ThreadPhase::Kept), std::memory_order_relaxed);
      continue;
    }
    char name[sizeof t->name];
    copyThreadName(t, name);
    uint32_t index;
    ThreadState *g = groupFor(name[0] ? name : "thread", t->tid, index);
    if (!g || !rememberName(t->tid, index))
      continue;
    if (!fold(t, g)) {
      --nameCount;
      continue;
    }
    release(t);
    t->phase.store(uint32_t(ThreadPhase::Retired), std::memory_order_release);
    lockFree();
    t->nextRetired = freeStates;
    __atomic_store_n(&freeStates, t, __ATOMIC_RELAXED);
    unlockFree();
    ++retired;
  }
  return retired;
}

ThreadState *reuseRetiredState() {
  if (!__atomic_load_n(&freeStates, __ATOMIC_RELAXED))
    return nullptr; // the usual case: no lock taken
  lockFree();
  ThreadState *t = freeStates;
  if (t)
    __atomic_store_n(&freeStates, t->nextRetired, __ATOMIC_RELAXED);
  unlockFree();
  if (t) {
    t->nextRetired = nullptr;
    t->depth = t->overflow = 0;
    t->busy.store(0, std::memory_order_relaxed);
    t->dead = 0;
  }
  return t;
}

void forEachRetiredThread(void (*each)(uint32_t tid, const char *name)) {
  for (size_t i = 0; i < nameCount; ++i)
    if (ThreadState *g = groups[names[i].group])
      each(names[i].tid, g->name);
}

void retireAfterFork() {
  freeLock.store(false, std::memory_order_relaxed);
  freeStates = nullptr;
  std::memset(groups, 0, sizeof groups);
  groupCount = 0;
  keptExited = 0;
  nameCount = 0; // the array is kept: the child's names overwrite it
}

} // namespace perfrt

PERFRT_NOINSTR_END
