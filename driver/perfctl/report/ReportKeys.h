//===- ReportKeys.h - every key of perfctl report --json --------*- C++ -*-===//
//
// The one place the report's JSON keys are spelled: the JSON renderer writes
// them with these constants, the unit tests read them with these constants,
// and docs/perfctl.md lists them. Keys that mean what a summary's keys mean
// (calls, total, mean, p50, p99, min, max, inclusive_ns, exclusive_ns, name,
// pid, tid) and a GPU record's arguments (device, stream) are the schema's
// own (perfcc/OutputSchema.h). Adding a key is compatible; renaming or
// removing one changes ReportVersion.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_DRIVER_PERFCTL_REPORT_REPORTKEYS_H
#define PERFCC_DRIVER_PERFCTL_REPORT_REPORTKEYS_H

#include "perfcc/OutputSchema.h"

namespace perfcc::perfctl::reportkey {

/// The format's version, written under Version.
constexpr int ReportVersion = 1;

// Shared with the summary and the trace.
constexpr const char *Name = schema::summary::Name;
constexpr const char *Pid = schema::summary::Pid;
constexpr const char *Tid = schema::summary::Tid;
constexpr const char *Calls = schema::summary::Calls;
constexpr const char *Total = schema::summary::Total;
constexpr const char *Mean = schema::summary::Mean;
constexpr const char *P50 = schema::summary::P50;
constexpr const char *P99 = schema::summary::P99;
constexpr const char *Min = schema::summary::Min;
constexpr const char *Max = schema::summary::Max;
constexpr const char *InclusiveNs = schema::summary::InclusiveNs;
constexpr const char *ExclusiveNs = schema::summary::ExclusiveNs;
// A trace recorded with PERFCC_CPU_TIME: per function "cpu_ns" {inclusive,
// exclusive} totals, as the summary names them.
constexpr const char *CpuNs = schema::summary::CpuNs;
constexpr const char *CpuInclusive = schema::summary::CpuInclusive;
constexpr const char *CpuExclusive = schema::summary::CpuExclusive;
constexpr const char *CpuTime = schema::summary::CpuTime;
constexpr const char *Device = schema::trace::ArgDevice;
constexpr const char *Stream = schema::trace::ArgStream;
constexpr const char *Program = schema::trace::MetaProgram;
constexpr const char *PerfccVersion = schema::trace::MetaVersion;
constexpr const char *Clock = schema::trace::MetaClock;

// Top level.
constexpr char Version[] = "report_version";
constexpr char Trace[] = "trace";
constexpr char Run[] = "run";
constexpr char Settings[] = "settings";
constexpr char Top[] = "top";
constexpr char ShortGapNs[] = "short_gap_ns";
constexpr char ExtentNs[] = "extent_ns";
constexpr char Start[] = "start";
constexpr char End[] = "end";
constexpr char Duration[] = "duration";
constexpr char Answer[] = "answer";
// host: the hottest functions.
constexpr char Host[] = "host";
constexpr char Threads[] = "threads";
constexpr char BusyNs[] = "busy_ns";
constexpr char Functions[] = "functions";
constexpr char FunctionCount[] = "function_count";
constexpr char PerThread[] = "per_thread";
// host.work: functions that reported their work (perf_work), most time
// first: totals as the summary names them, and per second of the
// function's inclusive time.
constexpr const char *Work = schema::summary::Work;
constexpr const char *WorkBytes = schema::summary::WorkBytes;
constexpr const char *WorkFlops = schema::summary::WorkFlops;
constexpr const char *WorkReports = schema::summary::WorkReports;
constexpr const char *WorkBytesPerS = schema::summary::WorkBytesPerS;
constexpr const char *WorkFlopsPerS = schema::summary::WorkFlopsPerS;
constexpr const char *WorkFlopsPerByte = schema::summary::WorkFlopsPerByte;
// gpu: devices, streams, kernels.
constexpr char Gpu[] = "gpu";
constexpr char Records[] = "records";
constexpr char ApiCalls[] = "api_calls";
constexpr char Devices[] = "devices";
constexpr char WindowNs[] = "window_ns";
constexpr char IdleNs[] = "idle_ns";
constexpr char BusyPercent[] = "busy_percent";
constexpr char IdlePercent[] = "idle_percent";
constexpr char BusyByKindNs[] = "busy_by_kind_ns";
constexpr char Compute[] = "compute";
constexpr char Copy[] = "copy";
constexpr char Memset[] = "memset";
constexpr char Syncs[] = "syncs";
constexpr char Count[] = "count";
constexpr char TotalNs[] = "total_ns";
constexpr char Streams[] = "streams";
constexpr char IdleBreakdown[] = "idle_breakdown";
constexpr char HostWait[] = "host_wait";
constexpr char ShortGap[] = "short_gap";
constexpr char Other[] = "other";
constexpr char QueueDepth[] = "queue_depth";
constexpr char Launches[] = "launches";
constexpr char IdleAttribution[] = "idle_attribution";
constexpr char Gaps[] = "gaps";
constexpr char HostWaitNs[] = "host_wait_ns";
constexpr char HostWaitGaps[] = "host_wait_gaps";
constexpr char LaunchLatencyNs[] = "launch_latency_ns";
constexpr char GraphLaunchLatencyNs[] = "graph_launch_latency_ns";
constexpr char UnattributedNs[] = "unattributed_ns";
constexpr char UnattributedGaps[] = "unattributed_gaps";
constexpr char SelfNs[] = "self_ns";
constexpr char SelfPercentOfWindow[] = "self_percent_of_window";
constexpr char LargestWaits[] = "largest_waits";
constexpr char StartNs[] = "start_ns";
constexpr char EndNs[] = "end_ns";
constexpr char Record[] = "record";
constexpr char MostlyIn[] = "mostly_in";
constexpr char LaunchDelayNs[] = "launch_delay_ns";
constexpr char Clipped[] = "clipped";
constexpr char Kernels[] = "kernels";
constexpr char KernelCount[] = "kernel_count";
constexpr char Kind[] = "kind";
constexpr char DurationNs[] = "duration_ns";
constexpr char Launchers[] = "launchers";
constexpr char Function[] = "function";
constexpr char Launcher[] = "launcher";
constexpr char LauncherFunction[] = "function";
constexpr char LauncherNoFunction[] = "no_function";
constexpr char LauncherNoLaunch[] = "no_launch";
// quality.
constexpr char Quality[] = "quality";
constexpr char Runtime[] = "runtime";
constexpr char Reader[] = "reader";
constexpr char MalformedEvents[] = "malformed_events";
constexpr char IgnoredEvents[] = "ignored_events";
constexpr char NegativeDurations[] = "negative_durations";
constexpr char ImproperlyNested[] = "improperly_nested";
constexpr char UnwoundCalls[] = "unwound_calls";
constexpr char AbandonedCalls[] = "abandoned_calls";
constexpr char UnfinishedCalls[] = "unfinished_calls";
constexpr char RecordsWithoutLaunch[] = "gpu_records_without_launch";
constexpr char LaunchesWithoutRecords[] = "launches_without_gpu_records";
constexpr char CapturedLaunches[] = "captured_launches";
constexpr char RecordsBeforeLaunch[] = "gpu_records_before_launch";
constexpr char DuplicateCorrelations[] = "duplicate_correlations";
constexpr char LaunchedByDisagrees[] = "launched_by_disagrees";
constexpr char GraphLaunches[] = "graph_launches";
constexpr char HostNs[] = "host_ns";
constexpr char Warnings[] = "warnings";

} // namespace perfcc::perfctl::reportkey

#endif // PERFCC_DRIVER_PERFCTL_REPORT_REPORTKEYS_H
