//===- OutputSchema.h - every key of perfcc's trace and summary files -----===//
//
// The one place the names in `<program>.<pid>.trace.json` and
// `<program>.<pid>.summary.json` are spelled: the runtime writes them with
// these constants, perfctl reads them with these constants, and the Python
// test tools read this file (test/lit/schema.py parses the `Name[] = "text"`
// lines below), so a key renamed here is renamed everywhere or a test fails.
// Where PyTorch's profiler (Kineto) has a name for a thing, it is used, so
// Holistic Trace Analysis reads our traces. docs/runtime.md describes them.
//
// Keep one `constexpr char Name[] = "text";` per line: schema.py reads them.
//
//===----------------------------------------------------------------------===//
#ifndef PERFCC_OUTPUTSCHEMA_H
#define PERFCC_OUTPUTSCHEMA_H

namespace perfcc::schema {

/// Chrome Trace Event Format: the events and the `metadata` object.
namespace trace {
constexpr char Events[] = "traceEvents";
constexpr char Metadata[] = "metadata";
constexpr char DisplayTimeUnit[] = "displayTimeUnit";
// Event fields.
constexpr char Phase[] = "ph";
constexpr char Category[] = "cat";
constexpr char Name[] = "name";
constexpr char Pid[] = "pid";
constexpr char Tid[] = "tid";
constexpr char Ts[] = "ts";
constexpr char Dur[] = "dur";
// The thread's CPU time in the call, in us, as Chrome's trace format names
// a complete event's thread duration (PERFCC_CPU_TIME only).
constexpr char ThreadDur[] = "tdur";
constexpr char Args[] = "args";
// Phases.
constexpr char PhaseComplete[] = "X";
constexpr char PhaseCounter[] = "C";
constexpr char PhaseMetadata[] = "M";
// Metadata events and their argument.
constexpr char ProcessName[] = "process_name";
constexpr char ThreadName[] = "thread_name";
constexpr char ArgName[] = "name";
// Categories.
constexpr char CategoryCpuOp[] = "cpu_op"; // an instrumented function's call
constexpr char CategoryDelay[] = "delay";  // a speed bump, inside its call
constexpr char DelayEventName[] = "delay";
// Span arguments. A call's source file and line are its function's, so
// they are written once, in metadata's function table (MetaFunctions), not
// in each call; perfctl still reads them from a span's args (older traces).
constexpr char ArgFile[] = "file";
constexpr char ArgLine[] = "line";
constexpr char ArgFunction[] = "function"; // the delayed function
constexpr char ArgRequestedNs[] = "requested_ns";
constexpr char ArgHolding[] = "holding";       // a delay paid holding a mutex
constexpr char ArgUnwind[] = "unwind";         // left by an exception
constexpr char ArgAbandoned[] = "abandoned";   // skipped (longjmp)
constexpr char ArgUnfinished[] = "unfinished"; // open at the end
constexpr char ArgCounterValue[] = "value";    // a progress point's count
// Keys of `metadata`.
constexpr char MetaVersion[] = "perfcc_version";
constexpr char MetaProgram[] = "program";
constexpr char MetaPid[] = "pid";
constexpr char MetaClock[] = "clock";
constexpr char MetaClockDomain[] = "clock_domain";
constexpr char MetaNsPerTick[] = "ns_per_tick";
constexpr char MetaDroppedSpans[] = "dropped_spans";
constexpr char MetaDepthOverflows[] = "depth_overflows";
constexpr char MetaUnmatchedExits[] = "unmatched_exits";
constexpr char MetaAbandonedFrames[] = "abandoned_frames";
constexpr char MetaCpuTime[] = "cpu_time"; // spans carry tdur
// Every function that has a span in the trace, once: [{name, mangled, file,
// line}] (ArgFile, ArgLine for the location).
constexpr char MetaFunctions[] = "functions";
constexpr char MetaFunctionMangled[] = "mangled";
// A function's work reported by perf_work (perf/perf.h), when it reported
// any: {"bytes", "flops", "reports"} (summary::WorkBytes...).
constexpr char MetaFunctionWork[] = "work";
// A trace perfctl recovered from a spill (perfctl trace recover): metadata
// and summary `recovered`, and an instant event where the record stops.
constexpr char PhaseInstant[] = "i";
constexpr char InstantScope[] = "s";
constexpr char InstantScopeGlobal[] = "g";
constexpr char CategoryRecovery[] = "recovery";
constexpr char CutEventName[] = "the run ended here (recovered)";
constexpr char MetaRecovered[] = "recovered";
constexpr char RecoveredFrom[] = "from";
constexpr char RecoveredCut[] = "cut";      // why reading stopped, or null
constexpr char RecoveredEndNs[] = "end_ns"; // the last record's end
constexpr char RecoveredChunks[] = "chunks";
constexpr char RecoveredBadSlots[] = "bad_ring_slots";
constexpr char RecoveredUnreadBytes[] = "unread_bytes";
constexpr char RecoveredUnknownRecords[] = "records_without_a_name";
constexpr char RecoveredLost[] = "lost";
// The ticks-to-ns fit checked against pairs taken during the run (present
// when any were): the largest distance, and how many pairs.
constexpr char MetaClockFitResidualNs[] = "clock_fit_max_residual_ns";
constexpr char MetaClockFitSamples[] = "clock_fit_samples";

// GPU activity (docs/gpu-tracing.md), in Kineto's names. A device is a
// process ("GPU 0"); a stream is a thread of it; CUDA API calls are spans on
// the calling thread; a flow joins each launch to each of its GPU records.
constexpr char PhaseFlowStart[] = "s";
constexpr char PhaseFlowEnd[] = "f";
constexpr char FlowId[] = "id";
constexpr char FlowBindPoint[] = "bp";
constexpr char FlowBindEnclosing[] = "e";
constexpr char ProcessSortIndex[] = "process_sort_index";
constexpr char ThreadSortIndex[] = "thread_sort_index";
constexpr char ArgSortIndex[] = "sort_index";
constexpr char CategoryCudaRuntime[] = "cuda_runtime"; // a CUDA runtime call
constexpr char CategoryCudaDriver[] = "cuda_driver";   // a driver API call
constexpr char CategoryKernel[] = "kernel";
constexpr char CategoryMemcpy[] = "gpu_memcpy";
constexpr char CategoryMemset[] = "gpu_memset";
constexpr char CategoryCudaSync[] = "cuda_sync"; // a host wait on the GPU
constexpr char CategoryFlow[] = "ac2g";          // launch -> GPU record
constexpr char FlowName[] = "ac2g";
constexpr char GpuProcessPrefix[] = "GPU ";      // + the device ordinal
constexpr char StreamThreadPrefix[] = "stream "; // + the stream id
constexpr char ArgExternalId[] = "External id";  // joins cpu_op, API, GPU
constexpr char ArgCorrelation[] = "correlation"; // CUPTI's correlation id
constexpr char ArgCbid[] = "cbid";
constexpr char ArgDevice[] = "device";
constexpr char ArgContext[] = "context";
constexpr char ArgStream[] = "stream";
constexpr char ArgRegisters[] = "registers per thread";
constexpr char ArgSharedMemory[] = "shared memory";
constexpr char ArgGrid[] = "grid";
constexpr char ArgBlock[] = "block";
constexpr char ArgGraphId[] = "graph id";
constexpr char ArgGraphNodeId[] = "graph node id";
constexpr char ArgBytes[] = "bytes";
constexpr char ArgBandwidth[] = "memory bandwidth (GB/s)";
constexpr char ArgSyncKind[] = "cuda_sync_kind";
constexpr char ArgLaunchedBy[] = "launched_by"; // the launching cpu_op's name
constexpr char ArgCapturedBy[] = "captured_by"; // the graph's capturing cpu_op
// Keys of metadata.gpu: how GPU activity was collected and what was lost.
constexpr char MetaGpu[] = "gpu";
constexpr char MetaCupti[] = "cupti"; // off, unavailable, on
constexpr char MetaCuptiReason[] = "reason";
constexpr char MetaCuptiVersion[] = "cupti_version";
constexpr char MetaGpuRecords[] = "records";
constexpr char MetaGpuDroppedRecords[] = "dropped_records";
constexpr char MetaGpuUnmatchedLaunches[] = "unmatched_launches";
constexpr char MetaGpuUnmatchedGpuRecords[] = "unmatched_gpu_records";
constexpr char MetaGpuOutsideRun[] = "records_outside_run";
constexpr char MetaGpuStartsBeforeLaunch[] = "starts_before_launch";
constexpr char MetaGpuOverlapMoves[] = "overlap_rows_used";
constexpr char MetaGpuZeroTimestamps[] = "zero_timestamps";
// perfctl merge: one entry per merged trace, its metadata and its file.
constexpr char MetaMerged[] = "merged";
constexpr char MergedFile[] = "file";
} // namespace trace

/// The summary: the run, each function's aggregates, the threads, the
/// measurement window, speed bumps, virtual speedups and progress points.
namespace summary {
constexpr char Version[] = "perfcc_version";
constexpr char Program[] = "program";
constexpr char Pid[] = "pid";
constexpr char Mode[] = "mode";
constexpr char TraceFile[] = "trace";
constexpr char Clock[] = "clock";
constexpr char DurationNs[] = "duration_ns";
constexpr char FunctionsRegistered[] = "functions_registered";
constexpr char Dropped[] = "dropped";
constexpr char DroppedSpans[] = "spans";
constexpr char DroppedDepthOverflows[] = "depth_overflows";
constexpr char DroppedUnmatchedExits[] = "unmatched_exits";
constexpr char DroppedAbandonedFrames[] = "abandoned_frames";
// functions[]: one per probed function, hottest first.
constexpr char Functions[] = "functions";
constexpr char Name[] = "name";
constexpr char Mangled[] = "mangled";
constexpr char File[] = "file";
constexpr char Line[] = "line";
constexpr char Calls[] = "calls";
constexpr char InclusiveNs[] = "inclusive_ns";
constexpr char ExclusiveNs[] = "exclusive_ns";
constexpr char Total[] = "total";
constexpr char Mean[] = "mean";
constexpr char P50[] = "p50";
constexpr char P99[] = "p99";
constexpr char Min[] = "min";
constexpr char Max[] = "max";
// work: what perf_work reported for the function's calls (perf/perf.h),
// present when it reported any: totals, and per second of its inclusive
// time (summed over threads). work_unattributed at the top: reports made
// outside any recorded call.
constexpr char Work[] = "work";
constexpr char WorkBytes[] = "bytes";
constexpr char WorkFlops[] = "flops";
constexpr char WorkReports[] = "reports";
constexpr char WorkBytesPerS[] = "bytes_per_s";
constexpr char WorkFlopsPerS[] = "flops_per_s";
constexpr char WorkFlopsPerByte[] = "flops_per_byte";
constexpr char WorkUnattributed[] = "work_unattributed";
// threads[]: per function, and for the whole run.
constexpr char Threads[] = "threads";
constexpr char Tid[] = "tid";
constexpr char ThreadName[] = "name";
constexpr char ThreadDroppedSpans[] = "dropped_spans";
// Virtual speedups only: the pauses the thread paid (spun), in ns.
constexpr char ThreadSpeedupPaidNs[] = "speedup_paid_ns";
// An entry for exited threads of one name folded together (the runtime keeps
// the first 256 threads to end whole): how many. Its tid is the first's.
constexpr char FoldedThreads[] = "folded_threads";
// window: where delays apply and throughput is measured.
constexpr char Window[] = "window";
constexpr char StartNs[] = "start_ns";
constexpr char EndNs[] = "end_ns";
// delay: the speed bumps.
constexpr char Delay[] = "delay";
constexpr char Armed[] = "armed";
constexpr char DelayNs[] = "ns";
constexpr char Frequency[] = "frequency";
constexpr char DelayTargets[] = "targets";
constexpr char Calibration[] = "calibration";
constexpr char ClockReadNs[] = "clock_read_ns";
constexpr char MinDelayNs[] = "min_delay_ns";
constexpr char CallsInWindow[] = "calls_in_window";
constexpr char DelayedCalls[] = "delayed_calls";
constexpr char RequestedNs[] = "requested_ns";
constexpr char DeliveredNs[] = "delivered_ns";
constexpr char MeanErrorNs[] = "mean_error_ns";
constexpr char WorstErrorNs[] = "worst_error_ns";
// The share of the function's own work done holding a mutex (so of each
// delay paid holding one), and the delayed calls that paid holding one.
constexpr char HeldShare[] = "held_share";
constexpr char PaidHolding[] = "paid_holding";
/// A delayed function's own work (its time less delays and time blocked on
/// other threads), summed over its calls after each thread's first, and
/// those calls.
constexpr char WorkNs[] = "work_ns";
constexpr char WorkCalls[] = "work_calls";
/// Time threads spent waiting for a mutex another thread held, summed over
/// the threads, and the acquisitions that waited (armed runs only: the
/// interposers track while an experiment runs).
constexpr char MutexWaitNs[] = "mutex_wait_ns";
// PERFCC_CPU_TIME: "cpu_time" true at the top, and per function and thread
// "cpu_ns" {calls, inclusive, exclusive}: the thread's CPU time in its
// calls, in ns (exclusive: less the callees').
constexpr char CpuTime[] = "cpu_time";
// What one read of the thread's CPU clock costs in CPU time, ns: taken off
// each call's CPU time (a call's CPU interval holds about one read).
constexpr char CpuReadNs[] = "cpu_read_ns";
constexpr char CpuNs[] = "cpu_ns";
constexpr char CpuInclusive[] = "inclusive";
constexpr char CpuExclusive[] = "exclusive";
constexpr char ContendedLocks[] = "contended_locks";
// speedup: a virtual speedup (present only in that mode).
constexpr char Speedup[] = "speedup";
constexpr char Percent[] = "percent";
constexpr char InsertedNs[] = "inserted_ns";
constexpr char PaidNs[] = "paid_ns";
constexpr char EffectiveDurationNs[] = "effective_duration_ns";
constexpr char Valid[] = "valid";
constexpr char Reason[] = "reason";
// progress[]: progress points.
constexpr char Progress[] = "progress";
constexpr char Kind[] = "kind";
constexpr char KindThroughput[] = "throughput";
constexpr char KindLatency[] = "latency";
constexpr char Count[] = "count";
constexpr char CountInWindow[] = "count_in_window";
constexpr char Begins[] = "begins";
constexpr char Ends[] = "ends";
constexpr char EndsInWindow[] = "ends_in_window";
constexpr char MeanLatencyNs[] = "mean_latency_ns";
constexpr char RatePerS[] = "rate_per_s";
constexpr char VirtualRatePerS[] = "virtual_rate_per_s";
// gpu: what the GPU ran (present when CUPTI was on), with the trace's
// metadata.gpu keys for collection and quality.
constexpr char Gpu[] = "gpu";
constexpr char Kernels[] = "kernels";     // per kernel name
constexpr char Launchers[] = "launchers"; // per launching function
constexpr char DurationNsStats[] = "duration_ns";
constexpr char Function[] = "function";
constexpr char Quality[] = "quality";
// perfctl merge: merged[] holds each process's summary but its functions
// and threads (with "file", the summary read); a function's processes[]
// its figures per process; a thread its pid.
constexpr char Merged[] = "merged";
constexpr char MergedFile[] = "file";
constexpr char Processes[] = "processes";
} // namespace summary

} // namespace perfcc::schema

#endif // PERFCC_OUTPUTSCHEMA_H
