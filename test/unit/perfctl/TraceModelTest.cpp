//===- TraceModelTest.cpp - reading perfcc traces into the model ----------===//
//
// Timestamps to the exact nanosecond (past a double's precision too), every
// event kind with its arguments, GPU records placed by their arguments and
// not their rows, what is skipped and counted, the errors (truncated at any
// byte, malformed, not a trace, unreadable), and a model that does not
// depend on the order of the events in the file.
//
//===----------------------------------------------------------------------===//
#include "trace/TraceModel.h"
#include "trace/TraceReader.h"

#include "ParsedTrace.h"
#include "TraceBuilder.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

using namespace perfcc::perfctl;
using nlohmann::json;
using perfcc::perfctl::test::parsedTrace;
using perfcc::perfctl::test::TraceBuilder;
namespace k = perfcc::schema::trace;

namespace {

std::string parseError(const std::string &text) {
  std::string error;
  std::optional<TraceModel> model = parseTrace(text, error);
  EXPECT_FALSE(model.has_value());
  return error;
}

/// Every event of \p m with its names, one line each, in the model's order.
std::string describe(const TraceModel &m) {
  std::string out;
  auto n = [&](NameId id) { return std::string(m.name(id)); };
  for (const CpuOp &e : m.cpuOps)
    out += fmt::format("op {} {}/{} {}-{} {}:{}\n", n(e.name), e.thread.pid,
                       e.thread.tid, e.start, e.end, n(e.file), e.line);
  for (const ApiCall &e : m.apiCalls)
    out += fmt::format("api {} {} {}-{} c{}\n", n(e.name), e.thread.tid,
                       e.start, e.end, e.correlation);
  for (const GpuRecord &e : m.gpuRecords)
    out += fmt::format("gpu {} {} d{} s{} {}-{} c{}\n", gpuKindName(e.kind),
                       n(e.name), e.device, e.stream, e.start, e.end,
                       e.correlation);
  for (const GpuSync &e : m.syncs)
    out += fmt::format("sync {} d{} s{} {}-{}\n", n(e.kind), e.device, e.stream,
                       e.start, e.end);
  for (const CounterSample &e : m.counters)
    out += fmt::format("counter {} {} {}\n", n(e.name), e.ts, e.value);
  for (const FlowPoint &e : m.flows)
    out += fmt::format("flow {} {} {}\n", e.start, e.id, e.ts);
  for (const ProcessInfo &e : m.processes)
    out += fmt::format("process {} {} {}\n", e.pid, n(e.name), e.sortIndex);
  for (const ThreadInfo &e : m.threads)
    out += fmt::format("thread {}/{} {} {}\n", e.thread.pid, e.thread.tid,
                       n(e.name), e.sortIndex);
  return out;
}

} // namespace

TEST(TraceModelTest, MicrosecondsBecomeExactNanoseconds) {
  EXPECT_EQ(microsToNs("12345.678"), 12345678);
  EXPECT_EQ(microsToNs("12"), 12000);
  EXPECT_EQ(microsToNs("0.001"), 1);
  EXPECT_EQ(microsToNs("100.0"), 100000);
  EXPECT_EQ(microsToNs("-1.5"), -1500);
  EXPECT_EQ(microsToNs("1.2e3"), 1200000);
  EXPECT_EQ(microsToNs("1E-3"), 1);
  // More decimals than nanoseconds: rounded half away from zero.
  EXPECT_EQ(microsToNs("0.0005"), 1);
  EXPECT_EQ(microsToNs("0.0004999"), 0);
  EXPECT_EQ(microsToNs("-0.0005"), -1);
  EXPECT_EQ(microsToNs("0.00001"), 0);
  // The largest that fits, and one more.
  EXPECT_EQ(microsToNs("9223372036854775.807"), INT64_MAX);
  EXPECT_EQ(microsToNs("9223372036854775.808"), std::nullopt);
  EXPECT_EQ(microsToNs("1e30"), std::nullopt);
  EXPECT_EQ(microsToNs("abc"), std::nullopt);
  EXPECT_EQ(microsToNs(""), std::nullopt);
  EXPECT_EQ(microsToNs("1.5x"), std::nullopt);
}

