//===- ThreadTimeline.h - the nesting of one thread's calls -----*- C++ -*-===//
//
// The cpu_op spans of one host thread as a tree, and the thread's time cut
// into segments, each owned by the innermost call open during it (or by no
// instrumented function). From it come a call's exclusive time (the length
// of its segments), the call that contains a CUDA launch, and the charge of
// any stretch of the thread's time to the functions that were running:
// self time to the innermost call at each instant, inclusive time to every
// function on the stack (once per instant, however deep it recursed).
//
// Spans of one thread nest properly in a perfcc trace; a child may share its
// parent's start or end nanosecond. Spans sorted by start, the longer first,
// are pushed on a stack; a span the stack's top does not contain closes it.
// A span that starts inside another and ends after it cannot be nested:
// the earlier one is closed where the later begins, and both are counted
// (improperlyNested). Two spans with the same start and end are nested in
// name order, the only order a trace read in any event order agrees on.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_REPORT_THREADTIMELINE_H
#define PERFCC_DRIVER_PERFCTL_REPORT_THREADTIMELINE_H

#include "trace/TraceModel.h"

#include <cstdint>
#include <map>
#include <vector>

namespace perfcc::perfctl {

/// Time charged to one function: as the innermost call, and on the stack.
struct Charge {
  TimeNs self = 0, inclusive = 0;
};

class ThreadTimeline {
public:
  /// The calls model.cpuOps[first, last), all of one thread, in the
  /// model's canonical order.
  ThreadTimeline(const TraceModel &model, std::size_t first, std::size_t last);

  ThreadRef thread;
  /// Per call, in the model's order from `first`: its index in
  /// model.cpuOps, its parent (an index into nodes, -1 at the top) and its
  /// exclusive time; and its CPU time (PERFCC_CPU_TIME; 0 for a call
  /// without one), inclusive and less its children's.
  struct Node {
    std::size_t op = 0;
    std::int32_t parent = -1;
    TimeNs exclusive = 0;
    TimeNs cpu = 0, cpuExclusive = 0;
  };
  std::vector<Node> nodes;
  /// The thread's time from its first call's start to its last call's end,
  /// cut where the innermost open call changes; node -1: no call open.
  struct Segment {
    TimeNs start = 0, end = 0;
    std::int32_t node = -1;
  };
  std::vector<Segment> segments;
  std::uint64_t improperlyNested = 0;

  /// The innermost call that contains all of [start, end], or -1.
  std::int32_t innermostContaining(TimeNs start, TimeNs end) const;

  /// Adds [start, end)'s charge to \p out, by function name: self to the
  /// innermost call at each instant, inclusive to each function on the
  /// stack. Time in no instrumented call (or outside the thread's first
  /// and last call) is charged, self and inclusive, to NoName.
  void charge(TimeNs start, TimeNs end, std::map<NameId, Charge> &out) const;

private:
  const TraceModel *model;
};

/// Every host thread's timeline.
class HostTimelines {
public:
  explicit HostTimelines(const TraceModel &model);
  /// The timeline of \p thread; nullptr when it has no calls.
  const ThreadTimeline *find(const ThreadRef &thread) const;
  const std::vector<ThreadTimeline> &all() const { return timelines; }

private:
  std::vector<ThreadTimeline> timelines; ///< by thread
};

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_REPORT_THREADTIMELINE_H
