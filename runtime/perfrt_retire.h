//===- perfrt_retire.h - exited threads folded into groups ----------------===//
//
// A thread's state (perfrt_thread.h) outlives the thread: its aggregates are
// the summary's per-thread figures. At about 24 KB a thread that made a few
// calls, a server that starts a thread per request grew without bound (238
// MB for 10,000 threads). The first KeepExitedThreads threads to end stay
// whole; after that, once the writer has taken an exited thread's last
// spans and the thread is gone from the kernel (so no TLS destructor of it
// can run a probe any more), the writer folds its aggregates into the group
// of its name (one summary entry: "folded_threads" says how many), gives its
// tables' pages back, and the state waits to be reused by the next thread
// that starts. What stays per retired thread is its tid and group (8 bytes),
// so the trace still names the thread its spans ran on.
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_RETIRE_H
#define PERFRT_RETIRE_H

#include <cstdint>

namespace perfrt {

struct ThreadState;

/// Groups beyond this many names fold into one group, "other threads".
constexpr unsigned MaxThreadGroups = 64;

/// The writer thread: retires the exited threads that can be, keeping the
/// first \p keep threads to end whole. Returns how many it retired.
unsigned retireExitedThreads(uint32_t keep);

/// A retired state for a new thread, its small fields zero and its tables
/// empty; null when there is none. Any thread.
ThreadState *reuseRetiredState();

/// End of the run: each retired thread's tid and its group's name, for the
/// trace's thread names.
void forEachRetiredThread(void (*each)(uint32_t tid, const char *name));

/// In a forked child: the parent's groups, retired states and names are not
/// the child's (threadsAfterFork dropped the states they live in).
void retireAfterFork();

} // namespace perfrt

#endif // PERFRT_RETIRE_H
