//===- ReportAnalysisTest.cpp - perfctl report's analyses on known traces -===//
//
// Synthetic traces whose answers are known by construction: a stream with a
// host-wait, a short and an other gap; two streams overlapping (the device
// idle only where both are); busy time by kind; a host function whose stall
// is exactly the device's host-wait idle while another, hidden behind a long
// kernel, is charged nothing; a graph launch fanning out to three kernels;
// unmatched launches and records; nesting for exclusive time; and reports
// that do not change when the file's events are shuffled.
//
//===----------------------------------------------------------------------===//
#include "report/Analysis.h"
#include "report/DurationStats.h"
#include "report/JsonReport.h"
#include "report/ReportKeys.h"
#include "report/TextReport.h"
#include "report/ThreadTimeline.h"
#include "report/TimeRanges.h"
#include "report/Units.h"
#include "trace/TraceReader.h"

#include "ParsedTrace.h"
#include "TraceBuilder.h"

#include <gtest/gtest.h>

using namespace perfcc::perfctl;
using nlohmann::json;
using perfcc::perfctl::test::parsedTrace;
using perfcc::perfctl::test::TraceBuilder;
namespace k = perfcc::schema::trace;
namespace rk = perfcc::perfctl::reportkey;

namespace {

TraceReport analyze(const TraceModel &model, TimeNs shortGap = 30) {
  ReportOptions options;
  options.shortGapNs = shortGap;
  return analyzeTrace(model, options);
}

const FunctionTime *function(const TraceModel &m,
                             const std::vector<FunctionTime> &fs,
                             const std::string &name) {
  for (const FunctionTime &f : fs)
    if (m.name(f.name) == name)
      return &f;
  return nullptr;
}

const IdleCharge *charge(const TraceModel &m, const DeviceIdleAttribution &a,
                         const std::string &name) {
  for (const IdleCharge &c : a.functions)
    if ((c.name == NoName && name.empty()) ||
        (c.name != NoName && m.name(c.name) == name))
      return &c;
  return nullptr;
}

/// A stream whose gaps are known: A; B launched after A ended (host wait,
/// 100 ns); C launched long before, 10 ns after B (short); D launched long
/// before, 90 ns after C (other); E without a launch, 50 ns after D (other).
TraceBuilder streamWithKnownGaps() {
  TraceBuilder b;
  b.api("cudaLaunchKernel", 1, 0, 10, 1).kernel("A", 7, 20, 100, 1);
  b.api("cudaLaunchKernel", 1, 150, 160, 2).kernel("B", 7, 200, 300, 2);
  b.api("cudaLaunchKernel", 1, 170, 180, 3).kernel("C", 7, 310, 400, 3);
  b.api("cudaLaunchKernel", 1, 190, 195, 4).kernel("D", 7, 490, 500, 4);
  b.kernel("E", 7, 550, 600, -1);
  return b;
}

/// One step of a loop feeding a GPU: `launch` starts a 5 us kernel, `hidden`
/// runs while it does, `wait` synchronizes, then `stall` keeps the host busy
/// 3 us with the GPU idle, and `step` itself launches the next kernel the
/// instant the stall ends.
TraceBuilder stallingHost(std::int64_t tid = 1) {
  TraceBuilder b;
  b.cpuOp("step", tid, 0, 10000)
      .cpuOp("launch", tid, 0, 100)
      .api("cudaLaunchKernel", tid, 50, 60, 1)
      .kernel("K1", 7, 100, 5100, 1)
      .cpuOp("hidden", tid, 200, 4000)
      .cpuOp("wait", tid, 4000, 5100)
      .api("cudaStreamSynchronize", tid, 4000, 5100, 9)
      .sync(0, 7, 4000, 5100, 9)
      .cpuOp("stall", tid, 5100, 8100)
      .api("cudaLaunchKernel", tid, 8100, 8110, 2)
      .kernel("K2", 7, 8200, 9000, 2);
  return b;
}

} // namespace

