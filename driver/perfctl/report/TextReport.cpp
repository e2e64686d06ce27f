//===- TextReport.cpp - perfctl report as text or Markdown ----------------===//
#include "report/TextReport.h"

#include "report/Units.h"

#include <fmt/format.h>

#include <algorithm>

namespace perfcc::perfctl {

namespace {

std::string ns(TimeNs v) { return humanNs(double(v)); }
std::string ns(double v) { return humanNs(v); }

/// How many rows of \p n a ranked table shows.
std::size_t shown(std::size_t n, const ReportOptions &o) {
  return o.top == 0 ? n : std::min(n, o.top);
}

std::string countOf(std::uint64_t n, const char *one, const char *many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

Table functionTable(const TraceModel &model,
                    const std::vector<FunctionTime> &functions,
                    const ReportOptions &o) {
  Table t;
  t.header = {"function", "calls",     "self",      "self mean", "self p50",
              "self p99", "inclusive", "incl mean", "incl p50",  "incl p99"};
  t.nameColumns = {true};
  for (std::size_t i = 0; i < shown(functions.size(), o); ++i) {
    const FunctionTime &f = functions[i];
    t.rows.push_back(
        {functionLabel(model, f.name), std::to_string(f.exclusive.count),
         ns(f.exclusive.total), ns(f.exclusive.mean), ns(f.exclusive.p50),
         ns(f.exclusive.p99), ns(f.inclusive.total), ns(f.inclusive.mean),
         ns(f.inclusive.p50), ns(f.inclusive.p99)});
  }
  return t;
}

std::string threadLabel(const TraceModel &model, const ThreadFunctions &t) {
  std::string name =
      t.threadName == NoName ? "thread" : std::string(model.name(t.threadName));
  return fmt::format("{} (pid {}, tid {})", name, t.thread.pid, t.thread.tid);
}

void writeRun(Document &doc, const TraceModel &model, const TraceReport &r,
              const std::string &file) {
  const TraceMetadata &m = model.metadata;
  doc.title("perfctl report: " + file, /*top=*/true);
  std::vector<std::string> parts;
  if (!m.program.empty())
    parts.push_back("program " + m.program);
  if (m.pid)
    parts.push_back(fmt::format("pid {}", *m.pid));
  if (!m.version.empty())
    parts.push_back("perfcc " + m.version);
  if (!m.clock.empty())
    parts.push_back("clock " + m.clock);
  std::string run = parts.empty() ? "no metadata" : parts[0];
  for (std::size_t i = 1; i < parts.size(); ++i)
    run += ", " + parts[i];
  doc.line(fmt::format("{}; {} from the first event to the last", run,
                       ns(r.extent.length())));
  doc.title("Answer");
  for (const std::string &a : r.answer)
    doc.item(a);
}

void writeHot(Document &doc, const TraceModel &model, const TraceReport &r,
              const ReportOptions &o) {
  const HotFunctions &hot = r.hot;
  doc.title(fmt::format("Hottest functions by self time: {} on {}, {} of {}",
                        countOf(hot.calls, "call", "calls"),
                        countOf(r.hostThreads, "thread", "threads"),
                        o.top == 0 ? std::string("all")
                                   : fmt::format("top {}", o.top),
                        hot.process.size()));
  if (hot.process.empty()) {
    doc.line("no instrumented function calls in the trace");
    return;
  }
  doc.table(functionTable(model, hot.process, o));
  if (hot.threads.size() < 2)
    return;
  doc.title("Per thread");
  for (const ThreadFunctions &t : hot.threads) {
    doc.subtitle(fmt::format("{}: {}, {} in instrumented functions",
                             threadLabel(model, t),
                             countOf(t.calls, "call", "calls"), ns(t.busy)));
    doc.table(functionTable(model, t.functions, o));
  }
}

/// Wall against CPU time (a trace recorded with PERFCC_CPU_TIME): which
/// functions wait and which compute, most waiting (self wall less self
/// CPU) first.
void writeWallAgainstCpu(Document &doc, const TraceModel &model,
                         const TraceReport &r, const ReportOptions &o) {
  const HotFunctions &hot = r.hot;
  if (!hot.cpuTime || hot.process.empty())
    return;
  std::vector<FunctionTime> byWait = hot.process;
  auto waited = [](const FunctionTime &f) {
    return f.exclusive.total > f.cpuExclusive
               ? f.exclusive.total - f.cpuExclusive
               : TimeNs(0);
  };
  std::stable_sort(byWait.begin(), byWait.end(),
                   [&](const FunctionTime &a, const FunctionTime &b) {
                     return waited(a) > waited(b);
                   });
  doc.title("Wall against CPU time: which functions wait, which compute");
  doc.line("Self time is the call's own (its callees' taken out); off the CPU "
           "is self wall time less self CPU time: waiting on locks, I/O, "
           "sleep, the GPU, or for a CPU. Most waiting first.");
  Table t;
  t.header = {"function", "calls",         "self wall",      "self CPU",
              "off CPU",  "off CPU share", "inclusive wall", "inclusive CPU"};
  t.nameColumns = {true};
  for (std::size_t i = 0; i < shown(byWait.size(), o); ++i) {
    const FunctionTime &f = byWait[i];
    t.rows.push_back(
        {functionLabel(model, f.name), std::to_string(f.exclusive.count),
         ns(f.exclusive.total), ns(f.cpuExclusive), ns(waited(f)),
         fmt::format("{:.0f}%",
                     percent(double(waited(f)), double(f.exclusive.total))),
         ns(f.inclusive.total), ns(f.cpuInclusive)});
  }
  doc.table(t);
}

/// Bytes and FLOPs per second of the functions that reported their work
/// (perf_work), most time first.
void writeRoofline(Document &doc, const TraceModel &model, const TraceReport &r,
                   const ReportOptions &o) {
  if (r.roofline.empty())
    return;
  doc.title("Work per function: bytes moved and FLOPs done (perf_work)");
  doc.line("Per second of the function's inclusive time; FLOP/byte says which "
           "ceiling applies (below the machine's FLOP/s over its GB/s: the "
           "memory bandwidth). Most time first.");
  Table t;
  t.header = {"function", "calls", "inclusive", "bytes",
              "GB/s",     "FLOPs", "GFLOP/s",   "FLOP/byte"};
  t.nameColumns = {true};
  for (std::size_t i = 0; i < shown(r.roofline.size(), o); ++i) {
    const FunctionRooflineRow &w = r.roofline[i];
    t.rows.push_back(
        {functionLabel(model, w.name), std::to_string(w.calls), ns(w.inclusive),
         humanBytes(double(w.bytes)), fmt::format("{:.2f}", w.bytesPerS / 1e9),
         humanCount(double(w.flops)), fmt::format("{:.2f}", w.flopsPerS / 1e9),
         fmt::format("{:.2f}", w.flopsPerByte)});
  }
  doc.table(t);
}

void noGpu(Document &doc, const TraceModel &model) {
  std::string why;
  if (model.metadata.gpu && !model.metadata.gpu->cupti.empty())
    why = fmt::format(" (cupti {}{}{})", model.metadata.gpu->cupti,
                      model.metadata.gpu->reason.empty() ? "" : ": ",
                      model.metadata.gpu->reason);
  doc.line("no GPU activity in the trace" + why);
}

void writeGpuUsage(Document &doc, const TraceModel &model,
                   const TraceReport &r) {
  doc.title("GPU busy and idle");
  if (r.gpuRecords == 0 && r.devices.empty())
    return noGpu(doc, model);
  for (const DeviceReport &d : r.devices) {
    const DeviceUsage &u = d.usage;
    TimeNs window = u.window.length();
    doc.subtitle(fmt::format("GPU {}: {} on {}, window {}", u.device,
                             countOf(u.records, "record", "records"),
                             countOf(u.streams.size(), "stream", "streams"),
                             ns(window)));
    if (u.records) {
      doc.line(fmt::format(
          "busy {} ({}): compute {}, copy {}, memset {}; idle {} ({})",
          ns(u.busy), percentOf(double(u.busy), double(window)),
          ns(u.byKind.compute), ns(u.byKind.copy), ns(u.byKind.memset),
          ns(u.idle), percentOf(double(u.idle), double(window))));
    }
    if (u.syncs)
      doc.line(fmt::format("the host waited on it {}, {} in all "
                           "(cuda_sync; not GPU time)",
                           countOf(u.syncs, "time", "times"), ns(u.syncTime)));
    if (u.streams.empty())
      continue;
    Table t;
    t.header = {"stream",    "records",   "busy",  "busy %",    "idle between",
                "host wait", "short gap", "other", "queue max", "queue mean"};
    for (std::size_t i = 0; i < u.streams.size(); ++i) {
      const StreamUsage &s = u.streams[i];
      const QueueDepth &q = d.launch.streams[i];
      const StreamIdleBreakdown &b = s.idleBreakdown;
      t.rows.push_back({std::to_string(s.stream), std::to_string(s.records),
                        ns(s.busy), percentOf(double(s.busy), double(window)),
                        ns(b.total()), ns(b.hostWait.total),
                        ns(b.shortGap.total), ns(b.other.total),
                        std::to_string(q.max), fmt::format("{:.2f}", q.mean)});
    }
    doc.table(t);
  }
}

void writeIdle(Document &doc, const TraceModel &model, const TraceReport &r,
               const ReportOptions &o) {
  doc.title("GPU idle charged to host functions");
  if (r.gpuRecords == 0)
    return noGpu(doc, model);
  for (const DeviceReport &d : r.devices) {
    const DeviceIdleAttribution &a = d.idle;
    if (d.usage.records == 0)
      continue;
    doc.subtitle(fmt::format(
        "GPU {}: idle {} in {}: {} waiting on the host ({}), {} launch "
        "latency, {} unattributed ({})",
        a.device, ns(a.idle), countOf(a.gaps, "gap", "gaps"), ns(a.hostWait),
        countOf(a.hostWaitGaps, "gap", "gaps"), ns(a.launchLatency),
        ns(a.unattributed), countOf(a.unattributedGaps, "gap", "gaps")));
    if (a.functions.empty())
      continue;
    Table t;
    t.header = {"waiting on the host while in", "self", "% of window",
                "inclusive", "% of window"};
    t.nameColumns = {true};
    for (std::size_t i = 0; i < shown(a.functions.size(), o); ++i) {
      const IdleCharge &c = a.functions[i];
      t.rows.push_back({functionLabel(model, c.name), ns(c.self),
                        percentOf(double(c.self), double(a.window)),
                        ns(c.inclusive),
                        percentOf(double(c.inclusive), double(a.window))});
    }
    doc.table(t);
    if (a.largest.empty())
      continue;
    Table g;
    g.header = {"longest waits: at", "waiting", "then launch latency",
                "ended by",          "stream",  "mostly in"};
    g.nameColumns = {false, false, false, true, false, true};
    for (const IdleGap &gap : a.largest) {
      const GpuRecord &rec = model.gpuRecords[std::size_t(gap.endingRecord)];
      g.rows.push_back(
          {"+" + ns(gap.range.start - d.usage.window.start), ns(gap.hostWait),
           ns(gap.launchLatency), std::string(model.name(rec.name)),
           std::to_string(rec.stream), functionLabel(model, gap.mostlyIn)});
    }
    doc.table(g);
  }
}

void writeLaunch(Document &doc, const TraceModel &model, const TraceReport &r) {
  doc.title("Launch delay (record start - launch call end)");
  if (r.gpuRecords == 0)
    return noGpu(doc, model);
  Table t;
  t.header = {"device",
              "launched",
              "mean",
              "p50",
              "p99",
              "max",
              "started before the call ended"};
  for (const DeviceReport &d : r.devices) {
    const DurationStats &s = d.launch.delay;
    t.rows.push_back({fmt::format("GPU {}", d.launch.device),
                      std::to_string(s.count), ns(s.mean), ns(s.p50), ns(s.p99),
                      ns(s.max), std::to_string(d.launch.clipped)});
  }
  doc.table(t);
}

void writeKernels(Document &doc, const TraceModel &model, const TraceReport &r,
                  const ReportOptions &o) {
  doc.title(fmt::format("GPU time by kernel: {} of {}",
                        o.top == 0 ? std::string("all")
                                   : fmt::format("top {}", o.top),
                        r.kernels.byName.size()));
  if (r.gpuRecords == 0)
    return noGpu(doc, model);
  Table k;
  k.header = {"kernel", "kind", "count", "total", "mean", "p50", "p99"};
  k.nameColumns = {true};
  for (std::size_t i = 0; i < shown(r.kernels.byName.size(), o); ++i) {
    const KernelRow &row = r.kernels.byName[i];
    k.rows.push_back({std::string(model.name(row.name)), gpuKindName(row.kind),
                      std::to_string(row.time.count), ns(row.time.total),
                      ns(row.time.mean), ns(row.time.p50), ns(row.time.p99)});
  }
  doc.table(k);
  doc.subtitle("by launching function");
  Table l;
  l.header = {"launched by", "records", "total", "mean", "p50", "p99"};
  l.nameColumns = {true};
  for (std::size_t i = 0; i < shown(r.kernels.byLauncher.size(), o); ++i) {
    const LauncherRow &row = r.kernels.byLauncher[i];
    std::string who = row.kind == LauncherKind::Function
                          ? std::string(model.name(row.name))
                      : row.kind == LauncherKind::NoFunction
                          ? "(no instrumented function)"
                          : "(no launch call in the trace)";
    l.rows.push_back({who, std::to_string(row.time.count), ns(row.time.total),
                      ns(row.time.mean), ns(row.time.p50), ns(row.time.p99)});
  }
  doc.table(l);
}

std::string optionalCount(const std::optional<std::uint64_t> &v) {
  return v ? std::to_string(*v) : "?";
}

void writeQuality(Document &doc, const TraceReport &r) {
  const DataQuality &q = r.quality;
  doc.title("Data quality");
  doc.item(fmt::format(
      "runtime: {} dropped spans, {} depth overflows, {} "
      "unmatched exits, {} abandoned frames",
      optionalCount(q.droppedSpans), optionalCount(q.depthOverflows),
      optionalCount(q.unmatchedExits), optionalCount(q.abandonedFrames)));
  if (q.gpu)
    doc.item(fmt::format(
        "GPU collection: cupti {}{}{}; {} records, {} dropped, {} unmatched "
        "launches, {} unmatched GPU records, {} outside the run, {} starting "
        "before their launch, {} overlap rows, {} zero timestamps",
        q.gpu->cupti.empty() ? "?" : q.gpu->cupti,
        q.gpu->reason.empty() ? "" : ": ", q.gpu->reason,
        optionalCount(q.gpu->records), optionalCount(q.gpu->droppedRecords),
        optionalCount(q.gpu->unmatchedLaunches),
        optionalCount(q.gpu->unmatchedGpuRecords),
        optionalCount(q.gpu->recordsOutsideRun),
        optionalCount(q.gpu->startsBeforeLaunch),
        optionalCount(q.gpu->overlapRowsUsed),
        optionalCount(q.gpu->zeroTimestamps)));
  doc.item(fmt::format(
      "read: {} malformed and {} ignored events, {} negative durations, {} "
      "calls not nested, {} left by an exception, {} by a longjmp, {} "
      "unfinished",
      q.read.malformedEvents, q.read.ignoredEvents, q.read.negativeDurations,
      q.improperlyNested, q.unwoundCalls, q.abandonedCalls, q.unfinishedCalls));
  doc.item(fmt::format(
      "joined: {} GPU records without a launch call, {} launch calls "
      "without a GPU record (and {} made while capturing a graph), {} "
      "records starting before their launch, {} duplicate correlation ids, "
      "{} launched_by disagreeing with the nesting",
      q.recordsWithoutLaunch, q.launchesWithoutRecords, q.capturedLaunches,
      q.recordsBeforeLaunch, q.duplicateCorrelations, q.launchedByDisagrees));
  for (const std::string &w : q.warnings)
    doc.item("warning: " + w);
}

} // namespace

std::string renderReportDocument(const TraceModel &model,
                                 const TraceReport &report,
                                 const ReportOptions &options,
                                 const std::string &file, ReportStyle style) {
  Document doc(style);
  writeRun(doc, model, report, file);
  writeHot(doc, model, report, options);
  writeWallAgainstCpu(doc, model, report, options);
  writeRoofline(doc, model, report, options);
  writeGpuUsage(doc, model, report);
  writeIdle(doc, model, report, options);
  writeLaunch(doc, model, report);
  writeKernels(doc, model, report, options);
  writeQuality(doc, report);
  return doc.str();
}

} // namespace perfcc::perfctl
