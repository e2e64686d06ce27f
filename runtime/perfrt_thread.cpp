//===- perfrt_thread.cpp - per-thread state: creation, repair, exit -------===//
#include "perfrt_noinstr.h"
PERFRT_NOINSTR_BEGIN

#include "perfrt_clock.h"
#include "perfrt_record.h"
#include "perfrt_retire.h"
#include "perfrt_speedup.h"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

namespace perfrt {

__thread ThreadState *tlsState __attribute__((tls_model("initial-exec"))) =
    nullptr;
__thread bool tlsRuntimeThread __attribute__((tls_model("initial-exec"))) =
    false;

namespace {

std::atomic<ThreadState *> threadList{nullptr};
pthread_key_t exitKey;
constexpr size_t ArenaBytes = 256 * 1024;

void *mapZeroed(size_t bytes) {
  void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

/// What each arena block begins with.
struct BlockHeader {
  char *previous;
  size_t bytes;
};
constexpr size_t BlockHeaderBytes = 16;
static_assert(sizeof(BlockHeader) <= BlockHeaderBytes,
              "keeps 16-byte alignment");
} // namespace

void *arenaAlloc(Arena &arena, size_t bytes) {
  bytes = (bytes + 15) & ~size_t(15);
  if (arena.left < bytes) {
    size_t size = bytes + BlockHeaderBytes > ArenaBytes
                      ? bytes + BlockHeaderBytes
                      : ArenaBytes;
    char *block = static_cast<char *>(mapZeroed(size));
    if (!block) {
      arena.left = 0;
      return nullptr;
    }
    *reinterpret_cast<BlockHeader *>(block) = {arena.blocks, size};
    arena.blocks = block;
    arena.next = block + BlockHeaderBytes;
    arena.left = size - BlockHeaderBytes;
  }
  void *p = arena.next;
  arena.next += bytes;
  arena.left -= bytes;
  return p;
}

void arenaRelease(Arena &arena) {
  for (char *block = arena.blocks; block;) {
    BlockHeader h = *reinterpret_cast<BlockHeader *>(block);
    munmap(block, h.bytes);
    block = h.previous;
  }
  arena = Arena{};
}

namespace {

/// Thread exit: close what is still open, hand the chunk to the writer, and
/// make later probes on this thread (other TLS destructors) return at once.
void onThreadExit(void *arg) {
  auto *t = static_cast<ThreadState *>(arg);
  if (t->busy.load(std::memory_order_acquire) || t->dead)
    return;
  t->busy.store(1, std::memory_order_relaxed);
  uint64_t now = nowTicks();
  while (t->depth)
    popFrame(t, now, SpanUnfinished);
  if (t->selectedDepth) {
    // A selected call the thread never left (pthread_exit inside it): it
    // ran until now, and its running slot must not accrue forever.
    t->selectedDepth = 1;
    speedupExitSelected(t, now);
  }
  speedupThreadExit(t);
  refreshThreadName(t);
  if (t->chunk) {
    SpanChunk *c = t->chunk;
    __atomic_store_n(&t->chunk, nullptr,
                     __ATOMIC_RELAXED); // the writer reads it
    spansPublish(c);
  }
  t->dead = 1;
  // The shadow stack is no longer needed; its stats stay for the summary.
  // `busy` stays set: later probes on this thread return at its first check.
  madvise(t->stack, sizeof t->stack, MADV_DONTNEED);
  // Everything above is done: the writer may fold it (perfrt_retire.h).
  t->phase.store(uint32_t(ThreadPhase::Exited), std::memory_order_release);
}

} // namespace

void threadsInit() { pthread_key_create(&exitKey, onThreadExit); }

ThreadState *createDetachedState() {
  auto *t = static_cast<ThreadState *>(mapZeroed(sizeof(ThreadState)));
  if (!t)
    return nullptr;
  ThreadState *head = threadList.load(std::memory_order_relaxed);
  do {
    t->next = head;
  } while (!threadList.compare_exchange_weak(head, t, std::memory_order_release,
                                             std::memory_order_relaxed));
  return t;
}

ThreadState *createThreadState() {
  // A retired thread's state first: already on the list, its small fields
  // zero and its tables empty.
  ThreadState *t = reuseRetiredState();
  if (!t)
    t = createDetachedState();
  if (!t)
    return nullptr;
  t->tid = static_cast<uint32_t>(gettid());
  // A new thread owes none of the delays inserted before it existed.
  t->localDelayTicks = speedupOwedTotal();
  refreshThreadName(t);
  t->phase.store(uint32_t(ThreadPhase::Live), std::memory_order_release);
  pthread_setspecific(exitKey, t);
  tlsState = t;
  return t;
}

namespace {

/// True when the guard was taken (release it); false after about a
/// millisecond of trying: its holder was interrupted, maybe by this thread's
/// own signal handler, and a name is not worth a hang.
bool lockName(std::atomic<uint32_t> &guard) {
  for (unsigned i = 0; i < 100000; ++i) {
    if (!guard.exchange(1, std::memory_order_acquire))
      return true;
    __builtin_ia32_pause();
  }
  return false;
}

} // namespace

void setThreadName(ThreadState *t, const char *name) {
  bool locked = lockName(t->nameGuard);
  std::snprintf(t->name, sizeof t->name, "%s", name);
  if (locked)
    t->nameGuard.store(0, std::memory_order_release);
}

void copyThreadName(const ThreadState *t, char (&out)[64]) {
  static_assert(sizeof out == sizeof t->name);
  auto &guard = const_cast<ThreadState *>(t)->nameGuard;
  bool locked = lockName(guard);
  std::memcpy(out, t->name, sizeof out);
  if (locked)
    guard.store(0, std::memory_order_release);
  out[sizeof out - 1] = '\0';
}

void refreshThreadName(ThreadState *t) {
  if (t->namedByApi)
    return;
  char name[sizeof t->name] = {};
  // Reads /proc/self/task/TID/comm; fails quietly for a thread that is gone.
  if (pthread_getname_np(pthread_self(), name, sizeof name) == 0 && name[0])
    setThreadName(t, name);
}

ThreadState *allThreads() { return threadList.load(std::memory_order_acquire); }

void closeAbandonedBelow(ThreadState *t, uintptr_t sp, uint64_t now) {
  while (t->depth && t->stack[t->depth - 1].sp < sp)
    popFrame(t, now, SpanAbandoned);
  // Calls deeper than MaxDepth were deeper still: dead too.
  t->overflow = 0;
}

void threadsAfterFork() {
  ThreadState *self = tlsState;
  threadList.store(nullptr, std::memory_order_relaxed);
  retireAfterFork(); // before a state is taken: none is the parent's
  tlsState = nullptr;
  if (!self)
    return;
  // The child continues inside the parent's live calls: keep the frames so
  // their exits match, but nothing the parent recorded.
  ThreadState *t = createThreadState();
  if (!t)
    return;
  std::memcpy(t->stack, self->stack, sizeof self->stack);
  t->depth = self->depth;
  t->overflow = self->overflow;
  // The child is single-threaded here: no guard needed (and the parent's
  // writer, which may have held self's, was not copied).
  std::memcpy(t->name, self->name, sizeof t->name);
  t->busy.store(self->busy.load(std::memory_order_relaxed));
}

} // namespace perfrt

PERFRT_NOINSTR_END