TEST(ReportAnalysisTest, StreamGapsAreHostWaitShortOrOther) {
  TraceModel m = parsedTrace(streamWithKnownGaps().text());
  TraceReport r = analyze(m);
  ASSERT_EQ(r.devices.size(), 1u);
  ASSERT_EQ(r.devices[0].usage.streams.size(), 1u);
  const StreamIdleBreakdown &idle = r.devices[0].usage.streams[0].idleBreakdown;
  EXPECT_EQ(idle.hostWait.count, 1u);
  EXPECT_EQ(idle.hostWait.total, 100);
  EXPECT_EQ(idle.shortGap.count, 1u);
  EXPECT_EQ(idle.shortGap.total, 10);
  EXPECT_EQ(idle.other.count, 2u);
  EXPECT_EQ(idle.other.total, 140);
  EXPECT_EQ(idle.total(), 250);

  // A longer threshold moves the other gaps that are not host wait.
  TraceReport wide = analyze(m, 100);
  const StreamIdleBreakdown &w = wide.devices[0].usage.streams[0].idleBreakdown;
  EXPECT_EQ(w.hostWait.total, 100);
  EXPECT_EQ(w.shortGap.count, 3u);
  EXPECT_EQ(w.shortGap.total, 150);
  EXPECT_EQ(w.other.count, 0u);

  // The device: window 20..600, busy 330.
  const DeviceUsage &u = r.devices[0].usage;
  EXPECT_EQ(u.window.start, 20);
  EXPECT_EQ(u.window.end, 600);
  EXPECT_EQ(u.busy, 330);
  EXPECT_EQ(u.idle, 250);
  // Charged per device gap: B's gap waited on the host until B's launch
  // began (50 ns), then 50 ns of launch latency; C's and D's gaps are all
  // latency (launched long before); E's gap has no launch.
  const DeviceIdleAttribution &a = r.devices[0].idle;
  EXPECT_EQ(a.gaps, 4u);
  EXPECT_EQ(a.idle, 250);
  EXPECT_EQ(a.hostWait, 50);
  EXPECT_EQ(a.hostWaitGaps, 1u);
  EXPECT_EQ(a.launchLatency, 50 + 10 + 90);
  EXPECT_EQ(a.unattributed, 50);
  EXPECT_EQ(a.unattributedGaps, 1u);
}

TEST(ReportAnalysisTest, TheDeviceIsIdleOnlyWhereEveryStreamIs) {
  TraceBuilder b;
  b.kernel("s1a", 1, 0, 100, -1)
      .kernel("s1b", 1, 200, 300, -1)
      .kernel("s2a", 2, 50, 250, -1)
      .api("cudaLaunchKernel", 5, 350, 360, 1)
      .kernel("s2b", 2, 400, 450, 1);
  TraceModel m = parsedTrace(b.text());
  TraceReport r = analyze(m);
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceUsage &u = r.devices[0].usage;
  EXPECT_EQ(u.window.length(), 450);
  EXPECT_EQ(u.busy, 350);
  EXPECT_EQ(u.idle, 100); // 300..400 only: stream 1 idles at 100..200 too
  ASSERT_EQ(u.streams.size(), 2u);
  EXPECT_EQ(u.streams[0].stream, 1);
  EXPECT_EQ(u.streams[0].busy, 200);
  EXPECT_EQ(u.streams[0].idle, 250);
  EXPECT_EQ(u.streams[1].busy, 250);
  EXPECT_EQ(u.streams[1].idle, 200);
  // The one device gap ends with s2b, launched at 350 from a thread with
  // no instrumented function: 50 ns waiting on the host, charged to none.
  const DeviceIdleAttribution &a = r.devices[0].idle;
  EXPECT_EQ(a.gaps, 1u);
  EXPECT_EQ(a.hostWait, 50);
  EXPECT_EQ(a.launchLatency, 50);
  const IdleCharge *none = charge(m, a, "");
  ASSERT_NE(none, nullptr);
  EXPECT_EQ(none->self, 50);
}

TEST(ReportAnalysisTest, BusyTimeByKindIsAPartition) {
  TraceBuilder b;
  b.kernel("k", 1, 0, 100, -1)
      .gpu(k::CategoryMemcpy, "copy", 0, 2, 50, 150, -1)
      .gpu(k::CategoryMemset, "set", 0, 3, 140, 160, -1);
  TraceReport r = analyze(parsedTrace(b.text()));
  const DeviceUsage &u = r.devices[0].usage;
  EXPECT_EQ(u.busy, 160);
  EXPECT_EQ(u.byKind.compute, 100); // every instant a kernel runs
  EXPECT_EQ(u.byKind.copy, 50);     // copying, no kernel: 100..150
  EXPECT_EQ(u.byKind.memset, 10);   // only the memset: 150..160
  EXPECT_EQ(u.byKind.compute + u.byKind.copy + u.byKind.memset, u.busy);
}

