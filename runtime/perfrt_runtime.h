//===- perfrt_runtime.h - process-wide state of the runtime ---------------===//
//
// Exactly one instance per process: libperfrt.so is a shared library that
// every instrumented executable and DSO links, so they all share this state.
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_RUNTIME_H
#define PERFRT_RUNTIME_H

#include "perfrt_flags.h"

#include "perfcc/Selection.h"

#include <atomic>
#include <cstdint>

#define PERFRT_API extern "C" __attribute__((visibility("default")))

namespace perfrt {

/// Where the process is in the runtime's life. Moves forward only:
/// New -> Running (runtimeInit) -> Finished (runtimeFinish, exactly once).
enum class Lifecycle : int {
  New,      // before start-up: settings not read yet
  Running,  // settings read, probes may record
  Finished, // the output was written (or is being written); nothing more is
};

struct Runtime {
  Flags flags;
  /// Probes record while true: cleared when the output is being written.
  std::atomic<bool> recording{false};
  bool trace = false; // PERFCC_MODE=trace
  /// Completed calls go to the thread's span chunk, for the writer thread
  /// (both modes): it spills them for the trace, or in summary mode charges
  /// them to the aggregates itself, off the calling thread.
  bool spans = false;
  const perfcc::Selection *targets = nullptr;
  const perfcc::Selection *delayTargets = nullptr;
  char program[256] = {};
  int pid = 0;
  uint64_t startTicks = 0;
  std::atomic<Lifecycle> state{Lifecycle::New};
};

/// Constant-initialized and trivially destructible (see Flags).
extern Runtime gRt;

/// Reads the settings and starts recording; exits with status 2 on a bad
/// setting. Idempotent: called by the runtime's constructor and by the first
/// __perfcc_register, whichever runs first.
void runtimeInit();

/// Writes the trace and summary once; later calls do nothing. \p inSignal
/// avoids joining threads (a signal may interrupt anything).
void runtimeFinish(bool inSignal);

} // namespace perfrt

#endif // PERFRT_RUNTIME_H
