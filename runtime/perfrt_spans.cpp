//===- perfrt_spans.cpp - chunk pool and the writer thread ----------------===//
#include "perfrt_noinstr.h"
PERFRT_NOINSTR_BEGIN

#include "perfrt_spans.h"

#include "perfrt_record.h"
#include "perfrt_retire.h"
#include "perfrt_runtime.h"
#include "perfrt_thread.h"
#include "perfrt_trace_writer.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <pthread.h>
#include <sys/mman.h>

namespace perfrt {
namespace {

// Plain pthread primitives: they can be re-initialized in a forked child,
// which std::mutex does not promise.
pthread_mutex_t poolLock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t poolCond = PTHREAD_COND_INITIALIZER;
SpanChunk *freeList = nullptr;
SpanChunk *queueHead = nullptr, *queueTail = nullptr;
size_t allocatedBytes = 0, capBytes = 0;
size_t compactBytes = 0; // compact copies not yet written (spansPublish)
size_t queuedBytes = 0;  // chunks waiting for the writer
bool writerRunning = false, writerStop = false;
bool writerWaiting = false; // in its timed wait, with nothing queued
// Set while the writer formats a chunk outside the lock; a signal-time flush
// waits for it to clear so two writers never interleave in the file.
std::atomic<bool> writerBusy{false};
pthread_t writer;

// The writer sleeps this long between looks at the queue. Not much less: on
// a machine whose cores are all busy every wake-up preempts the program
// (measured on the engine's decode, 2 threads on 2 cores: 1 ms cost 5% of
// its throughput, 10 ms nothing visible). A queue that fills a quarter of
// PERFCC_BUFFER_MB wakes it at once instead, so a sleeping writer never
// makes the probes drop spans.
constexpr long WriterPollNs = 50'000'000;

// How often the writer looks for live chunks whose calls have aged past
// CheckpointAgeNs: a quarter of it, so none waits much longer than that.
constexpr uint64_t CheckpointScanNs = CheckpointAgeNs / 4;

SpanChunk *popQueue() {
  SpanChunk *c = queueHead;
  if (c) {
    queueHead = c->next;
    if (!queueHead)
      queueTail = nullptr;
    c->next = nullptr;
    queuedBytes -= c->bytes;
  }
  return c;
}

/// Gives a written (or abandoned) chunk back: a pool chunk to the free list,
/// a compact copy to malloc. Called with poolLock held.
void recycleLocked(SpanChunk *c) {
  if (c->bytes == ChunkBytes) {
    c->next = freeList;
    freeList = c;
    return;
  }
  compactBytes -= c->bytes;
  std::free(c);
}

void pushQueue(SpanChunk *c) {
  if (c->owner) // until the writer takes it, its thread cannot be folded
    c->owner->queuedChunks.fetch_add(1, std::memory_order_relaxed);
  c->next = nullptr;
  if (queueTail)
    queueTail->next = c;
  else
    queueHead = c;
  queueTail = c;
  queuedBytes += c->bytes;
  // One futex wake-up per quarter of the buffer at most, never per chunk.
  if (writerWaiting && queuedBytes >= capBytes / 4) {
    writerWaiting = false;
    pthread_cond_signal(&poolCond);
  }
}

void *writerMain(void *);

/// Starts the writer with the first chunk queued, whoever queues it: a full
/// chunk from the probes, or the partial one of an exiting thread (a program
/// whose threads all live shorter than a chunk would otherwise queue every
/// chunk until the cap, and drop the rest). Called with poolLock held.
void startWriterLocked() {
  if (!writerRunning && !writerStop)
    writerRunning = pthread_create(&writer, nullptr, writerMain, nullptr) == 0;
}

/// The ticks CheckpointAgeNs spans, from the start-up pair and now (not
/// clockCalibrate's figure: the end of the run may be computing it).
uint64_t checkpointAgeTicks() {
  if (!gClock.useTsc)
    return CheckpointAgeNs;
  uint64_t ns = monotonicNs() - gClock.mono0, ticks = nowTicks() - gClock.tsc0;
  return ns ? uint64_t(double(CheckpointAgeNs) * double(ticks) / double(ns))
            : CheckpointAgeNs;
}

void writeChunk(SpanChunk *c) {
  if (gRt.trace)
    traceSpillChunk(c);
  else
    traceChargeChunk(c); // summary mode: aggregates only
}

void *writerMain(void *) {
  tlsRuntimeThread = true;
  pthread_setname_np(pthread_self(), "perfcc-writer");
  uint64_t lastScan = monotonicNs();
  pthread_mutex_lock(&poolLock);
  for (;;) {
    // Trace mode: the calls in live chunks that have waited long enough go
    // to disk too, so kill -9 loses at most about CheckpointAgeNs of them.
    // Either mode: exited threads whose spans are all taken are folded
    // into their group, their memory given back (perfrt_retire.h).
    if (!writerStop && monotonicNs() - lastScan >= CheckpointScanNs) {
      pthread_mutex_unlock(&poolLock);
      if (gRt.trace)
        spansCheckpoint(nowTicks(), checkpointAgeTicks(), traceSpillChunk);
      retireExitedThreads(KeepExitedThreads);
      lastScan = monotonicNs();
      pthread_mutex_lock(&poolLock);
    }
    // Polls rather than being signalled for every chunk: a signal per chunk
    // is a futex wake-up, a syscall in the probing thread (measured: 2 ns a
    // span with 64 KiB chunks). Probes signal only when the queue grows
    // large (pushQueue).
    if (!queueHead && !writerStop) {
      timespec until;
      clock_gettime(CLOCK_REALTIME, &until);
      until.tv_nsec += WriterPollNs;
      if (until.tv_nsec >= 1000000000) {
        until.tv_nsec -= 1000000000;
        ++until.tv_sec;
      }
      writerWaiting = true;
      pthread_cond_timedwait(&poolCond, &poolLock, &until);
      writerWaiting = false;
    }
    SpanChunk *c = popQueue();
    if (!c) {
      if (writerStop)
        break; // stopping and nothing left
      continue;
    }
    writerBusy.store(true, std::memory_order_release);
    pthread_mutex_unlock(&poolLock);
    writeChunk(c);
    writerBusy.store(false, std::memory_order_release);
    if (c->owner)
      c->owner->queuedChunks.fetch_sub(1, std::memory_order_release);
    pthread_mutex_lock(&poolLock);
    recycleLocked(c);
  }
  pthread_mutex_unlock(&poolLock);
  return nullptr;
}

} // namespace

void spansInit(size_t cap) { capBytes = cap; }

namespace {
/// A span that cannot be recorded still counts in the summary: this thread
/// charges it to its own table (the writer owns spanStats).
void dropSpan(ThreadState *t, const SpanRecord &r) {
  if (r.flags & SpanCpu) {
    if (FnStats *s = t->stats.get(r.fn, t->arena))
      s->addCpu(r.start, r.end);
    return;
  }
  if (r.flags & (SpanDelay | SpanCounter))
    return; // not a call: already counted where it happened
  if (gRt.trace)
    ++t->droppedSpans; // in the summary, not in the trace
  if (FnStats *s = t->stats.get(r.fn, t->arena))
    s->add(r.end > r.start ? r.end - r.start : 0, r.exclusive);
}
} // namespace

void spansAppendSlow(ThreadState *t, const SpanRecord &r) {
  if (t->dropBudget) {
    --t->dropBudget;
    dropSpan(t, r);
    return;
  }
  // The pool's lock publishes the chunk's records to the writer.
  pthread_mutex_lock(&poolLock);
  if (t->chunk) {
    pushQueue(t->chunk);
    __atomic_store_n(&t->chunk, nullptr, __ATOMIC_RELAXED);
    startWriterLocked();
  }
  SpanChunk *c = freeList;
  if (c) {
    freeList = c->next;
  } else if (allocatedBytes + compactBytes + ChunkBytes <= capBytes) {
    // Populated now, in one call, rather than by a page fault every few
    // hundred spans.
    void *p = mmap(nullptr, ChunkBytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p != MAP_FAILED) {
      c = static_cast<SpanChunk *>(p);
      c->bytes = ChunkBytes;
      allocatedBytes += ChunkBytes;
    }
  }
  // Trace mode: the writer also checkpoints live chunks, so it runs from
  // the first chunk taken, not the first one full.
  if (c && gRt.trace)
    startWriterLocked();
  // The cap is reached while chunks wait for a sleeping writer: wake it now
  // (once per drop batch at most), so the memory comes back.
  if (!c && queueHead && writerWaiting) {
    writerWaiting = false;
    pthread_cond_signal(&poolCond);
  }
  pthread_mutex_unlock(&poolLock);
  if (!c) {
    dropSpan(t, r);
    t->dropBudget = DropBatch;
    return;
  }
  c->next = nullptr;
  c->owner = t;
  c->tid = t->tid;
  c->records[0] = r;
  c->count = 1;
  c->spilled = 0;
  // The writer's checkpoint reads it: the chunk's header first.
  __atomic_store_n(&t->chunk, c, __ATOMIC_RELEASE);
}

void spansAppendPair(ThreadState *t, const SpanRecord &span,
                     const SpanRecord &cpu) {
  SpanChunk *c = t->chunk;
  if (c && c->count + 2 <= ChunkRecords) {
    storeSpanPair(c, span, cpu);
    return;
  }
  // A new chunk (the current one, with a slot left or none, is handed
  // over), which then has room for the second record too; or a drop.
  // (The chunk handed over sits in the writer's queue while the new one is
  // taken, so a new chunk is never the one before.)
  SpanChunk *before = t->chunk;
  spansAppendSlow(t, span);
  // (spansAppendSlow publishes the new chunk holding the span alone, but a
  // checkpoint takes records stored CheckpointAgeNs ago at the earliest,
  // and a span is stored at its end: the pair is never split.)
  if (t->chunk && t->chunk != before && t->chunk->count == 1)
    storeSpan(t->chunk, cpu);
  else
    dropSpan(t, cpu);
}

void spansPublish(SpanChunk *c) {
  uint32_t n = c->count;
  pthread_mutex_lock(&poolLock);
  // A checkpoint may have spilled some of it (under this lock): the copy
  // holds the rest.
  uint32_t first = c->spilled;
  if (first >= n) {
    recycleLocked(c); // all on disk already
    pthread_mutex_unlock(&poolLock);
    return;
  }
  size_t compact = ChunkHeader + (n - first) * sizeof(SpanRecord);
  SpanChunk *copy = nullptr;
  // Worth a copy when it frees most of the chunk; never past the cap (then
  // the whole chunk waits for the writer, as a full one does).
  if (compact <= ChunkBytes / 4 &&
      allocatedBytes + compactBytes + compact <= capBytes)
    copy = static_cast<SpanChunk *>(std::malloc(compact));
  if (copy) {
    std::memcpy(static_cast<void *>(copy), c, ChunkHeader);
    std::memcpy(copy->records, c->records + first,
                (n - first) * sizeof(SpanRecord));
    copy->count = n - first;
    copy->spilled = 0;
    copy->bytes = uint32_t(compact);
    compactBytes += compact;
    recycleLocked(c);
    c = copy;
  }
  pushQueue(c);
  startWriterLocked();
  pthread_mutex_unlock(&poolLock);
}

unsigned spansCheckpoint(uint64_t now, uint64_t ageTicks,
                         void (*write)(SpanChunk *)) {
  // One piece at a time: static, since a chunk is too large for the
  // writer's stack and only the writer thread checkpoints.
  static SpanChunk piece;
  unsigned pieces = 0;
  for (ThreadState *t = allThreads(); t; t = t->next) {
    if (!__atomic_load_n(&t->chunk, __ATOMIC_RELAXED))
      continue; // no live chunk: exited, or not recording spans yet
    // The lock keeps the chunk from being queued, written and recycled
    // while its records are copied; its owner keeps appending meanwhile,
    // past the count read here. (A flush from a signal handler keeps the
    // lock once it has it, so no piece follows it.)
    pthread_mutex_lock(&poolLock);
    SpanChunk *c = __atomic_load_n(&t->chunk, __ATOMIC_ACQUIRE);
    uint32_t n = c ? __atomic_load_n(&c->count, __ATOMIC_ACQUIRE) : 0;
    uint32_t first = c ? c->spilled : 0;
    if (!c || n <= first || n > ChunkRecords || c->records[first].end > now ||
        now - c->records[first].end < ageTicks) {
      pthread_mutex_unlock(&poolLock);
      continue;
    }
    piece.next = nullptr;
    piece.owner = c->owner;
    piece.tid = c->tid;
    piece.count = n - first;
    piece.bytes = ChunkBytes;
    piece.spilled = 0;
    std::memcpy(piece.records, c->records + first,
                sizeof(SpanRecord) * (n - first));
    c->spilled = n;
    writerBusy.store(true, std::memory_order_release);
    pthread_mutex_unlock(&poolLock);
    write(&piece);
    writerBusy.store(false, std::memory_order_release);
    ++pieces;
  }
  return pieces;
}

bool spansStopWriter(bool inSignal) {
  if (inSignal) {
    // A signal may have interrupted this very thread while it held the lock:
    // never block on it. With the lock held the writer cannot start another
    // chunk; wait (bounded) for the one it may be writing.
    bool locked = false;
    for (int i = 0; i < 1000 && !locked; ++i) {
      locked = pthread_mutex_trylock(&poolLock) == 0;
      if (!locked) {
        timespec ms{0, 1000000};
        nanosleep(&ms, nullptr);
      }
    }
    if (!locked)
      return false;
    writerStop = true;
    for (int i = 0; i < 1000 && writerBusy.load(std::memory_order_acquire);
         ++i) {
      timespec ms{0, 1000000};
      nanosleep(&ms, nullptr);
    }
    // On success the lock stays held, so the writer never starts another
    // chunk: the process is about to die.
    return !writerBusy.load(std::memory_order_acquire);
  }
  pthread_mutex_lock(&poolLock);
  writerStop = true;
  bool join = writerRunning;
  pthread_cond_broadcast(&poolCond);
  pthread_mutex_unlock(&poolLock);
  if (join)
    pthread_join(writer, nullptr);
  writerRunning = false;
  return true;
}

void spansDrainQueue(void (*convert)(SpanChunk *)) {
  // No writer runs any more: the queue is this thread's alone. Compact
  // copies are kept, not freed: the process is ending, this may be a signal
  // handler (no free()), and a leak checker at exit must still reach them
  // (through malloc'd memory only: it does not look inside pool chunks).
  static SpanChunk *drainedCopies = nullptr;
  SpanChunk *c;
  while ((c = popQueue())) {
    convert(c);
    if (c->bytes != ChunkBytes) {
      c->next = drainedCopies;
      drainedCopies = c;
    }
  }
}

void spansAfterFork() {
  pthread_mutex_init(&poolLock, nullptr);
  pthread_cond_init(&poolCond, nullptr);
  // Queued chunks hold the parent's spans: recycle them unwritten.
  SpanChunk *c;
  while ((c = popQueue()))
    recycleLocked(c);
  writerRunning = false;
  writerStop = false;
  writerWaiting = false;
}

} // namespace perfrt

PERFRT_NOINSTR_END