TEST(ReportAnalysisTest, AStallIsChargedExactlyTheIdleItCaused) {
  TraceModel m = parsedTrace(stallingHost().text());
  TraceReport r = analyze(m);
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceUsage &u = r.devices[0].usage;
  EXPECT_EQ(u.window.length(), 8900);
  EXPECT_EQ(u.idle, 3100);
  EXPECT_EQ(u.syncs, 1u);
  EXPECT_EQ(u.syncTime, 1100);
  const DeviceIdleAttribution &a = r.devices[0].idle;
  EXPECT_EQ(a.gaps, 1u);
  EXPECT_EQ(a.hostWait, 3000); // 5100..8100: exactly the stall
  EXPECT_EQ(a.launchLatency, 100);
  const IdleCharge *stall = charge(m, a, "stall");
  ASSERT_NE(stall, nullptr);
  EXPECT_EQ(stall->self, 3000);
  EXPECT_EQ(stall->inclusive, 3000);
  const IdleCharge *step = charge(m, a, "step");
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->self, 0);
  EXPECT_EQ(step->inclusive, 3000);
  // hidden ran as long, but behind a busy GPU: nothing.
  EXPECT_EQ(charge(m, a, "hidden"), nullptr);
  EXPECT_EQ(charge(m, a, ""), nullptr);
  ASSERT_EQ(a.functions.size(), 2u);
  EXPECT_EQ(m.name(a.functions[0].name), "stall");
  ASSERT_EQ(a.largest.size(), 1u);
  EXPECT_EQ(m.name(a.largest[0].mostlyIn), "stall");
  EXPECT_EQ(a.largest[0].hostWait, 3000);
  ASSERT_FALSE(r.answer.empty());
  EXPECT_EQ(r.answer[0], "GPU 0 idle 3.00 us (34% of its 8.90 us window) "
                         "waiting on the host while in stall");

  // Kernels by launcher: the innermost call around each launch.
  ASSERT_EQ(r.kernels.byLauncher.size(), 2u);
  EXPECT_EQ(m.name(r.kernels.byLauncher[0].name), "launch");
  EXPECT_EQ(r.kernels.byLauncher[0].time.total, 5000);
  EXPECT_EQ(m.name(r.kernels.byLauncher[1].name), "step");
  EXPECT_EQ(r.kernels.byLauncher[1].time.total, 800);
}

TEST(ReportAnalysisTest, AStallOnAnotherThreadIsChargedToIt) {
  // The launching thread decides: the same schedule on thread 2, and a
  // thread 1 busy all along in a function that launches nothing.
  TraceBuilder b = stallingHost(2);
  b.cpuOp("bystander", 1, 0, 10000);
  TraceModel m = parsedTrace(b.text());
  TraceReport r = analyze(m);
  const DeviceIdleAttribution &a = r.devices[0].idle;
  EXPECT_EQ(charge(m, a, "stall")->self, 3000);
  EXPECT_EQ(charge(m, a, "bystander"), nullptr);
}

TEST(ReportAnalysisTest, AGraphLaunchFansOutToThreeKernels) {
  TraceBuilder b;
  json graph = {{k::ArgGraphId, 4}, {k::ArgCapturedBy, "capture"}};
  b.cpuOp("replay", 1, 0, 1000)
      .api("cudaGraphLaunch", 1, 100, 110, 7)
      .kernel("node_a", 3, 200, 300, 7, graph)
      .kernel("node_b", 3, 300, 400, 7, graph)
      .kernel("node_c", 3, 400, 500, 7, graph);
  TraceModel m = parsedTrace(b.text());
  TraceReport r = analyze(m);
  ASSERT_EQ(r.kernels.byLauncher.size(), 1u);
  EXPECT_EQ(m.name(r.kernels.byLauncher[0].name), "replay");
  EXPECT_EQ(r.kernels.byLauncher[0].time.count, 3u);
  EXPECT_EQ(r.kernels.byLauncher[0].time.total, 300);
  EXPECT_EQ(r.kernels.byName.size(), 3u);
  // Launch delay: each record's start minus the one call's end.
  const DeviceLaunchDelay &d = r.devices[0].launch;
  EXPECT_EQ(d.delay.count, 3u);
  EXPECT_EQ(d.delay.total, 90 + 190 + 290);
  EXPECT_EQ(d.delay.p50, 190);
  EXPECT_EQ(d.delay.max, 290);
  EXPECT_EQ(d.clipped, 0u);
  // Queue depth: 3 at the call, then one fewer at each start: 3 for 100
  // ns, 2 for 100, 1 for 100.
  ASSERT_EQ(d.streams.size(), 1u);
  EXPECT_EQ(d.streams[0].launches, 3u);
  EXPECT_EQ(d.streams[0].max, 3);
  EXPECT_DOUBLE_EQ(d.streams[0].mean, 2.0);
  EXPECT_EQ(r.quality.recordsWithoutLaunch, 0u);
  EXPECT_EQ(r.quality.launchesWithoutRecords, 0u);
  EXPECT_EQ(r.devices[0].idle.gaps, 0u);
  // Three nodes a launch: what CUPTI adds to it is not worth a word.
  EXPECT_EQ(r.quality.graphLaunches, 1u);
  EXPECT_EQ(r.quality.graphLaunchRecords, 3u);
  for (const std::string &w : r.quality.warnings)
    EXPECT_EQ(w.find("CUDA graph"), std::string::npos) << w;
}

