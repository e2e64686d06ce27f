//===- perfrt_trace_writer.cpp - stream spans as Chrome trace events ------===//
#include "perfrt_noinstr.h"
PERFRT_NOINSTR_BEGIN

#include "perfrt_trace_writer.h"

#include "perfrt_clock.h"
#include "perfrt_gpu_output.h"
#include "perfrt_json.h"
#include "perfrt_output_files.h"
#include "perfrt_progress.h"
#include "perfrt_record.h"
#include "perfrt_registry.h"
#include "perfrt_retire.h"
#include "perfrt_runtime.h"
#include "perfrt_spill.h"
#include "perfrt_work.h"

#include "perfcc/OutputSchema.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace perfrt {

namespace key = perfcc::schema::trace;

namespace {

JsonOut out;
int traceFd = -1;
bool openFailed = false;
bool firstEvent = true;
char tracePath[4096];
uint64_t spillLostSpans = 0; // spans the spill file could not take

/// The functions that have a span in the trace, one bit per registry id
/// (128 KiB of zero pages until used): metadata's function table lists
/// them, so each span carries no file and line of its own.
constexpr uint32_t MaxFunctions = Registry::PageSize * Registry::MaxPages;
uint64_t spannedFunctions[MaxFunctions / 64 + 1];

void markSpanned(uint32_t fn) {
  spannedFunctions[fn / 64] |= uint64_t(1) << (fn % 64);
}
bool spanned(uint32_t fn) { return spannedFunctions[fn / 64] >> (fn % 64) & 1; }

/// Charges a function span to its thread's aggregates (the writer's table);
/// true for a function span, false for a delay or counter record.
bool chargeSpan(ThreadState *owner, const SpanRecord &r) {
  if (r.flags & SpanCpu) {
    if (FnStats *s = owner->spanStats.get(r.fn, owner->spanArena))
      s->addCpu(r.start, r.end);
    return false;
  }
  if (r.flags & (SpanDelay | SpanCounter))
    return false;
  if (FnStats *s = owner->spanStats.get(r.fn, owner->spanArena))
    s->add(r.end > r.start ? r.end - r.start : 0, r.exclusive);
  return true;
}

bool ensureOpen() {
  if (traceFd >= 0)
    return true;
  if (openFailed)
    return false;
  makeOutputDir();
  outputPath("trace", tracePath, sizeof tracePath);
  traceFd = openOutputFile(tracePath, 0644, false);
  if (traceFd < 0) {
    openFailed = true;
    return false;
  }
  out.setFd(traceFd);
  out.ch('{').str(key::Events).raw(":[\n");
  firstEvent = true;
  return true;
}

void beginEvent() {
  if (!firstEvent)
    out.raw(",\n");
  firstEvent = false;
}

/// A call; \p cpu, when not null, is its SpanCpu record.
void writeSpan(const SpanRecord &r, uint32_t tid, const SpanRecord *cpu) {
  if (r.fn == 0 || r.fn > gRegistry.size())
    return;
  const FunctionRecord &f = gRegistry.get(r.fn);
  uint64_t start = ticksToNs(r.start), end = ticksToNs(r.end);
  beginEvent();
  out.ch('{').key(key::Phase, true).str(key::PhaseComplete);
  out.key(key::Category).str(key::CategoryCpuOp);
  out.key(key::Name).str(f.name);
  out.key(key::Pid).u64(uint64_t(gRt.pid)).key(key::Tid).u64(tid);
  out.key(key::Ts).micros(start);
  out.key(key::Dur).micros(end > start ? end - start : 0);
  // The thread's CPU clock and the trace's clock disagree by a fraction of
  // a percent, and the probe's clock reads fall just outside the wall time:
  // never more CPU time than wall time.
  if (cpu)
    out.key(key::ThreadDur).micros(std::min(cpu->start, end - start));
  markSpanned(r.fn);
  // Arguments only where the call has some of its own: most have none, and
  // a call's file and line are its function's (metadata's table).
  bool args = false;
  auto arg = [&args](const char *name) -> JsonOut & {
    if (!args)
      out.key(key::Args).ch('{');
    out.key(name, !args);
    args = true;
    return out;
  };
  // The innermost call around CUDA API calls gets the id they share with it
  // and their GPU work (Kineto's External id).
  if (uint64_t external = gpuOnSpan(tid, start, end, r.fn))
    arg(key::ArgExternalId).u64(external);
  if (r.flags & SpanUnwind)
    arg(key::ArgUnwind).raw("true");
  if (r.flags & SpanAbandoned)
    arg(key::ArgAbandoned).raw("true");
  if (r.flags & SpanUnfinished)
    arg(key::ArgUnfinished).raw("true");
  out.raw(args ? "}}" : "}");
}

/// metadata's function table: every function with a span, once.
void writeFunctionTable() {
  out.key(key::MetaFunctions).ch('[');
  bool first = true;
  for (uint32_t fn = 1, n = gRegistry.size(); fn <= n; ++fn) {
    if (!spanned(fn))
      continue;
    const FunctionRecord &f = gRegistry.get(fn);
    out.raw(first ? "\n{" : ",\n{");
    first = false;
    out.key(key::Name, true).str(f.name);
    out.key(key::MetaFunctionMangled).str(f.mangled);
    out.key(key::ArgFile).str(f.file);
    out.key(key::ArgLine).u64(f.line);
    WorkTotals w;
    if (workOf(fn, w)) {
      out.key(key::MetaFunctionWork).ch('{');
      namespace work = perfcc::schema::summary;
      out.key(work::WorkBytes, true).u64(w.bytes);
      out.key(work::WorkFlops).u64(w.flops);
      out.key(work::WorkReports).u64(w.reports).ch('}');
    }
    out.ch('}');
  }
  out.ch(']');
}

/// A speed bump, nested in its function's span (category `delay`).
void writeDelay(const SpanRecord &r, uint32_t tid) {
  if (r.fn == 0 || r.fn > gRegistry.size())
    return;
  const FunctionRecord &f = gRegistry.get(r.fn);
  uint64_t start = ticksToNs(r.start), end = ticksToNs(r.end);
  beginEvent();
  out.ch('{').key(key::Phase, true).str(key::PhaseComplete);
  out.key(key::Category).str(key::CategoryDelay);
  out.key(key::Name).str(key::DelayEventName);
  out.key(key::Pid).u64(uint64_t(gRt.pid)).key(key::Tid).u64(tid);
  out.key(key::Ts).micros(start);
  out.key(key::Dur).micros(end > start ? end - start : 0);
  out.key(key::Args).ch('{').key(key::ArgFunction, true).str(f.name);
  out.key(key::ArgRequestedNs).u64(durationToNs(r.exclusive));
  if (r.flags & SpanHolding)
    out.key(key::ArgHolding).raw("true");
  out.raw("}}");
}

/// A progress point's running count, as a counter event.
void writeCounter(const SpanRecord &r, uint32_t tid) {
  if (r.fn == 0 || r.fn > progressPointCount())
    return;
  beginEvent();
  out.ch('{').key(key::Phase, true).str(key::PhaseCounter);
  out.key(key::Name).str(progressSlot(r.fn - 1).name);
  out.key(key::Pid).u64(uint64_t(gRt.pid)).key(key::Tid).u64(tid);
  out.key(key::Ts).micros(ticksToNs(r.start));
  out.key(key::Args).ch('{').key(key::ArgCounterValue, true).u64(r.exclusive);
  out.raw("}}");
}

/// A thread's kernel name, for threads the runtime has no state of.
const char *threadNameOf(uint32_t tid) {
  static char name[64];
  std::snprintf(name, sizeof name, "thread %u", tid);
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%u/comm", tid);
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return name;
  ssize_t n = ::read(fd, name, sizeof name - 1);
  ::close(fd);
  if (n > 0) {
    name[n] = '\0';
    if (name[n - 1] == '\n')
      name[n - 1] = '\0';
  } else {
    std::snprintf(name, sizeof name, "thread %u", tid);
  }
  return name;
}

void writeNameEvent(const char *what, uint32_t tid, const char *name) {
  beginEvent();
  out.ch('{').key(key::Phase, true).str(key::PhaseMetadata);
  out.key(key::Name).str(what);
  out.key(key::Pid).u64(uint64_t(gRt.pid)).key(key::Tid).u64(tid);
  out.key(key::Args).ch('{').key(key::ArgName, true).str(name).raw("}}");
}

/// Charges a chunk's spans not spilled yet to their thread's aggregates;
/// returns how many were calls (not delays or counters).
uint64_t chargeChunk(const SpanChunk *c) {
  uint32_t n = __atomic_load_n(&c->count, __ATOMIC_ACQUIRE);
  uint64_t calls = 0;
  for (uint32_t i = c->spilled; i < n && i < ChunkRecords; ++i)
    calls += chargeSpan(c->owner, c->records[i]);
  return calls;
}

/// Counts the calls of a chunk the ring overwrote: they were charged when
/// the writer took them, and are not in the trace.
void countEvicted(const SpanChunk *c) {
  for (uint32_t i = c->spilled; i < c->count && i < ChunkRecords; ++i)
    spillLostSpans +=
        !(c->records[i].flags & (SpanCpu | SpanDelay | SpanCounter));
}

/// Writes the chunk's records not spilled yet as trace events, charging
/// them to their thread's aggregates first when \p charge.
void convertRecords(SpanChunk *c, bool charge) {
  if (!ensureOpen())
    return;
  clockCalibrate();
  uint32_t n = __atomic_load_n(&c->count, __ATOMIC_ACQUIRE);
  for (uint32_t i = c->spilled; i < n; ++i) {
    const SpanRecord &r = c->records[i];
    if (charge)
      chargeSpan(c->owner, r);
    if (r.flags & SpanDelay)
      writeDelay(r, c->tid);
    else if (r.flags & SpanCounter)
      writeCounter(r, c->tid);
    else if (!(r.flags & SpanCpu)) // written with its span
      writeSpan(r, c->tid,
                i + 1 < n && (c->records[i + 1].flags & SpanCpu) &&
                        c->records[i + 1].fn == r.fn
                    ? &c->records[i + 1]
                    : nullptr);
  }
}

/// A chunk read back from the spill: charged when the writer took it.
void convertSpilledChunk(SpanChunk *c) { convertRecords(c, false); }

} // namespace