TEST(TraceModelTest, TimestampsPastADoublesPrecisionStayExact) {
  // 2^53 + 1 ns: a double cannot hold it; read through one it would come
  // out a nanosecond off.
  std::string text =
      fmt::format(R"({{"{}":[{{"{}":"{}","{}":"{}","{}":"f","{}":1,"{}":1,)"
                  R"("{}":9007199254740.993,"{}":0.001}}]}})",
                  k::Events, k::Phase, k::PhaseComplete, k::Category,
                  k::CategoryCpuOp, k::Name, k::Pid, k::Tid, k::Ts, k::Dur);
  TraceModel m = parsedTrace(text);
  ASSERT_EQ(m.cpuOps.size(), 1u);
  EXPECT_EQ(m.cpuOps[0].start, 9007199254740993);
  EXPECT_EQ(m.cpuOps[0].end, 9007199254740994);
}

TEST(TraceModelTest, ReadsEveryKindOfEvent) {
  TraceBuilder b;
  b.processName(TraceBuilder::HostPid, "app")
      .threadName(TraceBuilder::HostPid, 7, "worker")
      .processName(TraceBuilder::GpuPid, "GPU 0")
      .cpuOp("ns::outer", 7, 1000, 9000)
      .delay(7, 2000, 2500, "ns::outer")
      .counter("items", 7, 3000, 5)
      .api("cudaLaunchKernel", 7, 4000, 4100, 11)
      .api("cuLaunchKernel", 7, 4010, 4090, 12, /*driver=*/true)
      .kernel("k(int)", 7, 4500, 6500, 11,
              {{k::ArgExternalId, 3},
               {k::ArgLaunchedBy, "ns::outer"},
               {k::ArgGraphId, 4},
               {k::ArgGraphNodeId, 200}})
      .gpu(k::CategoryMemcpy, "Memcpy HtoD", 0, 7, 7000, 7500, 13,
           {{k::ArgBytes, 1048576}, {k::ArgBandwidth, 2.5}})
      .gpu(k::CategoryMemset, "Memset", 1, 3, 100, 200, -1)
      .sync(0, 7, 6000, 6600, 14)
      .flow(true, 11, TraceBuilder::HostPid, 7, 4000)
      .flow(false, 11, TraceBuilder::GpuPid, 7, 4500);
  b.raw({{k::Phase, k::PhaseMetadata},
         {k::Name, k::ProcessSortIndex},
         {k::Pid, TraceBuilder::GpuPid},
         {k::Tid, 0},
         {k::Args, {{k::ArgSortIndex, 5000000}}}});
  b.metadata[k::MetaGpu] = {{k::MetaCupti, "on"},
                            {k::MetaGpuRecords, 4},
                            {k::MetaGpuDroppedRecords, 2},
                            {k::MetaGpuUnmatchedLaunches, 1}};
  b.metadata[k::MetaDroppedSpans] = 3;
  TraceModel m = parsedTrace(b.text());

  ASSERT_EQ(m.cpuOps.size(), 1u);
  EXPECT_EQ(m.name(m.cpuOps[0].name), "ns::outer");
  EXPECT_EQ(m.cpuOps[0].thread, (ThreadRef{TraceBuilder::HostPid, 7}));
  EXPECT_EQ(m.name(m.cpuOps[0].file), "app.cpp");
  EXPECT_EQ(m.cpuOps[0].line, 7);
  ASSERT_EQ(m.delays.size(), 1u);
  EXPECT_EQ(m.name(m.delays[0].function), "ns::outer");
  ASSERT_EQ(m.counters.size(), 1u);
  EXPECT_EQ(m.counters[0].value, 5);
  ASSERT_EQ(m.apiCalls.size(), 2u);
  EXPECT_FALSE(m.apiCalls[0].driver);
  EXPECT_EQ(m.apiCalls[0].correlation, 11);
  EXPECT_EQ(m.apiCalls[0].cbid, 211);
  EXPECT_TRUE(m.apiCalls[1].driver);

  ASSERT_EQ(m.gpuRecords.size(), 3u);
  const GpuRecord &kernel = m.gpuRecords[0];
  EXPECT_EQ(kernel.kind, GpuKind::Kernel);
  EXPECT_EQ(m.name(kernel.name), "k(int)");
  EXPECT_EQ(kernel.start, 4500);
  EXPECT_EQ(kernel.end, 6500);
  EXPECT_EQ(kernel.externalId, 3);
  EXPECT_EQ(m.name(kernel.launchedBy), "ns::outer");
  EXPECT_EQ(kernel.capturedBy, NoName);
  EXPECT_EQ(kernel.graphId, 4);
  EXPECT_EQ(kernel.graphNodeId, 200);
  EXPECT_EQ(kernel.grid, (std::array<std::int64_t, 3>{128, 1, 1}));
  EXPECT_EQ(kernel.registers, 32);
  const GpuRecord &copy = m.gpuRecords[1];
  EXPECT_EQ(copy.kind, GpuKind::Memcpy);
  EXPECT_EQ(copy.bytes, 1048576);
  EXPECT_DOUBLE_EQ(copy.bandwidthGBs, 2.5);
  const GpuRecord &memset = m.gpuRecords[2];
  EXPECT_EQ(memset.kind, GpuKind::Memset);
  EXPECT_EQ(memset.device, 1);
  EXPECT_EQ(memset.correlation, NoValue);

  ASSERT_EQ(m.syncs.size(), 1u);
  EXPECT_EQ(m.name(m.syncs[0].kind), "Stream Sync");
  EXPECT_EQ(m.syncs[0].stream, 7);
  EXPECT_EQ(m.flows.size(), 2u);
  // process_name and process_sort_index of one pid are one entry.
  ASSERT_EQ(m.processes.size(), 2u);
  EXPECT_EQ(m.name(m.processName(TraceBuilder::GpuPid)), "GPU 0");
  EXPECT_EQ(m.processes[0].sortIndex, 5000000);
  EXPECT_EQ(m.name(m.threadName(ThreadRef{TraceBuilder::HostPid, 7})),
            "worker");

  EXPECT_TRUE(m.metadata.present);
  EXPECT_EQ(m.metadata.program, "app");
  EXPECT_EQ(m.metadata.pid, TraceBuilder::HostPid);
  EXPECT_EQ(m.metadata.droppedSpans, 3u);
  ASSERT_TRUE(m.metadata.gpu.has_value());
  EXPECT_EQ(m.metadata.gpu->cupti, "on");
  EXPECT_EQ(m.metadata.gpu->droppedRecords, 2u);
  EXPECT_EQ(m.metadata.gpu->zeroTimestamps, std::nullopt);
  EXPECT_EQ(m.issues.malformedEvents, 0u);
  EXPECT_EQ(m.issues.ignoredEvents, 0u);
}