TEST(ReportAnalysisTest,
     ARecordOfNoLengthAtTheWindowsEdgeLeavesNoIdleUncharged) {
  // Found by report_fuzzer: a kernel of no length at 0 set the window's
  // start, the next began at 1000, and the idle between them was the
  // device's but in no gap, so the attribution's parts did not add up.
  TraceBuilder b;
  b.cpuOp("feed", 1, 0, 3000)
      .api("cudaLaunchKernel", 1, 0, 10, 1)
      .kernel("empty", 3, 0, 0, 1)
      .api("cudaLaunchKernel", 1, 600, 610, 2)
      .kernel("work", 3, 1000, 2000, 2)
      .api("cudaLaunchKernel", 1, 2500, 2510, 3)
      .kernel("empty_end", 3, 2700, 2700, 3);
  TraceModel m = parsedTrace(b.text());
  TraceReport r = analyze(m);
  const DeviceUsage &u = r.devices[0].usage;
  const DeviceIdleAttribution &a = r.devices[0].idle;
  EXPECT_EQ(u.window.length(), 2700);
  EXPECT_EQ(u.idle, 1700);
  EXPECT_EQ(a.idle, u.idle);
  EXPECT_EQ(a.gaps, 2u);
  // 0..1000: the host launched "work" at 600 (600 waiting, 400 latency);
  // 2000..2700: it launched "empty_end" at 2500 (500 and 200).
  EXPECT_EQ(a.hostWait, 600 + 500);
  EXPECT_EQ(a.launchLatency, 400 + 200);
  EXPECT_EQ(a.hostWait + a.launchLatency + a.unattributed, a.idle);
  ASSERT_NE(charge(m, a, "feed"), nullptr);
  EXPECT_EQ(charge(m, a, "feed")->self, 1100);
}

TEST(ReportAnalysisTest, LargeGraphLaunchesUnderTracingAreSaidToBeLonger) {
  // A decode loop replaying a 16-kernel graph: each step's launch takes the
  // host 20 us and its first kernel starts 19 us after the call began, 65
  // us after the last step's kernels ended.
  TraceBuilder b;
  json graph = {{k::ArgGraphId, 1}, {k::ArgCapturedBy, "capture"}};
  for (int step = 0; step < 4; ++step) {
    const std::int64_t at = step * 100000;
    b.cpuOp("decode_step", 1, at, at + 60000)
        .api("cudaGraphLaunch", 1, at + 5000, at + 25000, step + 1);
    for (int node = 0; node < 16; ++node)
      b.kernel("node", 3, at + 24000 + node * 1000, at + 25000 + node * 1000,
               step + 1, graph);
  }
  TraceModel m = parsedTrace(b.text());
  TraceReport r = analyze(m);
  const DeviceIdleAttribution &idle = r.devices[0].idle;
  EXPECT_EQ(idle.gaps, 3u);
  EXPECT_EQ(idle.hostWait, 3 * 65000);
  EXPECT_EQ(idle.launchLatency, 3 * 19000);
  EXPECT_EQ(idle.graphLaunchLatency, 3 * 19000);
  EXPECT_EQ(r.quality.graphLaunches, 4u);
  EXPECT_EQ(r.quality.graphLaunchRecords, 64u);
  EXPECT_EQ(r.quality.graphLaunchHost, 4 * 20000);
  EXPECT_NE(std::find(r.quality.warnings.begin(), r.quality.warnings.end(),
                      "4 CUDA graph launches of 16 GPU records each took the "
                      "host 20.0 us each (1.25 us a record); CUPTI records a "
                      "graph's nodes inside its launch, so untraced a launch "
                      "is shorter, and the 57.0 us of launch latency in the "
                      "gaps they ended is partly the tracer's"),
            r.quality.warnings.end())
      << json(r.quality.warnings).dump(1);
  // And in the JSON report.
  json j = reportJson(m, r, ReportOptions{}, "t.json");
  EXPECT_EQ(j[rk::Quality][rk::Reader][rk::GraphLaunches][rk::Records], 64);
  EXPECT_EQ(
      j[rk::Gpu][rk::Devices][0][rk::IdleAttribution][rk::GraphLaunchLatencyNs],
      57000);
}