void traceSpillChunk(SpanChunk *c) {
  clockSample(); // the writer thread is off the hot path: check the clock
  uint32_t n = __atomic_load_n(&c->count, __ATOMIC_ACQUIRE);
  if (n <= c->spilled)
    return; // every record went to disk with a checkpoint
  // Charged as the writer takes them, in trace mode as in summary mode: an
  // exited thread's aggregates are whole once its chunks are taken, so the
  // writer can fold it (perfrt_retire.h). A chunk the file did not take is
  // counted as lost; one the ring overwrites, as it goes.
  uint64_t calls = chargeChunk(c);
  if (!spillChunk(c, c->spilled, n, countEvicted))
    spillLostSpans += calls;
}

void traceChargeChunk(SpanChunk *c) { chargeChunk(c); }

void traceConvertSpill() { spillConvert(convertSpilledChunk); }

void traceConvertChunk(SpanChunk *c) { convertRecords(c, true); }

bool traceFinish(char *path, unsigned pathSize) {
  bool ok = ensureOpen();
  std::snprintf(path, pathSize, "%s", tracePath);
  if (!ok)
    return false;
  clockCalibrate();
  gpuWriteTraceEvents(out, beginEvent);
  writeNameEvent(key::ProcessName, 0, gRt.program);
  uint64_t dropped = spillLostSpans, overflows = 0, unmatched = 0,
           abandoned = 0;
  for (ThreadState *t = allThreads(); t; t = t->next) {
    uint32_t phase = t->phase.load(std::memory_order_acquire);
    if (phase == uint32_t(ThreadPhase::Retired) ||
        phase == uint32_t(ThreadPhase::Group))
      continue; // named below, thread by thread
    char name[sizeof t->name];
    copyThreadName(t, name);
    writeNameEvent(key::ThreadName, t->tid, name[0] ? name : "thread");
    dropped += t->droppedSpans;
    overflows += t->depthOverflows;
    unmatched += t->unmatchedExits;
    abandoned += t->abandonedFrames;
  }
  forEachRetiredThread([](uint32_t tid, const char *name) {
    writeNameEvent(key::ThreadName, tid, name);
  });
  // A group's counters are its threads' (perfrt_retire.h).
  for (ThreadState *t = allThreads(); t; t = t->next)
    if (t->phase.load(std::memory_order_acquire) ==
        uint32_t(ThreadPhase::Group)) {
      dropped += t->droppedSpans;
      overflows += t->depthOverflows;
      unmatched += t->unmatchedExits;
      abandoned += t->abandonedFrames;
    }
  // Threads that made CUDA calls but ran no probe still get a name.
  uint32_t apiTids[256];
  uint32_t apiThreads = gpuApiOnlyThreads(apiTids, 256);
  for (uint32_t i = 0; i < apiThreads; ++i) {
    bool known = false;
    for (ThreadState *t = allThreads(); t && !known; t = t->next)
      known = t->tid == apiTids[i];
    if (!known)
      writeNameEvent(key::ThreadName, apiTids[i], threadNameOf(apiTids[i]));
  }
  out.raw("\n]").key(key::DisplayTimeUnit).str("ns");
  out.key(key::Metadata).ch('{');
  out.key(key::MetaVersion, true).str(PERFCC_VERSION_STRING);
  out.key(key::MetaProgram).str(gRt.program);
  out.key(key::MetaPid).u64(uint64_t(gRt.pid));
  out.key(key::MetaClock).str(gClock.reason);
  out.key(key::MetaClockDomain).str("CLOCK_MONOTONIC");
  out.key(key::MetaNsPerTick).dbl(gClock.useTsc ? gClock.nsPerTick : 1.0);
  uint32_t clockSamples = 0;
  uint64_t residual = clockFitMaxResidualNs(clockSamples);
  if (clockSamples) {
    out.key(key::MetaClockFitResidualNs).u64(residual);
    out.key(key::MetaClockFitSamples).u64(clockSamples);
  }
  out.key(key::MetaDroppedSpans).u64(dropped);
  out.key(key::MetaDepthOverflows).u64(overflows);
  out.key(key::MetaUnmatchedExits).u64(unmatched);
  out.key(key::MetaAbandonedFrames).u64(abandoned);
  if (gRt.flags.cpuTime)
    out.key(key::MetaCpuTime).raw("true");
  gpuWriteTraceMetadata(out);
  writeFunctionTable();
  out.raw("}}\n");
  out.flush();
  bool written = !out.failed();
  ::close(traceFd);
  traceFd = -1;
  out.setFd(-1);
  return written;
}

uint64_t traceDroppedSpans() { return spillLostSpans; }

void traceAfterFork() {
  // The spill file and the trace are the parent's.
  spillAfterFork();
  spillLostSpans = 0;
  // Drop the parent's unwritten bytes and its descriptor.
  out.setFd(-1);
  out.flush();
  if (traceFd >= 0)
    ::close(traceFd);
  traceFd = -1;
  openFailed = false;
  firstEvent = true;
  std::memset(spannedFunctions, 0, sizeof spannedFunctions);
}

} // namespace perfrt

PERFRT_NOINSTR_END