TEST(TraceModelTest, GpuRecordsAreWhereTheirArgumentsSay) {
  // An overflow row (stream + 1000000) and a display pid that is not the
  // device: the record belongs to device 1, stream 7.
  TraceBuilder b;
  b.gpu(k::CategoryKernel, "k", 1, 7, 100, 200, 5, json::object(),
        /*row=*/1000007);
  TraceModel m = parsedTrace(b.text());
  ASSERT_EQ(m.gpuRecords.size(), 1u);
  EXPECT_EQ(m.gpuRecords[0].device, 1);
  EXPECT_EQ(m.gpuRecords[0].stream, 7);
  EXPECT_EQ(m.gpuRecords[0].row.tid, 1000007);
}

TEST(TraceModelTest, SkipsAndCountsWhatItCannotUse) {
  TraceBuilder b;
  b.cpuOp("ok", 1, 0, 10);
  json noTs = b.events.back();
  noTs.erase(k::Ts);
  b.raw(noTs);
  json negative = b.events.front();
  negative[k::Dur] = -0.005;
  b.raw(negative);
  b.kernel("k", 7, 0, 10, 1);
  json noDevice = b.events.back();
  noDevice[k::Args].erase(k::ArgDevice);
  b.raw(noDevice);
  b.raw({{k::Phase, "B"}, {k::Name, "x"}, {k::Pid, 1}, {k::Tid, 1}});
  b.raw({{k::Phase, k::PhaseComplete},
         {k::Category, "user_annotation"},
         {k::Name, "x"},
         {k::Pid, 1},
         {k::Tid, 1},
         {k::Ts, 1.0},
         {k::Dur, 1.0}});
  b.raw(json(42));
  TraceModel m = parsedTrace(b.text());
  EXPECT_EQ(m.cpuOps.size(), 2u);     // ok, and the negative one
  EXPECT_EQ(m.gpuRecords.size(), 1u); // the one with its device
  EXPECT_EQ(m.issues.malformedEvents, 3u);
  EXPECT_EQ(m.issues.ignoredEvents, 2u);
  EXPECT_EQ(m.issues.negativeDurations, 1u);
  // The negative duration reads as zero (sorted after the longer call).
  EXPECT_EQ(m.cpuOps[1].end - m.cpuOps[1].start, 0);
}