TEST(ReportAnalysisTest, UnmatchedLaunchesAndRecordsAreCounted) {
  TraceBuilder b;
  b.api("cudaLaunchKernel", 1, 0, 10, 5)          // lost: no record
      .api("cudaStreamSynchronize", 1, 20, 30, 6) // launches nothing
      .api("cudaLaunchKernel", 1, 1000, 1100, 8)
      .api("cuLaunchKernel", 1, 1010, 1090, 9, true) // inside the runtime call
      .kernel("matched", 7, 1200, 1300, 8)
      .kernel("orphan", 7, 2000, 2100, 99) // no launch call
      .api("cudaLaunchKernel", 1, 3000, 3010, 10)
      .kernel("early", 7, 2990, 3100, 10) // starts before its launch
      .cpuOp("capture", 1, 4000, 4100)
      .api("cudaLaunchKernel", 1, 4010, 4020, 11) // adds a graph node
      .cpuOp("replay", 1, 5000, 5100)
      .api("cudaGraphLaunch", 1, 5010, 5020, 12)
      .kernel("node", 7, 5050, 5060, 12, {{k::ArgCapturedBy, "capture"}});
  TraceModel m = parsedTrace(b.text());
  TraceReport r = analyze(m);
  EXPECT_EQ(r.quality.recordsWithoutLaunch, 1u);
  EXPECT_EQ(r.quality.launchesWithoutRecords, 1u);
  EXPECT_EQ(r.quality.capturedLaunches, 1u);
  EXPECT_EQ(r.quality.recordsBeforeLaunch, 1u);
  EXPECT_EQ(r.devices[0].launch.clipped, 1u);
  // The gap before the orphan cannot be charged to anyone.
  const DeviceIdleAttribution &a = r.devices[0].idle;
  EXPECT_EQ(a.unattributedGaps, 1u);
  EXPECT_EQ(a.unattributed, 2000 - 1300);
  bool warned = false;
  for (const std::string &w : r.quality.warnings)
    warned |= w.find("1 GPU record without a launch call") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(ReportAnalysisTest, OfRecordsStartingTogetherTheEarliestLaunchEndsTheGap) {
  TraceBuilder b;
  b.kernel("first", 1, 0, 100, -1)
      .api("cudaLaunchKernel", 1, 150, 160, 1)
      .kernel("late", 1, 200, 300, 1)
      .api("cudaLaunchKernel", 2, 120, 130, 2)
      .kernel("early", 2, 200, 300, 2);
  TraceReport r = analyze(parsedTrace(b.text()));
  const DeviceIdleAttribution &a = r.devices[0].idle;
  EXPECT_EQ(a.hostWait, 20); // 100..120, until the earlier launch
  EXPECT_EQ(a.launchLatency, 80);
}

TEST(ReportAnalysisTest, ExclusiveTimeFollowsTheNesting) {
  TraceBuilder b;
  b.cpuOp("a", 1, 0, 100)
      .cpuOp("b", 1, 10, 50)
      .cpuOp("c", 1, 20, 30)
      .cpuOp("c", 1, 60, 70)
      .cpuOp("r", 1, 200, 300)
      .cpuOp("r", 1, 210, 290)
      .cpuOp("p", 1, 400, 500)
      .cpuOp("q", 1, 400, 450) // shares p's start
      .cpuOp("s", 1, 450, 500) // shares p's end
      .cpuOp("a", 2, 0, 40)
      .delay(1, 20, 25, "c") // a speed bump: not a call
      .threadName(TraceBuilder::HostPid, 2, "worker");
  TraceModel m = parsedTrace(b.text());
  TraceReport r = analyze(m);
  const HotFunctions &hot = r.hot;
  EXPECT_EQ(hot.calls, 10u);
  EXPECT_EQ(hot.improperlyNested, 0u);
  auto excl = [&](const char *name) {
    const FunctionTime *f = function(m, hot.process, name);
    return f ? f->exclusive.total : -1;
  };
  auto incl = [&](const char *name) {
    const FunctionTime *f = function(m, hot.process, name);
    return f ? f->inclusive.total : -1;
  };
  EXPECT_EQ(excl("a"), 50 + 40);
  EXPECT_EQ(incl("a"), 100 + 40);
  EXPECT_EQ(excl("b"), 30);
  EXPECT_EQ(excl("c"), 20);
  EXPECT_EQ(function(m, hot.process, "c")->exclusive.count, 2u);
  EXPECT_EQ(excl("r"), 100); // recursion: 20 outside the inner call, 80 in
  EXPECT_EQ(incl("r"), 180); // every call, as the runtime's summary counts
  EXPECT_EQ(excl("p"), 0);
  EXPECT_EQ(excl("q"), 50);
  EXPECT_EQ(excl("s"), 50);
  // Hottest first: by self time, ties by inclusive time, then name.
  std::vector<std::string> order;
  for (const FunctionTime &f : hot.process)
    order.emplace_back(m.name(f.name));
  EXPECT_EQ(order,
            (std::vector<std::string>{"r", "a", "q", "s", "b", "c", "p"}));
  // Per thread.
  ASSERT_EQ(hot.threads.size(), 2u);
  EXPECT_EQ(function(m, hot.threads[0].functions, "a")->exclusive.total, 50);
  EXPECT_EQ(function(m, hot.threads[1].functions, "a")->exclusive.total, 40);
  EXPECT_EQ(m.name(hot.threads[1].threadName), "worker");
  EXPECT_EQ(hot.threads[0].busy, 100 + 100 + 100);
}

TEST(ReportAnalysisTest, ChargesAreExactIntersections) {
  TraceBuilder b;
  b.cpuOp("a", 1, 0, 100)
      .cpuOp("b", 1, 10, 50)
      .cpuOp("c", 1, 20, 30)
      .cpuOp("c", 1, 60, 70)
      .cpuOp("r", 1, 200, 300)
      .cpuOp("r", 1, 210, 290)
      .cpuOp("s", 1, 450, 500);
  TraceModel m = parsedTrace(b.text());
  HostTimelines timelines(m);
  const ThreadTimeline *t = timelines.find(ThreadRef{TraceBuilder::HostPid, 1});
  ASSERT_NE(t, nullptr);
  auto chargeOf = [&](TimeNs from, TimeNs to) {
    std::map<NameId, Charge> out;
    t->charge(from, to, out);
    std::map<std::string, std::pair<TimeNs, TimeNs>> named;
    for (const auto &[name, c] : out)
      named[name == NoName ? "-" : std::string(m.name(name))] = {c.self,
                                                                 c.inclusive};
    return named;
  };
  using Pairs = std::map<std::string, std::pair<TimeNs, TimeNs>>;
  // a owns 50..60 in [15, 65); b 15..20 and 30..50; c 20..30 and 60..65.
  EXPECT_EQ(chargeOf(15, 65),
            (Pairs{{"a", {10, 50}}, {"b", {25, 35}}, {"c", {15, 15}}}));
  // A recursive function is on the stack once per instant.
  EXPECT_EQ(chargeOf(200, 300), (Pairs{{"r", {100, 100}}}));
  // Outside every call, and before the thread's first call.
  EXPECT_EQ(chargeOf(350, 360), (Pairs{{"-", {10, 10}}}));
  EXPECT_EQ(chargeOf(-10, 5), (Pairs{{"-", {10, 10}}, {"a", {5, 5}}}));

  auto innermost = [&](TimeNs from, TimeNs to) -> std::string {
    std::int32_t node = t->innermostContaining(from, to);
    return node < 0 ? "-"
                    : std::string(m.name(
                          m.cpuOps[t->nodes[std::size_t(node)].op].name));
  };
  EXPECT_EQ(innermost(25, 26), "c");
  EXPECT_EQ(innermost(25, 35), "b");
  EXPECT_EQ(innermost(5, 95), "a");
  EXPECT_EQ(innermost(100, 101), "-");
  EXPECT_EQ(innermost(450, 460), "s");
  EXPECT_EQ(innermost(220, 230), "r");
}

TEST(ReportAnalysisTest, TheReportDoesNotDependOnEventOrder) {
  // Every scenario above in one trace, with ties: calls with the same
  // times, records starting together.
  TraceBuilder b = stallingHost(1);
  for (const json &e : streamWithKnownGaps().events) {
    json moved = e;
    // Another thread and device, so the scenarios stay apart.
    if (moved[k::Category] == k::CategoryKernel) {
      moved[k::Args][k::ArgDevice] = 1;
      moved[k::Pid] = 1;
    } else {
      moved[k::Tid] = 9;
    }
    b.raw(moved);
  }
  b.cpuOp("twin_a", 3, 0, 50)
      .cpuOp("twin_b", 3, 0, 50)
      .api("cudaGraphLaunch", 3, 10, 20, 70)
      .kernel("g1", 11, 9000, 9100, 70)
      .kernel("g2", 12, 9000, 9100, 70)
      .kernel("g3", 11, 9100, 9200, 70);
  ReportOptions options;
  TraceModel reference = parsedTrace(b.text());
  std::string expected =
      reportJson(reference, analyzeTrace(reference, options), options, "t")
          .dump();
  std::string expectedText =
      renderReportDocument(reference, analyzeTrace(reference, options), options,
                           "t", ReportStyle::Text);
  for (unsigned seed = 1; seed <= 20; ++seed) {
    TraceModel m = parsedTrace(b.shuffled(seed));
    TraceReport r = analyzeTrace(m, options);
    EXPECT_EQ(reportJson(m, r, options, "t").dump(), expected)
        << "seed " << seed;
    EXPECT_EQ(renderReportDocument(m, r, options, "t", ReportStyle::Text),
              expectedText)
        << "seed " << seed;
  }
}

TEST(ReportAnalysisTest, ACpuOnlyTraceSaysThereWasNoGpuActivity) {
  TraceBuilder b;
  b.cpuOp("main", 1, 0, 1000).cpuOp("work", 1, 100, 900);
  TraceModel m = parsedTrace(b.text());
  ReportOptions options;
  TraceReport r = analyzeTrace(m, options);
  EXPECT_TRUE(r.devices.empty());
  EXPECT_EQ(r.answer, (std::vector<std::string>{
                          "no GPU activity in the trace",
                          "hottest host function by self time: work (800 ns "
                          "in 1 call, 80% of the instrumented time)"}));
  std::string text =
      renderReportDocument(m, r, options, "t.json", ReportStyle::Text);
  std::size_t sections = 0;
  for (std::size_t at = text.find("no GPU activity in the trace");
       at != std::string::npos;
       at = text.find("no GPU activity in the trace", at + 1))
    ++sections;
  EXPECT_EQ(sections, 5u); // the answer and the four GPU sections
  json j = json::parse(reportJson(m, r, options, "t.json").dump());
  EXPECT_EQ(j[rk::Version], rk::ReportVersion);
  EXPECT_TRUE(j[rk::Gpu][rk::Devices].empty());
  EXPECT_EQ(j[rk::Host][rk::Functions][0][rk::Name], "work");
  EXPECT_EQ(j[rk::Host][rk::Functions][0][rk::ExclusiveNs][rk::Total], 800);
  EXPECT_EQ(j[rk::Host][rk::Functions][1][rk::InclusiveNs][rk::P99], 1000);
  std::string md =
      renderReportDocument(m, r, options, "t.json", ReportStyle::Markdown);
  EXPECT_NE(md.find("## Hottest functions"), std::string::npos);
  EXPECT_NE(md.find("| function | calls | self |"), std::string::npos);
  EXPECT_NE(md.find("| `work` | 1 | 800 ns |"), std::string::npos);
}

TEST(ReportAnalysisTest, TopBoundsEveryRankedList) {
  TraceBuilder b;
  for (int i = 0; i < 5; ++i)
    b.cpuOp("f" + std::to_string(i), 1, i * 100, i * 100 + 10 + i);
  TraceModel m = parsedTrace(b.text());
  ReportOptions options;
  options.top = 2;
  json j =
      json::parse(reportJson(m, analyzeTrace(m, options), options, "t").dump());
  EXPECT_EQ(j[rk::Host][rk::Functions].size(), 2u);
  EXPECT_EQ(j[rk::Host][rk::FunctionCount], 5);
  EXPECT_EQ(j[rk::Host][rk::Functions][0][rk::Name], "f4");
  options.top = 0; // all
  j = json::parse(reportJson(m, analyzeTrace(m, options), options, "t").dump());
  EXPECT_EQ(j[rk::Host][rk::Functions].size(), 5u);
}

TEST(ReportAnalysisTest, DurationStatsAreNearestRank) {
  std::vector<TimeNs> values;
  for (TimeNs v = 100; v >= 1; --v)
    values.push_back(v);
  DurationStats s = durationStats(values);
  EXPECT_EQ(s.count, 100u);
  EXPECT_EQ(s.total, 5050);
  EXPECT_DOUBLE_EQ(s.mean, 50.5);
  EXPECT_EQ(s.p50, 50);
  EXPECT_EQ(s.p99, 99);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 100);
  std::vector<TimeNs> four = {4, 3, 2, 1};
  EXPECT_EQ(durationStats(four).p50, 2);
  std::vector<TimeNs> one = {7};
  EXPECT_EQ(durationStats(one).p99, 7);
  std::vector<TimeNs> none;
  EXPECT_EQ(durationStats(none).count, 0u);
}

