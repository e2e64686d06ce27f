//===- perfrt_thread.h - what each thread records -------------------------===//
//
// Each thread that runs a probe gets one ThreadState, allocated with mmap on
// its first probe and reached through a thread_local *pointer*. The pointer is
// trivially destructible on purpose: a thread_local object with a destructor
// would be torn down by the C++ runtime while other thread-exit code may still
// run instrumented functions, and registering that destructor allocates. The
// state is finished explicitly by a pthread key destructor instead.
//
// A thread only ever writes its own state; the writer thread and the final
// flush read other threads' published chunks (perfrt_spans.h).
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_THREAD_H
#define PERFRT_THREAD_H

#include "perfrt_delay.h"
#include "perfrt_locks.h"
#include "perfrt_stats.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace perfrt {

struct SpanChunk;

/// One live call on the shadow stack.
struct Frame {
  uint64_t start;      // ticks at entry
  uint64_t childTicks; // inclusive time of completed children
  uintptr_t sp;        // caller's stack position at entry (for repair)
  uint32_t fn;         // function id
  uint32_t pad;
};

/// A live call's CPU times (PERFCC_CPU_TIME), beside its Frame at the same
/// depth: apart, so the shadow stack the fast paths use keeps its layout.
struct CpuFrame {
  uint64_t start; // the thread's CPU clock at entry, ns
  uint64_t child; // CPU ns of completed children
};

/// Span flags, shared with the trace writer.
enum SpanFlags : uint32_t {
  SpanUnwind = 1,     // left by an exception
  SpanAbandoned = 2,  // skipped by longjmp or an unprobed unwinding frame
  SpanUnfinished = 4, // still open when the trace was written
  SpanDelay = 8,      // a speed bump (exclusive = the requested ticks)
  SpanCounter = 16,   // a progress point hit (fn = point, exclusive = count)
  SpanHolding = 32,   // a speed bump paid holding a mutex (perfrt_locks.h)
  // The CPU time of the span just before it, in the same chunk: start =
  // its inclusive, end = its exclusive CPU ns (PERFCC_CPU_TIME).
  SpanCpu = 64,
};

constexpr uint32_t MaxDepth = 512;

/// Where a thread state is in its life. Read by the writer thread while the
/// state's thread runs, so atomic.
enum class ThreadPhase : uint32_t {
  Live,    // its thread runs (or has not yet reached its exit)
  Exited,  // its thread ended; the writer may still hold its spans
  Kept,    // exited, and kept whole: one of the first KeepExitedThreads
  Retired, // folded into its name's group, memory given back, reusable
  Group,   // not a thread: exited threads of one name, folded together
};

/// Exited threads kept whole, with their own entries in the summary; the
/// writer folds later ones into a group per thread name (perfrt_retire.h).
constexpr uint32_t KeepExitedThreads = 256;

struct ThreadState {
  // Hot fields first.
  uint32_t depth;
  uint32_t overflow; // calls deeper than MaxDepth: counted, not recorded
  std::atomic<uint32_t> busy; // recursion guard (signal handlers)
  uint32_t dead;              // finished (then `busy` stays set too)
  SpanChunk *chunk;           // current chunk for trace spans
  // Read by the writer thread while the state's thread runs, and kept when
  // a retired state is cleared for reuse (perfrt_retire.h).
  ThreadState *next;                  // all states, newest first
  std::atomic<uint32_t> phase;        // ThreadPhase
  std::atomic<uint32_t> queuedChunks; // its chunks the writer has not taken
  ThreadState *nextRetired;           // perfrt_retire.cpp's free list