TEST(TraceModelTest, ATraceCutAtAnyByteIsTruncated) {
  TraceBuilder b;
  b.cpuOp("a", 1, 0, 100).cpuOp("b", 1, 10, 20).kernel("k", 7, 5, 50, 1);
  std::string text = b.text();
  // Every cut before the closing brace leaves an incomplete document.
  for (std::size_t cut = 1; cut + 1 < text.size(); ++cut) {
    std::string error = parseError(text.substr(0, cut));
    EXPECT_NE(error.find("truncated"), std::string::npos)
        << "cut at " << cut << ": " << error;
  }
  // A cut between events, where the runtime writes ",\n", is truncated
  // too, whitespace and all.
  std::size_t between = text.rfind("},{") + 2;
  EXPECT_NE(parseError(text.substr(0, between) + "\n").find("truncated"),
            std::string::npos);
  EXPECT_NE(parseError(text.substr(0, between) + "\n").find("the events"),
            std::string::npos);
}

TEST(TraceModelTest, MalformedAndNonTraceFilesAreErrors) {
  EXPECT_NE(parseError(R"({"traceEvents":[}])").find("malformed JSON at byte"),
            std::string::npos);
  EXPECT_NE(parseError(R"({"traceEvents":[]} x)").find("malformed JSON"),
            std::string::npos);
  EXPECT_NE(parseError("42").find("not a Chrome trace"), std::string::npos);
  // Nesting far past any trace's is refused, not recursed into.
  std::string deep = R"({"traceEvents":[],"metadata":)";
  for (int i = 0; i < 100000; ++i)
    deep += R"({"a":)";
  deep += "1" + std::string(100000, '}') + "}";
  EXPECT_NE(parseError(deep).find("nested more than 64 levels"),
            std::string::npos);
  EXPECT_NE(parseError(R"({"metadata":{}})").find("no \"traceEvents\""),
            std::string::npos);
  // The bare array form is a trace.
  TraceModel m = parsedTrace(fmt::format(
      R"([{{"{}":"{}","{}":"{}","{}":"f","{}":1,"{}":2,"{}":1.5,"{}":2}}])",
      k::Phase, k::PhaseComplete, k::Category, k::CategoryCpuOp, k::Name,
      k::Pid, k::Tid, k::Ts, k::Dur));
  ASSERT_EQ(m.cpuOps.size(), 1u);
  EXPECT_EQ(m.cpuOps[0].start, 1500);
  EXPECT_EQ(m.cpuOps[0].end, 3500);
  EXPECT_FALSE(m.metadata.present);
}

TEST(TraceModelTest, FilesThatCannotBeReadAreErrors) {
  std::string error;
  EXPECT_FALSE(readTraceFile("/nonexistent/trace.json", error));
  EXPECT_EQ(error, "cannot read: No such file or directory");
  EXPECT_FALSE(readTraceFile(testing::TempDir(), error));
  EXPECT_EQ(error, "cannot read: is a directory");
  std::string empty = testing::TempDir() + "/TraceModelTest-empty.json";
  std::ofstream(empty) << "\n";
  EXPECT_FALSE(readTraceFile(empty, error));
  EXPECT_EQ(error, "empty file: no trace in it");
  std::string good = testing::TempDir() + "/TraceModelTest-good.json";
  TraceBuilder b;
  b.cpuOp("a", 1, 0, 100);
  std::ofstream(good) << b.text();
  std::optional<TraceModel> m = readTraceFile(good, error);
  ASSERT_TRUE(m.has_value()) << error;
  EXPECT_EQ(m->cpuOps.size(), 1u);
  std::filesystem::remove(empty);
  std::filesystem::remove(good);
}