TEST(ReportAnalysisTest, TimeRangeArithmetic) {
  std::vector<TimeRange> u =
      unionOf({{50, 60}, {0, 10}, {10, 20}, {5, 8}, {30, 30}, {55, 70}});
  EXPECT_EQ(u, (std::vector<TimeRange>{{0, 20}, {50, 70}}));
  EXPECT_EQ(totalLength(u), 40);
  EXPECT_EQ(gapsOf(u, {0, 70}), (std::vector<TimeRange>{{20, 50}}));
  // A window reaching past the union (set by a record of no length).
  EXPECT_EQ(gapsOf(u, {-5, 80}),
            (std::vector<TimeRange>{{-5, 0}, {20, 50}, {70, 80}}));
  EXPECT_EQ(gapsOf({}, {3, 9}), (std::vector<TimeRange>{{3, 9}}));
  EXPECT_TRUE(gapsOf({}, {3, 3}).empty());
  EXPECT_EQ(subtract(u, {{5, 15}, {60, 100}}),
            (std::vector<TimeRange>{{0, 5}, {15, 20}, {50, 60}}));
  EXPECT_EQ(overlapLength(u, {15, 55}), 10);
}

TEST(ReportAnalysisTest, UnitsKeepThreeSignificantDigits) {
  EXPECT_EQ(humanNs(0), "0 ns");
  EXPECT_EQ(humanNs(999), "999 ns");
  EXPECT_EQ(humanNs(999.6), "1.00 us");
  EXPECT_EQ(humanNs(12345), "12.3 us");
  EXPECT_EQ(humanNs(312e6), "312 ms");
  EXPECT_EQ(humanNs(99.96e6), "100 ms");
  EXPECT_EQ(humanNs(1.25e9), "1.25 s");
  EXPECT_EQ(humanNs(2500e9), "2500 s");
  EXPECT_EQ(percentOf(18, 100), "18%");
  EXPECT_EQ(percentOf(0.4, 100), "0.4%");
  EXPECT_EQ(percentOf(0.01, 100), "<0.1%");
  EXPECT_EQ(percentOf(1, 0), "-");
}

