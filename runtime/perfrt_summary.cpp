//===- perfrt_summary.cpp - write the summary JSON ------------------------===//
#include "perfrt_noinstr.h"
PERFRT_NOINSTR_BEGIN

#include "perfrt_summary.h"

#include "perfrt_clock.h"
#include "perfrt_delay.h"
#include "perfrt_gpu_output.h"
#include "perfrt_json.h"
#include "perfrt_output_files.h"
#include "perfrt_progress.h"
#include "perfrt_registry.h"
#include "perfrt_runtime.h"
#include "perfrt_speedup.h"
#include "perfrt_thread.h"
#include "perfrt_work.h"

#include "perfcc/OutputSchema.h"

#include "perf/perf.h"
#include "perfrt_trace_writer.h"

#include <algorithm>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace perfrt {

namespace key = perfcc::schema::summary;
namespace {

// Static, not on the stack: ~2.8 KiB each, and this may run in a signal
// handler on a small stack.
FnStats scratchStats, sum;

/// Both tables of a thread merged into \p out; false when \p fn has none.
bool statsOf(const ThreadState *t, uint32_t fn, FnStats &out) {
  const FnStats *own = t->stats.find(fn), *spans = t->spanStats.find(fn);
  if (!own && !spans)
    return false;
  out = FnStats{};
  if (own)
    out.merge(*own);
  if (spans)
    out.merge(*spans);
  return true;
}

/// A percentile from the histogram: a bucket's midpoint, which can lie
/// outside the values seen, so it is clamped to them (exact for one call).
uint64_t percentile(const Histogram &h, double q, uint64_t calls, uint64_t min,
                    uint64_t max) {
  uint64_t v = uint64_t(h.quantile(q, calls));
  v = v < min ? min : v;
  return durationToNs(v < max ? v : max);
}

void timeObject(JsonOut &out, const char *name, uint64_t total, uint64_t min,
                uint64_t max, const Histogram &h, uint64_t calls) {
  out.key(name).ch('{');
  out.key(key::Total, true).u64(durationToNs(total));
  out.key(key::Mean).u64(calls ? durationToNs(total / calls) : 0);
  out.key(key::P50).u64(percentile(h, 0.50, calls, min, max));
  out.key(key::P99).u64(percentile(h, 0.99, calls, min, max));
  out.key(key::Min).u64(durationToNs(min));
  out.key(key::Max).u64(durationToNs(max));
  out.ch('}');
}

void statsFields(JsonOut &out, const FnStats &s) {
  out.key(key::Calls).u64(s.calls);
  timeObject(out, key::InclusiveNs, s.inclTotal, s.inclMin, s.inclMax, s.incl,
             s.calls);
  timeObject(out, key::ExclusiveNs, s.exclTotal, s.exclMin, s.exclMax, s.excl,
             s.calls);
  if (gRt.flags.cpuTime) {
    out.key(key::CpuNs).ch('{');
    // Never more than the wall time (perfrt_trace_writer.cpp's writeSpan).
    out.key(key::Calls, true).u64(s.cpuCalls);
    out.key(key::CpuInclusive)
        .u64(std::min(s.cpuInclNs, durationToNs(s.inclTotal)));
    out.key(key::CpuExclusive)
        .u64(std::min(s.cpuExclNs, durationToNs(s.exclTotal)));
    out.ch('}');
  }
}

double ticksToSeconds(uint64_t ticks) {
  return double(durationToNs(ticks)) / 1e9;
}

void workFields(JsonOut &out, const WorkTotals &w) {
  out.key(key::WorkBytes, true).u64(w.bytes);
  out.key(key::WorkFlops).u64(w.flops);
  out.key(key::WorkReports).u64(w.reports);
}

/// What perf_work reported for \p fn's calls, and per second of their
/// inclusive time \p s (all threads); nothing when it reported none.
void writeWork(JsonOut &out, uint32_t fn, const FnStats &s) {
  WorkTotals w;
  if (!workOf(fn, w))
    return;
  double seconds = ticksToSeconds(s.inclTotal);
  out.key(key::Work).ch('{');
  workFields(out, w);
  out.key(key::WorkBytesPerS).dbl(seconds > 0 ? double(w.bytes) / seconds : 0);
  out.key(key::WorkFlopsPerS).dbl(seconds > 0 ? double(w.flops) / seconds : 0);
  out.key(key::WorkFlopsPerByte)
      .dbl(w.bytes ? double(w.flops) / double(w.bytes) : 0);
  out.ch('}');
}

/// The measurement window, what the speed bumps did in it, and the progress
/// points' counts and rates in it.
void writeWindowDelayProgress(JsonOut &out) {
  uint64_t now = nowTicks();
  uint64_t end = gDelay.windowEnd < now ? gDelay.windowEnd : now;
  uint64_t start = gDelay.windowStart < end ? gDelay.windowStart : end;
  double seconds = ticksToSeconds(end - start);
  out.key(key::Window).ch('{');
  out.key(key::StartNs, true).u64(ticksToNs(start));
  out.key(key::EndNs).u64(ticksToNs(end));
  out.key(key::DurationNs).u64(durationToNs(end - start));
  out.ch('}');

  out.key(key::Delay).ch('{');
  out.key(key::Armed, true).raw(gDelay.armed ? "true" : "false");
  out.key(key::DelayNs).u64(gDelay.delayNs);
  out.key(key::Frequency).u64(gDelay.frequency);
  out.key(key::DelayTargets).str(gRt.flags.delayTargets.c_str());
  out.key(key::Calibration).ch('{');
  out.key(key::ClockReadNs, true).dbl(gDelay.clockReadNs);
  out.key(key::MinDelayNs).dbl(gDelay.minDelayNs);
  out.ch('}');
  uint64_t calls = 0, delivered = 0;
  out.key(key::Functions).ch('[');
  bool first = true;
  for (uint32_t fn = 1; fn <= gRegistry.size(); ++fn) {
    if (!gRegistry.get(fn).delayed)
      continue;
    DelayStats sum{};
    for (ThreadState *t = allThreads(); t; t = t->next)
      if (const DelayStats *d = t->delays.find(fn))
        sum.merge(*d);
    calls += sum.delayed;
    delivered += durationToNs(sum.deliveredTicks);
    out.raw(first ? "" : ",").ch('{');
    first = false;
    out.key(key::Name, true).str(gRegistry.get(fn).name);
    out.key(key::CallsInWindow).u64(sum.eligible);
    out.key(key::DelayedCalls).u64(sum.delayed);
    out.key(key::RequestedNs).u64(sum.delayed * gDelay.delayNs);
    out.key(key::DeliveredNs).u64(durationToNs(sum.deliveredTicks));
    out.key(key::MeanErrorNs)
        .dbl(sum.delayed && gDelay.delayNs
                 ? double(durationToNs(sum.sumAbsErrorTicks)) /
                       double(sum.delayed)
                 : 0.0);
    out.key(key::WorstErrorNs)
        .u64(gDelay.delayNs ? durationToNs(sum.worstErrorTicks) : 0);
    out.key(key::HeldShare)
        .dbl(sum.workTicks ? double(sum.heldWorkTicks) / double(sum.workTicks)
                           : 0.0);
    out.key(key::PaidHolding).u64(sum.paidHolding);
    out.key(key::WorkNs).u64(durationToNs(sum.ownWorkTicks));
    out.key(key::WorkCalls).u64(sum.ownWorkCalls);
    out.ch('}');
  }
  out.ch(']');
  out.key(key::DelayedCalls).u64(calls);
  out.key(key::RequestedNs).u64(calls * gDelay.delayNs);
  out.key(key::DeliveredNs).u64(delivered);
  uint64_t mutexWait = 0, contended = 0;
  for (ThreadState *t = allThreads(); t; t = t->next) {
    mutexWait += t->locks.mutexWaitTicks;
    contended += t->locks.contendedLocks;
  }
  out.key(key::MutexWaitNs).u64(durationToNs(mutexWait));
  out.key(key::ContendedLocks).u64(contended);
  out.ch('}');

  // Virtual speedup: the program's effective time is its real time minus
  // the delay every thread was made to pay.
  uint64_t inserted = durationToNs(gSpeedup.insertedTicks.load());
  uint64_t windowNs = durationToNs(end - start);
  uint64_t effectiveNs = windowNs > inserted ? windowNs - inserted : 0;
  bool gpu = gSpeedup.on && speedupSawGpu();
  if (gSpeedup.on) {
    out.key(key::Speedup).ch('{');
    out.key(key::Percent, true).u64(gSpeedup.percent);
    out.key(key::InsertedNs).u64(inserted);
    out.key(key::PaidNs).u64(durationToNs(gSpeedup.paidTicks.load()));
    out.key(key::EffectiveDurationNs).u64(effectiveNs);
    out.key(key::Valid).raw(gpu ? "false" : "true");
    out.key(key::Reason)
        .str(
            gpu ? "the process loaded a CUDA driver: a GPU cannot be paused by "
                  "delaying CPU threads, so a virtual speedup of host code "
                  "predicts gains that do not exist; use speed bumps"
                : "");
    out.ch('}');
  }
  double effectiveSeconds = double(effectiveNs) / 1e9;

  out.key(key::Progress).ch('[');
  for (unsigned i = 0; i < progressPointCount(); ++i) {
    ProgressSlot &p = progressSlot(i);
    uint64_t inWindow = p.countInWindow.load(std::memory_order_relaxed);
    out.raw(i ? "," : "").ch('{');
    out.key(key::Name, true).str(p.name);
    bool latency = p.kind == PERF_PROGRESS_LATENCY;
    out.key(key::Kind).str(latency ? key::KindLatency : key::KindThroughput);
    if (latency) {
      out.key(key::Begins).u64(p.begins);
      out.key(key::Ends).u64(p.count.load(std::memory_order_relaxed));
      out.key(key::EndsInWindow).u64(inWindow);
      // Little's law: mean latency = mean requests in flight / completion
      // rate = time integral of in-flight requests / completions.
      out.key(key::MeanLatencyNs)
          .dbl(inWindow
                   ? double(durationToNs(p.inFlightTicks)) / double(inWindow)
                   : 0.0);
    } else {
      out.key(key::Count).u64(p.count.load(std::memory_order_relaxed));
      out.key(key::CountInWindow).u64(inWindow);
    }
    out.key(key::RatePerS).dbl(seconds > 0 ? double(inWindow) / seconds : 0.0);
    if (gSpeedup.on)
      out.key(key::VirtualRatePerS)
          .dbl(effectiveSeconds > 0 ? double(inWindow) / effectiveSeconds
                                    : 0.0);
    out.ch('}');
  }
  out.ch(']');
}

} // namespace

