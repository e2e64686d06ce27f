//===- perfrt_trace_format.h - names used in perfcc's trace files ---------===//
//
// One definition of the trace vocabulary for the runtime that writes traces
// and the tools that read them. Where PyTorch's profiler (Kineto) has a name
// for a thing, it is used, so Holistic Trace Analysis reads our traces.
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_TRACE_FORMAT_H
#define PERFRT_TRACE_FORMAT_H

namespace perfrt::format {

constexpr const char *CategoryCpuOp = "cpu_op"; // instrumented function span
constexpr const char *CategoryDelay = "delay";  // a speed bump
constexpr const char *ArgFunction = "function"; // the delayed function
constexpr const char *ArgRequestedNs = "requested_ns";
constexpr const char *ArgFile = "file";
constexpr const char *ArgLine = "line";
// Span flags, written as boolean args only when set.
constexpr const char *ArgUnwind = "unwind";         // left by an exception
constexpr const char *ArgAbandoned = "abandoned";   // skipped (longjmp)
constexpr const char *ArgUnfinished = "unfinished"; // open at the end

// Keys of the top-level `metadata` object.
constexpr const char *MetaVersion = "perfcc_version";
constexpr const char *MetaDroppedSpans = "dropped_spans";
constexpr const char *MetaDepthOverflows = "depth_overflows";
constexpr const char *MetaUnmatchedExits = "unmatched_exits";
constexpr const char *MetaAbandonedFrames = "abandoned_frames";

} // namespace perfrt::format

#endif // PERFRT_TRACE_FORMAT_H