TEST(ReportAnalysisTest, WorkPerFunctionIsDividedByItsInclusiveTime) {
  // The function table's work (perf_work): matmul moved 2,000 bytes and did
  // 8,000 FLOPs in two calls of 1,000 ns in all (2 GB/s, 8 GFLOP/s); an
  // overload's entry of the same name adds to it; `attn` reported work but
  // has no call in the trace (rates 0); a malformed entry is skipped.
  TraceBuilder b;
  b.cpuOp("step", 1, 0, 5000)
      .cpuOp("matmul", 1, 100, 700)
      .cpuOp("matmul", 1, 1000, 1400);
  namespace w = perfcc::schema::summary;
  auto entry = [](const char *name, json work) {
    return json{{k::Name, name},
                {k::MetaFunctionMangled, name},
                {k::ArgFile, "m.cpp"},
                {k::ArgLine, 1},
                {k::MetaFunctionWork, std::move(work)}};
  };
  b.metadata[k::MetaFunctions] = json::array(
      {entry("matmul",
             {{w::WorkBytes, 1500}, {w::WorkFlops, 6000}, {w::WorkReports, 1}}),
       entry("matmul",
             {{w::WorkBytes, 500}, {w::WorkFlops, 2000}, {w::WorkReports, 1}}),
       entry("attn",
             {{w::WorkBytes, 64}, {w::WorkFlops, 0}, {w::WorkReports, 1}}),
       entry("bad",
             {{w::WorkBytes, "many"}, {w::WorkFlops, 1}, {w::WorkReports, 1}}),
       json{{k::Name, "step"}, {k::ArgFile, "m.cpp"}, {k::ArgLine, 2}}});
  TraceModel m = parsedTrace(b.text());
  ASSERT_EQ(m.work.size(), 2u);
  TraceReport r = analyze(m);
  ASSERT_EQ(r.roofline.size(), 2u);
  const FunctionRooflineRow &mm = r.roofline[0];
  EXPECT_EQ(m.name(mm.name), "matmul");
  EXPECT_EQ(mm.calls, 2u);
  EXPECT_EQ(mm.inclusive, 1000);
  EXPECT_EQ(mm.bytes, 2000u);
  EXPECT_EQ(mm.flops, 8000u);
  EXPECT_EQ(mm.reports, 2u);
  EXPECT_DOUBLE_EQ(mm.bytesPerS, 2e9);
  EXPECT_DOUBLE_EQ(mm.flopsPerS, 8e9);
  EXPECT_DOUBLE_EQ(mm.flopsPerByte, 4.0);
  const FunctionRooflineRow &attn = r.roofline[1];
  EXPECT_EQ(m.name(attn.name), "attn");
  EXPECT_EQ(attn.calls, 0u);
  EXPECT_EQ(attn.bytesPerS, 0);
  EXPECT_EQ(attn.flopsPerByte, 0);

  ReportOptions options;
  nlohmann::ordered_json j = reportJson(m, r, options, "t.json");
  const nlohmann::ordered_json &work = j[rk::Host][rk::Work];
  ASSERT_EQ(work.size(), 2u);
  EXPECT_EQ(work[0][rk::Name], "matmul");
  EXPECT_EQ(work[0][rk::WorkBytes], 2000);
  EXPECT_DOUBLE_EQ(work[0][rk::WorkBytesPerS].get<double>(), 2e9);
  std::string text =
      renderReportDocument(m, r, options, "t.json", ReportStyle::Text);
  EXPECT_NE(text.find("Work per function"), std::string::npos) << text;
  EXPECT_NE(text.find("2.00 kB"), std::string::npos) << text;
}

