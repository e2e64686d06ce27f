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
// Every runtime function carries this, so the runtime is never instrumented
// by perfcc, -finstrument-functions or XRay, whichever built it.
#if defined(__clang__)
#define PERFRT_NOINSTR                                                         \
  __attribute__((no_instrument_function, xray_never_instrument))
#else
#define PERFRT_NOINSTR __attribute__((no_instrument_function))
#endif

namespace perfrt {

struct Runtime {
  Flags flags;
  /// Probes record while true: cleared when the output is being written.
  std::atomic<bool> recording{false};
  bool trace = false; // PERFCC_MODE=trace
  const perfcc::Selection *targets = nullptr;
  const perfcc::Selection *delayTargets = nullptr;
  char program[256] = {};
  int pid = 0;
  uint64_t startTicks = 0;
  std::atomic<int> state{0}; // 0 new, 1 running, 2 finished
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
