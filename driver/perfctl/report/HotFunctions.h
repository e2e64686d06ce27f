//===- HotFunctions.h - the hottest instrumented functions ------*- C++ -*-===//
//
// Per function, over the whole process and per thread: calls, and the
// inclusive and exclusive time of its calls (total, mean, p50, p99, max).
// Exclusive time is what the thread's nesting leaves to a call once its
// children are taken out (ThreadTimeline); inclusive totals add every call,
// so a recursive function counts its nested calls again, as the runtime's
// summary does. Speed bumps (category delay) are not calls and are not
// counted; their time stays in the call they delayed.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_REPORT_HOTFUNCTIONS_H
#define PERFCC_DRIVER_PERFCTL_REPORT_HOTFUNCTIONS_H

#include "report/DurationStats.h"
#include "report/ThreadTimeline.h"
#include "trace/TraceModel.h"

#include <vector>

namespace perfcc::perfctl {

struct FunctionTime {
  NameId name = NoName;
  DurationStats inclusive, exclusive; ///< count is the calls
  /// The threads' CPU time in its calls, totals (a trace recorded with
  /// PERFCC_CPU_TIME; 0 otherwise): what it computed, where the wall time
  /// less this is what it waited (locks, I/O, sleep, the GPU, the
  /// scheduler).
  TimeNs cpuInclusive = 0, cpuExclusive = 0;
};

struct ThreadFunctions {
  ThreadRef thread;
  NameId threadName = NoName;
  std::uint64_t calls = 0;
  TimeNs busy = 0; ///< time inside some call: the top-level calls' length
  std::vector<FunctionTime> functions; ///< hottest (exclusive total) first
};

struct HotFunctions {
  bool cpuTime = false; ///< the calls carry their CPU time
  std::uint64_t calls = 0;
  TimeNs busy = 0; ///< summed over threads
  /// Every function, hottest first: exclusive total, then inclusive total,
  /// then name.
  std::vector<FunctionTime> process;
  std::vector<ThreadFunctions> threads; ///< by pid, tid
  std::uint64_t improperlyNested = 0;
};

HotFunctions analyzeHotFunctions(const TraceModel &model,
                                 const HostTimelines &timelines);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_REPORT_HOTFUNCTIONS_H