  // Cold.
  uint64_t cpuNow; // the thread's CPU clock (ns) at the exit being recorded
  uint32_t tid;
  uint64_t droppedSpans;   // no chunk memory left
  uint32_t dropBudget;     // spans to drop before asking for a chunk again
  uint64_t depthOverflows; // entries beyond MaxDepth
  uint64_t unmatchedExits; // exits with no matching entry
  uint64_t abandonedFrames;
  char name[64]; // through setThreadName/copyThreadName only
  std::atomic<uint32_t> nameGuard;
  uint32_t namedByApi; // perf_thread_name() was called: keep t->name
  Arena arena;         // for `stats` and `delays`
  Arena spanArena;     // for `spanStats`: the writer's
  // Virtual speedup (perfrt_speedup.h).
  uint64_t localDelayTicks;  // delay this thread has paid or been credited
  uint64_t speedupPaidTicks; // of it, paid (spun): the summary's per thread
  uint64_t selectedStart;    // entry of the outermost selected call
  uint32_t selectedDepth;    // selected calls open on this thread
  uint64_t selectedBlockedAtStart; // locks.blockedTicks at selectedStart
  uint32_t speedupSlot; // running slot + 1 (perfrt_speedup.cpp), or 0
  // Mutexes and speed bumps' placement (perfrt_locks.h).
  LockState locks;
  uint64_t delaySpunTicks; // every speed bump this thread paid
  uint32_t delayDepth;     // delayed calls open (delayStack)
  uint32_t foldedThreads;  // a Group: the exited threads folded into it

  // The large tables, page-aligned after the small fields: an exited
  // thread retired into its group gives these pages back (zero is empty)
  // and keeps only the first page.
  alignas(4096) Frame stack[MaxDepth];
  // Aggregates this thread charges itself: the calls whose spans found no
  // chunk memory.
  StatsTable stats;
  // Aggregates the writer charges from this thread's spans, from spanArena:
  // the two tables never share a writer.
  StatsTable spanStats;
  FunctionTable<DelayStats> delays;
  CpuFrame cpuStack[MaxDepth]; // PERFCC_CPU_TIME only; untouched otherwise
  DelayFrame delayStack[MaxDelayFrames];
};

/// What a retired state clears of its first page: the cold fields. The hot
/// ones already hold an exited thread's values (no frames, no chunk, busy
/// and dead set), which the end of the run reads to pass it by.
constexpr size_t ThreadColdOffset = offsetof(ThreadState, cpuNow);
constexpr size_t ThreadSmallBytes = offsetof(ThreadState, stack);
static_assert(ThreadSmallBytes == 4096, "the small fields fit one page");

static_assert(std::is_trivially_destructible<ThreadState>::value,
              "ThreadState lives in mmap'd memory and is never destroyed");

/// The calling thread's state, or null before its first probe. `__thread`,
/// not `thread_local`: a C++ thread_local defined in another file is reached
/// through an init wrapper call; a plain pointer needs none. Initial-exec:
/// one %fs-relative load, no __tls_get_addr.
extern __thread ThreadState *tlsState
    __attribute__((tls_model("initial-exec")));

/// True on the threads the runtime starts itself (the span writer, the
/// signal output writer): they are not the program's, so the interposed
/// mutex, condition and join calls forward theirs untouched (perfrt_locks):
/// no virtual-speedup pauses, no blocked time, no lock statistics. Before
/// this, the writer, waking from its timed poll, paid every pause inserted
/// since, spinning on a CPU the program's threads needed.
extern __thread bool tlsRuntimeThread
    __attribute__((tls_model("initial-exec")));

/// Creates the calling thread's state (mmap, pthread key). Null if memory
/// ran out or the runtime is not recording.
ThreadState *createThreadState();

/// A zeroed state on the list of all states, bound to no thread (a group of
/// exited threads, perfrt_retire.h). Null if memory ran out.
ThreadState *createDetachedState();

/// Reads the thread's current name from the kernel into t->name.
void refreshThreadName(ThreadState *t);

/// A thread's name is written by the thread itself (perfcc_set_thread_name,
/// a refresh from the kernel) or at the end, and read by the span writer
/// while it may change: writers and readers hold t->nameGuard for the copy.
/// The guard is waited for a bounded time only (a signal handler may have
/// interrupted its holder), then the copy goes ahead unguarded.
void setThreadName(ThreadState *t, const char *name);
void copyThreadName(const ThreadState *t, char (&out)[64]);

/// Head of the list of every thread state (newest first).
ThreadState *allThreads();

/// Closes frames above the top-most frame whose sp is not below \p sp
/// (those calls were abandoned) at time \p now.
void closeAbandonedBelow(ThreadState *t, uintptr_t sp, uint64_t now);

/// In a forked child: forget every thread but the caller, keep the caller's
/// live frames, reset its counters.
void threadsAfterFork();

void threadsInit();

} // namespace perfrt

#endif // PERFRT_THREAD_H