TEST(ReportAnalysisTest, NoWorkReportedMeansNoWorkSection) {
  TraceBuilder b;
  b.cpuOp("step", 1, 0, 5000);
  TraceModel m = parsedTrace(b.text());
  TraceReport r = analyze(m);
  EXPECT_TRUE(r.roofline.empty());
  ReportOptions options;
  EXPECT_EQ(renderReportDocument(m, r, options, "t.json", ReportStyle::Text)
                .find("Work per"),
            std::string::npos);
  EXPECT_TRUE(reportJson(m, r, options, "t.json")[rk::Host][rk::Work].empty());
}

TEST(ReportAnalysisTest, CountsAndBytesKeepThreeSignificantDigits) {
  EXPECT_EQ(humanCount(0), "0");
  EXPECT_EQ(humanCount(999), "999");
  EXPECT_EQ(humanCount(1000), "1.00 k");
  EXPECT_EQ(humanCount(12345), "12.3 k");
  EXPECT_EQ(humanCount(1.19e9), "1.19 G");
  EXPECT_EQ(humanCount(999.6e3), "1.00 M");
  EXPECT_EQ(humanBytes(812), "812 B");
  EXPECT_EQ(humanBytes(1.19e9), "1.19 GB");
  EXPECT_EQ(humanBytes(4e15), "4.00 PB");
}
