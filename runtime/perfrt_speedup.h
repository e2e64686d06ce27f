//===- perfrt_speedup.h - virtual speedups (Coz's mode) -------------------===//
//
// To pretend the selected functions are P% faster, every other thread is
// delayed by P% of the time a thread spends in them. A thread leaving a
// selected function adds that delay to a global count and to its own local
// count (it "ran faster"); every thread pays the difference between the two
// at its probes, progress points and before it blocks. A thread that blocked
// waiting for another skips what accrued while it slept: it was waiting
// anyway (Coz's rule). The run's effective
// time is its real time minus the total delay inserted, which turns the
// measured progress into the predicted throughput of the faster program.
//
// Valid for CPU threads only: a GPU cannot be paused by delaying the threads
// that feed it, so the runtime marks the result invalid when the process
// loaded a CUDA driver.
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_SPEEDUP_H
#define PERFRT_SPEEDUP_H

#include "perfrt_flags.h"

#include <atomic>
#include <cstdint>

namespace perfrt {

struct ThreadState;

struct SpeedupState {
  bool on;
  uint64_t percent;
  std::atomic<uint64_t> globalTicks;   // total delay owed, in ticks
  std::atomic<uint64_t> insertedTicks; // added inside the window
  std::atomic<uint64_t> paidTicks;     // actually spun, all threads
};

extern SpeedupState gSpeedup;

void speedupInit(const Flags &flags);

/// Entry of a selected function on \p t.
void speedupEnterSelected(ThreadState *t, uint64_t now);
/// Exit of a selected function on \p t.
void speedupExitSelected(ThreadState *t, uint64_t now);
/// Pays what \p t owes (nothing while it runs a selected function).
void speedupCatchUp(ThreadState *t);
/// \p t resumes after blocking: forgets what accrued meanwhile.
void speedupSkip(ThreadState *t);

/// True when the process loaded a GPU driver (CUDA), which a virtual speedup
/// cannot pause.
bool speedupSawGpu();

} // namespace perfrt

#endif // PERFRT_SPEEDUP_H