bool summaryWrite(char *path, unsigned pathSize, const char *traceFile) {
  makeOutputDir();
  outputPath("summary", path, pathSize);
  int fd = openOutputFile(path, 0644, false);
  if (fd < 0)
    return false;
  clockCalibrate();

  // Functions with calls, hottest (inclusive total) first. Sorting needs
  // scratch memory: mmap, since this may run in a signal handler.
  uint32_t n = gRegistry.size();
  size_t bytes = (size_t(n) + 1) * (sizeof(uint32_t) + sizeof(uint64_t));
  void *scratch = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (scratch == MAP_FAILED) {
    ::close(fd);
    return false;
  }
  uint64_t *incl = static_cast<uint64_t *>(scratch);
  uint32_t *order = reinterpret_cast<uint32_t *>(incl + n + 1);
  uint32_t used = 0;
  for (uint32_t fn = 1; fn <= n; ++fn) {
    uint64_t calls = 0, total = 0;
    for (ThreadState *t = allThreads(); t; t = t->next)
      if (statsOf(t, fn, scratchStats)) {
        calls += scratchStats.calls;
        total += scratchStats.inclTotal;
      }
    if (calls) {
      incl[fn] = total;
      order[used++] = fn;
    }
  }
  std::sort(order, order + used,
            [&](uint32_t a, uint32_t b) { return incl[a] > incl[b]; });

  static JsonOut out; // 64 KiB buffer: not on a signal handler's stack
  out.setFd(fd);
  uint64_t dropped = traceDroppedSpans(), overflows = 0, unmatched = 0,
           abandoned = 0;
  for (ThreadState *t = allThreads(); t; t = t->next) {
    dropped += t->droppedSpans;
    overflows += t->depthOverflows;
    unmatched += t->unmatchedExits;
    abandoned += t->abandonedFrames;
  }
  out.raw("{");
  out.key(key::Version, true).str(PERFCC_VERSION_STRING);
  out.key(key::Program).str(gRt.program);
  out.key(key::Pid).u64(uint64_t(gRt.pid));
  out.key(key::Mode).str(gRt.trace ? "trace" : "summary");
  out.key(key::TraceFile).str(traceFile ? traceFile : "");
  out.key(key::Clock).str(gClock.reason);
  out.key(key::CpuTime).raw(gRt.flags.cpuTime ? "true" : "false");
  if (gRt.flags.cpuTime)
    out.key(key::CpuReadNs).u64(gThreadCpuReadNs);
  out.key(key::DurationNs).u64(durationToNs(nowTicks() - gRt.startTicks));
  out.key(key::FunctionsRegistered).u64(n);
  out.key(key::Dropped).ch('{');
  out.key(key::DroppedSpans, true).u64(dropped);
  out.key(key::DroppedDepthOverflows).u64(overflows);
  out.key(key::DroppedUnmatchedExits).u64(unmatched);
  out.key(key::DroppedAbandonedFrames).u64(abandoned);
  out.ch('}');
  WorkTotals unattributed = workUnattributed();
  if (unattributed.reports) {
    out.key(key::WorkUnattributed).ch('{');
    workFields(out, unattributed);
    out.ch('}');
  }

  writeWindowDelayProgress(out);

  out.key(key::Functions).ch('[');
  for (uint32_t i = 0; i < used; ++i) {
    uint32_t fn = order[i];
    const FunctionRecord &f = gRegistry.get(fn);
    sum = FnStats{};
    for (ThreadState *t = allThreads(); t; t = t->next)
      if (statsOf(t, fn, scratchStats))
        sum.merge(scratchStats);
    out.raw(i ? ",\n" : "\n").ch('{');
    out.key(key::Name, true).str(f.name);
    out.key(key::Mangled).str(f.mangled);
    out.key(key::File).str(f.file);
    out.key(key::Line).u64(f.line);
    statsFields(out, sum);
    writeWork(out, fn, sum);
    out.key(key::Threads).ch('[');
    bool first = true;
    for (ThreadState *t = allThreads(); t; t = t->next) {
      if (!statsOf(t, fn, scratchStats) || !scratchStats.calls)
        continue;
      out.raw(first ? "" : ",").ch('{');
      first = false;
      out.key(key::Tid, true).u64(t->tid);
      statsFields(out, scratchStats);
      out.ch('}');
    }
    out.raw("]}");
  }
  out.raw("\n]");

  out.key(key::Threads).ch('[');
  bool first = true;
  for (ThreadState *t = allThreads(); t; t = t->next) {
    if (t->phase.load(std::memory_order_acquire) ==
        uint32_t(ThreadPhase::Retired))
      continue; // in its group's entry
    uint64_t calls = 0;
    for (uint32_t fn = 1; fn <= n; ++fn) {
      const FnStats *own = t->stats.find(fn), *spans = t->spanStats.find(fn);
      calls += (own ? own->calls : 0) + (spans ? spans->calls : 0);
    }
    out.raw(first ? "\n" : ",\n").ch('{');
    first = false;
    out.key(key::Tid, true).u64(t->tid);
    char name[sizeof t->name];
    copyThreadName(t, name);
    out.key(key::Name).str(name[0] ? name : "thread");
    out.key(key::Calls).u64(calls);
    out.key(key::ThreadDroppedSpans).u64(t->droppedSpans);
    // Which threads paid a virtual speedup's pauses: one on the critical
    // path that pays turns a prediction low.
    if (gSpeedup.on)
      out.key(key::ThreadSpeedupPaidNs).u64(durationToNs(t->speedupPaidTicks));
    // Which threads waited for a mutex: a wait on the critical path is lost
    // throughput, one off it is slack.
    if (locksArmed()) {
      out.key(key::MutexWaitNs).u64(durationToNs(t->locks.mutexWaitTicks));
      out.key(key::ContendedLocks).u64(t->locks.contendedLocks);
    }
    if (t->foldedThreads)
      out.key(key::FoldedThreads).u64(t->foldedThreads);
    out.ch('}');
  }
  out.raw("\n]");
  gpuWriteSummary(out);
  out.raw("}\n");
  out.flush();
  bool ok = !out.failed();
  out.setFd(-1);
  ::close(fd);
  munmap(scratch, bytes);
  return ok;
}

} // namespace perfrt

PERFRT_NOINSTR_END
