//===- perfrt_signals.h - SIGINT and SIGTERM: output, then death ----------===//
//
// A program stopped by SIGINT or SIGTERM (Ctrl-C, a job's time limit) still
// gets its trace and summary, then dies of the same signal, so its parent
// sees the status it expects. The output is written off the signal handler,
// by a thread of the runtime's own that waits for this from start-up: the
// handler hands the signal over through a pipe (write(2) is async-signal-
// safe) and waits for the end. Written from the handler itself, the output's
// allocations would deadlock a thread interrupted inside malloc, and a
// program that allocates a lot (an inference engine) is often there.
// The interrupted thread is treated as any thread stopped mid-call, as
// runtimeFinish(true) does for every thread (locks tried, never waited on).
// A forked child has no such thread (threads do not survive fork) and
// writes from its handler, as a last resort.
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_SIGNALS_H
#define PERFRT_SIGNALS_H

namespace perfrt {

/// At start-up: handlers for SIGINT and SIGTERM where the program left the
/// default (an ignored or handled signal is left alone), and the thread
/// that writes the output when one arrives.
void signalsInstall();

/// In a forked child: the parent's writing thread is not here.
void signalsAfterFork();

} // namespace perfrt

#endif // PERFRT_SIGNALS_H
