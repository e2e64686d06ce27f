//===- TraceModel.h - a perfcc Chrome trace as typed events -----*- C++ -*-===//
//
// What a trace written by perfcc's runtime holds (docs/runtime.md,
// docs/gpu-tracing.md), as plain structs in integer nanoseconds: the calls of
// instrumented functions (cpu_op), speed bumps, progress-point counters, CUDA
// API calls on the host threads, the GPU's kernels, copies and memsets,
// host waits on the GPU, flows, the names of processes and threads, and the
// metadata with what was lost. perfctl's trace commands (report today;
// export, merge and recover later) read a trace into this model once
// (trace/TraceReader.h) and compute from it.
//
// Names are interned: each event holds a NameId into the model's string
// table. After canonicalize() the table is sorted, so ids order as the names
// do, and every event list is sorted by a key that ends in its every field:
// a model read from the same events in any file order is the same model.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_TRACE_TRACEMODEL_H
#define PERFCC_DRIVER_PERFCTL_TRACE_TRACEMODEL_H

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace perfcc::perfctl {

/// Nanoseconds on the trace's clock (perfcc's runtime: CLOCK_MONOTONIC).
using TimeNs = std::int64_t;
/// An index into TraceModel's string table.
using NameId = std::uint32_t;
/// "No name": an absent optional string argument.
constexpr NameId NoName = std::numeric_limits<NameId>::max();
/// An absent optional integer argument (ids, counts, sizes).
constexpr std::int64_t NoValue = std::numeric_limits<std::int64_t>::min();

/// A row of the trace: a host thread, or a GPU process's row.
struct ThreadRef {
  std::int64_t pid = 0, tid = 0;
  friend bool operator==(const ThreadRef &a, const ThreadRef &b) {
    return a.pid == b.pid && a.tid == b.tid;
  }
  friend bool operator<(const ThreadRef &a, const ThreadRef &b) {
    return a.pid != b.pid ? a.pid < b.pid : a.tid < b.tid;
  }
};

/// One call of an instrumented function (category cpu_op). On one thread
/// these nest: a child lies within its parent and may share its start or
/// end nanosecond.
struct CpuOp {
  NameId name = NoName;
  ThreadRef thread;
  TimeNs start = 0, end = 0;
  NameId file = NoName;
  std::int64_t line = 0;
  std::int64_t externalId = NoValue;
  /// The thread's CPU time in the call (tdur; PERFCC_CPU_TIME), or NoValue.
  std::int64_t cpuNs = NoValue;
  bool unwind = false;     ///< left by an exception
  bool abandoned = false;  ///< skipped by a longjmp
  bool unfinished = false; ///< still open when the trace was written
};

/// A speed bump, inside the call it delayed (category delay).
struct DelaySpan {
  ThreadRef thread;
  TimeNs start = 0, end = 0;
  NameId function = NoName; ///< the delayed function
};

/// A progress point's count at a moment (phase C).
struct CounterSample {
  NameId name = NoName;
  ThreadRef thread;
  TimeNs ts = 0;
  double value = 0;
};

/// A CUDA runtime or driver API call on the calling host thread.
struct ApiCall {
  NameId name = NoName;
  bool driver = false; ///< category cuda_driver, else cuda_runtime
  ThreadRef thread;
  TimeNs start = 0, end = 0;
  std::int64_t cbid = NoValue;
  std::int64_t correlation = NoValue; ///< joins the call to its GPU records
  std::int64_t externalId = NoValue;
};

/// What a GPU record did.
enum class GpuKind : std::uint8_t { Kernel, Memcpy, Memset };

/// One piece of GPU activity: a kernel, a copy or a memset. The device and
/// stream are its arguments; its pid and tid are only where a viewer draws
/// it (the tid is an overflow row when records overlapped on one stream).
struct GpuRecord {
  GpuKind kind = GpuKind::Kernel;
  NameId name = NoName;
  std::int64_t device = 0, stream = 0, context = NoValue;
  std::int64_t correlation = NoValue;
  std::int64_t externalId = NoValue;
  NameId launchedBy = NoName; ///< the launching cpu_op, as the runtime saw it
  NameId capturedBy = NoName; ///< the cpu_op that captured its CUDA graph
  TimeNs start = 0, end = 0;
  ThreadRef row;
  std::array<std::int64_t, 3> grid = {0, 0, 0}, block = {0, 0, 0};
  std::int64_t registers = NoValue, sharedMemory = NoValue;
  std::int64_t graphId = NoValue, graphNodeId = NoValue;
  std::int64_t bytes = NoValue;
  double bandwidthGBs = std::numeric_limits<double>::quiet_NaN();
};

/// The host waiting on the GPU (category cuda_sync): a stream, event or
/// context synchronization, drawn on the GPU's process. Not GPU busy time.
struct GpuSync {
  NameId kind = NoName; ///< cuda_sync_kind
  std::int64_t device = 0, stream = NoValue, correlation = NoValue;
  TimeNs start = 0, end = 0;
  ThreadRef row;
};

/// One end of a flow arrow (phases s and f): a launch to its GPU record.
struct FlowPoint {
  bool start = false; ///< phase s, else f
  std::int64_t id = 0;
  ThreadRef thread;
  TimeNs ts = 0;
};

/// A process_name or process_sort_index event.
struct ProcessInfo {
  std::int64_t pid = 0;
  NameId name = NoName;
  std::int64_t sortIndex = NoValue;
};

/// A thread_name or thread_sort_index event.
struct ThreadInfo {
  ThreadRef thread;
  NameId name = NoName;
  std::int64_t sortIndex = NoValue;
};

/// metadata.gpu: how GPU activity was collected and what the runtime lost.
struct GpuCollection {
  std::string cupti; ///< on, off, unavailable
  std::string reason;
  std::optional<std::uint64_t> records, droppedRecords, unmatchedLaunches,
      unmatchedGpuRecords, recordsOutsideRun, startsBeforeLaunch,
      overlapRowsUsed, zeroTimestamps;
};

/// The trace's `metadata` object, the fields perfctl reads typed and the
/// whole object as written.
struct TraceMetadata {
  bool present = false;
  std::string version, program, clock;
  std::optional<std::int64_t> pid;
  std::optional<std::uint64_t> droppedSpans, depthOverflows, unmatchedExits,
      abandonedFrames;
  bool cpuTime = false; ///< the calls carry their CPU time (cpuNs)
  std::optional<GpuCollection> gpu;
  /// Recovered from a spill (perfctl trace recover): present, with where
  /// and why the spill was cut (empty when it ended cleanly).
  std::optional<std::string> recoveredCut;
  nlohmann::json raw = nlohmann::json::object();
};

/// What perf_work reported for a function's calls (the trace's function
/// table; perf/perf.h): summed over the entries of one name.
struct FunctionWork {
  NameId name = NoName;
  std::uint64_t bytes = 0, flops = 0, reports = 0;
};

/// What the reader met and did not use.
struct ReadIssues {
  /// Events whose fields were missing or of the wrong type (an X event
  /// without ts, a GPU record without its device, ...): skipped.
  std::uint64_t malformedEvents = 0;
  /// Events of phases or categories no perfctl command reads: skipped.
  std::uint64_t ignoredEvents = 0;
  /// Complete events with a negative duration: read with duration 0.
  std::uint64_t negativeDurations = 0;
};

/// A whole trace.
class TraceModel {
public:
  std::vector<CpuOp> cpuOps;
  std::vector<DelaySpan> delays;
  std::vector<CounterSample> counters;
  std::vector<ApiCall> apiCalls;
  std::vector<GpuRecord> gpuRecords;
  std::vector<GpuSync> syncs;
  std::vector<FlowPoint> flows;
  std::vector<ProcessInfo> processes;
  std::vector<ThreadInfo> threads;
  std::vector<FunctionWork> work; ///< functions that reported work, by name
  TraceMetadata metadata;
  ReadIssues issues;

  /// The id of \p text, added to the table when new.
  NameId intern(std::string_view text);
  /// The text of \p id; "" for NoName.
  std::string_view name(NameId id) const;
  /// The id of \p text if the table holds it, else NoName.
  NameId find(std::string_view text) const;
  std::size_t nameCount() const { return strings.size(); }

  /// Sorts the string table and renumbers every NameId by it, then sorts
  /// every event list by (time, then every other field), and merges the
  /// name and sort-index events of one process or thread. Makes the model
  /// independent of the order the events came in.
  void canonicalize();

  /// The name a process_name event gave \p pid, or NoName.
  NameId processName(std::int64_t pid) const;
  /// The name a thread_name event gave \p thread, or NoName.
  NameId threadName(const ThreadRef &thread) const;

  /// Whether the calls carry their CPU time (PERFCC_CPU_TIME: the metadata
  /// says so, or a call has one).
  bool hasCpuTime() const;

private:
  // A deque: its strings never move, so the index can view them.
  std::deque<std::string> strings;
  std::unordered_map<std::string_view, NameId> index;
};

/// "kernel", "memcpy", "memset".
const char *gpuKindName(GpuKind kind);

} // namespace perfcc::perfctl

#endif // PERFCC_DRIVER_PERFCTL_TRACE_TRACEMODEL_H