TEST(TraceModelTest, TheModelDoesNotDependOnEventOrder) {
  TraceBuilder b;
  b.processName(TraceBuilder::HostPid, "app")
      .threadName(TraceBuilder::HostPid, 1, "main")
      .cpuOp("z::outer", 1, 0, 1000)
      .cpuOp("a::inner", 1, 0, 500) // shares its parent's start
      .cpuOp("m::tail", 1, 500, 1000)
      .cpuOp("same", 2, 10, 20)
      .cpuOp("alike", 2, 10, 20) // identical times: ordered by name
      .api("cudaLaunchKernel", 1, 100, 110, 1)
      .api("cudaGraphLaunch", 1, 600, 620, 2)
      .kernel("b", 3, 700, 800, 2)
      .kernel("a", 3, 700, 800, 2)
      .kernel("c", 3, 800, 900, 2)
      .kernel("k", 7, 200, 400, 1)
      .sync(0, 7, 300, 450, 3)
      .counter("items", 1, 900, 1)
      .counter("items", 1, 950, 2)
      .flow(true, 1, TraceBuilder::HostPid, 1, 100)
      .flow(false, 1, TraceBuilder::GpuPid, 7, 200);
  std::string reference = describe(parsedTrace(b.text()));
  for (unsigned seed = 1; seed <= 20; ++seed) {
    TraceModel shuffled = parsedTrace(b.shuffled(seed));
    EXPECT_EQ(describe(shuffled), reference) << "seed " << seed;
  }
  // Canonical: names sorted, so ids order as names do.
  TraceModel m = parsedTrace(b.shuffled(7));
  for (NameId i = 1; i < m.nameCount(); ++i)
    EXPECT_LT(m.name(i - 1), m.name(i));
}

TEST(TraceModelTest, CallsTakeTheirLocationFromTheFunctionTable) {
  // As the runtime writes them: no args on the calls, each function's file
  // and line once in metadata.functions. Two overloads share a name: the
  // first listed is the name's location. A call's own args.file and
  // args.line (an older trace) win over the table.
  TraceBuilder b;
  b.processName(TraceBuilder::HostPid, "app")
      .cpuOp("ns::plain", 7, 1000, 2000)
      .cpuOp("ns::overloaded", 7, 3000, 4000)
      .cpuOp("ns::old", 7, 5000, 6000)
      .cpuOp("ns::unlisted", 7, 7000, 8000);
  for (json &e : b.events)
    if (e[k::Name] != "ns::old")
      e.erase(k::Args);
  b.metadata[k::MetaFunctions] = {
      {{k::Name, "ns::plain"},
       {k::MetaFunctionMangled, "_ZN2ns5plainEv"},
       {k::ArgFile, "/src/plain.cpp"},
       {k::ArgLine, 11}},
      {{k::Name, "ns::overloaded"},
       {k::MetaFunctionMangled, "_ZN2ns10overloadedEi"},
       {k::ArgFile, "/src/over.cpp"},
       {k::ArgLine, 21}},
      {{k::Name, "ns::overloaded"},
       {k::MetaFunctionMangled, "_ZN2ns10overloadedEd"},
       {k::ArgFile, "/src/over.cpp"},
       {k::ArgLine, 25}},
      {{k::Name, "ns::old"},
       {k::MetaFunctionMangled, "_ZN2ns3oldEv"},
       {k::ArgFile, "/src/elsewhere.cpp"},
       {k::ArgLine, 99}}};
  TraceModel m = parsedTrace(b.text());
  EXPECT_EQ(describe(m), "op ns::plain 4242/7 1000-2000 /src/plain.cpp:11\n"
                         "op ns::overloaded 4242/7 3000-4000 /src/over.cpp:21\n"
                         "op ns::old 4242/7 5000-6000 app.cpp:7\n"
                         "op ns::unlisted 4242/7 7000-8000 :0\n");
}
