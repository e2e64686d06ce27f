//===- CallTree.h - a trace's calls merged by call path ---------*- C++ -*-===//
//
// What flame graphs and call-graph viewers show, from a trace's exact
// calls rather than samples: the calls of every host thread merged by call
// path (thread, outermost function, ..., this function), each path with its
// calls, its total time (the inclusive time of its calls) and its self time
// (what its children leave; ThreadTimeline's exclusive time), and per
// function pair the call edges: how often the caller called the callee and
// the callee's inclusive time under it. Times are wall time in nanoseconds,
// or, from a trace recorded with PERFCC_CPU_TIME, the threads' CPU time
// (each call's tdur; a call without one, closed by a longjmp or the end of
// the run, counts none); speed bumps (category delay) stay in the call they
// delayed, as in the runtime's summary.
//
// A recursive function's path grows a frame per level, as a flame graph
// draws it; its call edge to itself counts each nested call, so a viewer
// that sums edges into inclusive time counts recursion twice (callgrind's
// own files do the same).
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_EXPORT_CALLTREE_H
#define PERFCC_DRIVER_PERFCTL_EXPORT_CALLTREE_H

#include "trace/TraceModel.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace perfcc::perfctl {

/// One call path.
struct CallPath {
  NameId function = NoName; ///< NoName: a thread's root
  std::int32_t parent = -1; ///< -1: a thread's root
  std::uint32_t depth = 0;  ///< 0: a thread's root
  std::uint64_t calls = 0;  ///< a root: its thread's top-level calls
  TimeNs total = 0;         ///< a root: its thread's time in calls
  TimeNs self = 0;          ///< a root: 0 (its time in no call is unknown)
  /// Ordered by function name (ids order as names do after
  /// canonicalize()), so every export lists them the same way.
  std::vector<std::int32_t> children;
};

/// One caller-callee pair, over every thread and path.
struct CallEdge {
  std::uint64_t calls = 0;
  TimeNs inclusive = 0; ///< the callee's, under this caller
};

/// One function, over every thread and path.
struct FunctionCost {
  std::uint64_t calls = 0;
  TimeNs self = 0;
  NameId file = NoName;
  std::int64_t line = 0;
};

/// Which time a call tree holds.
enum class CallTime { Wall, Cpu };

struct CallTree {
  CallTime time = CallTime::Wall;
  std::vector<CallPath> paths;
  std::vector<std::int32_t> roots;     ///< one per thread with calls, by thread
  std::vector<std::string> rootLabels; ///< "engine-main (tid 42)", per root
  std::map<NameId, FunctionCost> functions;
  /// (caller, callee) -> edge; top-level calls have no caller and no edge.
  std::map<std::pair<NameId, NameId>, CallEdge> edges;
  TimeNs selfTotal = 0; ///< every call's self time: the whole cost
  std::uint64_t calls = 0;
  std::uint64_t improperlyNested = 0; ///< ThreadTimeline's count
};

/// \p model's calls as a call tree of \p time (\p model canonicalized, as
/// readTraceFile returns it).
CallTree buildCallTree(const TraceModel &model, CallTime time = CallTime::Wall);

/// "wall" or "CPU".
const char *callTimeName(CallTime time);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_EXPORT_CALLTREE_H
