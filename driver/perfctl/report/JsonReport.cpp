//===- JsonReport.cpp - perfctl report --json -----------------------------===//
#include "report/JsonReport.h"

#include "report/ReportKeys.h"
#include "report/Units.h"

#include <algorithm>
#include <cmath>

namespace perfcc::perfctl {

namespace key = reportkey;
using json = nlohmann::ordered_json;

namespace {

std::size_t shown(std::size_t n, const ReportOptions &o) {
  return o.top == 0 ? n : std::min(n, o.top);
}

/// A percentage rounded to 0.01, so the file does not change with the
/// last bits of a division.
json pct(double part, double whole) {
  return std::round(percent(part, whole) * 100.0) / 100.0;
}

json nameOrNull(const TraceModel &model, NameId name) {
  return name == NoName ? json(nullptr) : json(std::string(model.name(name)));
}

json optionalCount(const std::optional<std::uint64_t> &v) {
  return v ? json(*v) : json(nullptr);
}

json stats(const DurationStats &s) {
  return json{{key::Total, s.total}, {key::Mean, s.mean}, {key::P50, s.p50},
              {key::P99, s.p99},     {key::Min, s.min},   {key::Max, s.max}};
}

json range(const TimeRange &r) {
  return json{
      {key::Start, r.start}, {key::End, r.end}, {key::Duration, r.length()}};
}

json functions(const TraceModel &model, const std::vector<FunctionTime> &fs,
               const ReportOptions &o, bool cpuTime) {
  json out = json::array();
  for (std::size_t i = 0; i < shown(fs.size(), o); ++i) {
    json f{{key::Name, nameOrNull(model, fs[i].name)},
           {key::Calls, fs[i].exclusive.count},
           {key::InclusiveNs, stats(fs[i].inclusive)},
           {key::ExclusiveNs, stats(fs[i].exclusive)}};
    if (cpuTime)
      f[key::CpuNs] = json{{key::CpuInclusive, fs[i].cpuInclusive},
                           {key::CpuExclusive, fs[i].cpuExclusive}};
    out.push_back(std::move(f));
  }
  return out;
}

json work(const TraceModel &model, const std::vector<FunctionRooflineRow> &rows,
          const ReportOptions &o) {
  json out = json::array();
  for (std::size_t i = 0; i < shown(rows.size(), o); ++i) {
    const FunctionRooflineRow &w = rows[i];
    out.push_back(json{{key::Name, nameOrNull(model, w.name)},
                       {key::Calls, w.calls},
                       {key::InclusiveNs, w.inclusive},
                       {key::WorkBytes, w.bytes},
                       {key::WorkFlops, w.flops},
                       {key::WorkReports, w.reports},
                       {key::WorkBytesPerS, w.bytesPerS},
                       {key::WorkFlopsPerS, w.flopsPerS},
                       {key::WorkFlopsPerByte, w.flopsPerByte}});
  }
  return out;
}

json host(const TraceModel &model, const TraceReport &r,
          const ReportOptions &o) {
  json threads = json::array();
  for (const ThreadFunctions &t : r.hot.threads)
    threads.push_back(json{
        {key::Pid, t.thread.pid},
        {key::Tid, t.thread.tid},
        {key::Name, nameOrNull(model, t.threadName)},
        {key::Calls, t.calls},
        {key::BusyNs, t.busy},
        {key::FunctionCount, t.functions.size()},
        {key::Functions, functions(model, t.functions, o, r.hot.cpuTime)}});
  return json{
      {key::Threads, r.hostThreads},
      {key::CpuTime, r.hot.cpuTime},
      {key::Calls, r.hot.calls},
      {key::BusyNs, r.hot.busy},
      {key::FunctionCount, r.hot.process.size()},
      {key::Functions, functions(model, r.hot.process, o, r.hot.cpuTime)},
      {key::PerThread, threads},
      {key::Work, work(model, r.roofline, o)}};
}

json byKind(const BusyByKind &b) {
  return json{
      {key::Compute, b.compute}, {key::Copy, b.copy}, {key::Memset, b.memset}};
}

json gaps(const GapTotal &g) {
  return json{{key::Count, g.count}, {key::TotalNs, g.total}};
}

json device(const TraceModel &model, const DeviceReport &d,
            const ReportOptions &o) {
  const DeviceUsage &u = d.usage;
  double window = double(u.window.length());
  json streams = json::array();
  for (std::size_t i = 0; i < u.streams.size(); ++i) {
    const StreamUsage &s = u.streams[i];
    const QueueDepth &q = d.launch.streams[i];
    streams.push_back(
        json{{key::Stream, s.stream},
             {key::Records, s.records},
             {key::BusyNs, s.busy},
             {key::IdleNs, s.idle},
             {key::BusyPercent, pct(double(s.busy), window)},
             {key::BusyByKindNs, byKind(s.byKind)},
             {key::IdleBreakdown,
              json{{key::HostWait, gaps(s.idleBreakdown.hostWait)},
                   {key::ShortGap, gaps(s.idleBreakdown.shortGap)},
                   {key::Other, gaps(s.idleBreakdown.other)}}},
             {key::QueueDepth,
              json{{key::Launches, q.launches},
                   {key::Max, q.max},
                   {key::Mean, std::round(q.mean * 1000) / 1000}}}});
  }
  const DeviceIdleAttribution &a = d.idle;
  json charged = json::array();
  for (std::size_t i = 0; i < shown(a.functions.size(), o); ++i) {
    const IdleCharge &c = a.functions[i];
    charged.push_back(json{
        {key::Name, nameOrNull(model, c.name)},
        {key::SelfNs, c.self},
        {key::InclusiveNs, c.inclusive},
        {key::SelfPercentOfWindow, pct(double(c.self), double(a.window))}});
  }
  json largest = json::array();
  for (const IdleGap &g : a.largest) {
    const GpuRecord &rec = model.gpuRecords[std::size_t(g.endingRecord)];
    largest.push_back(json{{key::StartNs, g.range.start},
                           {key::EndNs, g.range.end},
                           {key::HostWaitNs, g.hostWait},
                           {key::LaunchLatencyNs, g.launchLatency},
                           {key::Record, std::string(model.name(rec.name))},
                           {key::Stream, rec.stream},
                           {key::MostlyIn, nameOrNull(model, g.mostlyIn)}});
  }
  json delay = stats(d.launch.delay);
  delay[key::Count] = d.launch.delay.count;
  delay[key::Clipped] = d.launch.clipped;
  return json{
      {key::Device, u.device},
      {key::Records, u.records},
      {key::WindowNs, range(u.window)},
      {key::BusyNs, u.busy},
      {key::IdleNs, u.idle},
      {key::BusyPercent, pct(double(u.busy), window)},
      {key::IdlePercent, pct(double(u.idle), window)},
      {key::BusyByKindNs, byKind(u.byKind)},
      {key::Syncs, json{{key::Count, u.syncs}, {key::TotalNs, u.syncTime}}},
      {key::Streams, streams},
      {key::IdleAttribution,
       json{{key::IdleNs, a.idle},
            {key::Gaps, a.gaps},
            {key::HostWaitNs, a.hostWait},
            {key::HostWaitGaps, a.hostWaitGaps},
            {key::LaunchLatencyNs, a.launchLatency},
            {key::GraphLaunchLatencyNs, a.graphLaunchLatency},
            {key::UnattributedNs, a.unattributed},
            {key::UnattributedGaps, a.unattributedGaps},
            {key::Functions, charged},
            {key::LargestWaits, largest}}},
      {key::LaunchDelayNs, delay}};
}

json gpu(const TraceModel &model, const TraceReport &r,
         const ReportOptions &o) {
  json devices = json::array();
  for (const DeviceReport &d : r.devices)
    devices.push_back(device(model, d, o));
  json kernels = json::array();
  for (std::size_t i = 0; i < shown(r.kernels.byName.size(), o); ++i) {
    const KernelRow &k = r.kernels.byName[i];
    json row = {{key::Name, std::string(model.name(k.name))},
                {key::Kind, gpuKindName(k.kind)},
                {key::Count, k.time.count},
                {key::DurationNs, stats(k.time)}};
    kernels.push_back(row);
  }
  json launchers = json::array();
  for (std::size_t i = 0; i < shown(r.kernels.byLauncher.size(), o); ++i) {
    const LauncherRow &l = r.kernels.byLauncher[i];
    const char *kind = l.kind == LauncherKind::Function ? key::LauncherFunction
                       : l.kind == LauncherKind::NoFunction
                           ? key::LauncherNoFunction
                           : key::LauncherNoLaunch;
    launchers.push_back(json{{key::Function, nameOrNull(model, l.name)},
                             {key::Launcher, kind},
                             {key::Count, l.time.count},
                             {key::DurationNs, stats(l.time)}});
  }
  return json{
      {key::Records, r.gpuRecords}, {key::ApiCalls, r.apiCalls},
      {key::Devices, devices},      {key::KernelCount, r.kernels.byName.size()},
      {key::Kernels, kernels},      {key::Launchers, launchers}};
}

json quality(const TraceModel &model, const TraceReport &r) {
  const DataQuality &q = r.quality;
  namespace trace = schema::trace;
  json gpuBlock = nullptr;
  if (auto it = model.metadata.raw.find(trace::MetaGpu);
      it != model.metadata.raw.end() && it->is_object())
    gpuBlock = json::parse(it->dump());
  return json{
      {key::Runtime,
       json{{trace::MetaDroppedSpans, optionalCount(q.droppedSpans)},
            {trace::MetaDepthOverflows, optionalCount(q.depthOverflows)},
            {trace::MetaUnmatchedExits, optionalCount(q.unmatchedExits)},
            {trace::MetaAbandonedFrames, optionalCount(q.abandonedFrames)}}},
      {key::Gpu, gpuBlock},
      {key::Reader,
       json{{key::MalformedEvents, q.read.malformedEvents},
            {key::IgnoredEvents, q.read.ignoredEvents},
            {key::NegativeDurations, q.read.negativeDurations},
            {key::ImproperlyNested, q.improperlyNested},
            {key::UnwoundCalls, q.unwoundCalls},
            {key::AbandonedCalls, q.abandonedCalls},
            {key::UnfinishedCalls, q.unfinishedCalls},
            {key::RecordsWithoutLaunch, q.recordsWithoutLaunch},
            {key::LaunchesWithoutRecords, q.launchesWithoutRecords},
            {key::CapturedLaunches, q.capturedLaunches},
            {key::RecordsBeforeLaunch, q.recordsBeforeLaunch},
            {key::DuplicateCorrelations, q.duplicateCorrelations},
            {key::LaunchedByDisagrees, q.launchedByDisagrees},
            {key::GraphLaunches, json{{key::Count, q.graphLaunches},
                                      {key::Records, q.graphLaunchRecords},
                                      {key::HostNs, q.graphLaunchHost}}}}},
      {key::Warnings, q.warnings}};
}

} // namespace

json reportJson(const TraceModel &model, const TraceReport &report,
                const ReportOptions &options, const std::string &file) {
  const TraceMetadata &m = model.metadata;
  json run = {
      {key::Program, m.program.empty() ? json(nullptr) : json(m.program)},
      {key::Pid, m.pid ? json(*m.pid) : json(nullptr)},
      {key::PerfccVersion, m.version.empty() ? json(nullptr) : json(m.version)},
      {key::Clock, m.clock.empty() ? json(nullptr) : json(m.clock)}};
  return json{{key::Version, key::ReportVersion},
              {key::Trace, file},
              {key::Run, run},
              {key::Settings, json{{key::Top, options.top},
                                   {key::ShortGapNs, options.shortGapNs}}},
              {key::ExtentNs, range(report.extent)},
              {key::Answer, report.answer},
              {key::Host, host(model, report, options)},
              {key::Gpu, gpu(model, report, options)},
              {key::Quality, quality(model, report)}};
}

} // namespace perfcc::perfctl
