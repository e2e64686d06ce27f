//===- MergeTest.cpp - perfctl merge's traces and summaries ---------------===//
//
// Two processes' traces, each with a call, a CUDA launch, its kernel on GPU
// 0 and the flow between them, numbered from 1 in each as the runtime
// numbers them: merged, every event is there with its exact times, each
// process keeps its own GPU track and every launch still joins its own
// kernel. Traces that cannot share a timeline are refused, naming the file.
// Summaries combine exactly where they can and keep each process's figures.
//
//===----------------------------------------------------------------------===//
#include "merge/SummaryMerge.h"
#include "merge/TraceMerge.h"
#include "trace/TraceReader.h"

#include "TraceBuilder.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

using namespace perfcc::perfctl;
using nlohmann::json;
using perfcc::perfctl::test::TraceBuilder;
namespace key = perfcc::schema::trace;

namespace {

constexpr std::int64_t T0 = 187123663547123; // a machine up for two days

/// One process's trace, as TraceBuilder writes it, moved to \p pid.
std::string processTrace(std::int64_t pid, std::int64_t shift) {
  TraceBuilder b;
  b.metadata[key::MetaClockDomain] = "CLOCK_MONOTONIC";
  b.metadata[key::MetaDroppedSpans] = 2;
  b.processName(TraceBuilder::HostPid, "app")
      .processName(TraceBuilder::GpuPid, "GPU 0")
      .cpuOp("launch", TraceBuilder::MainTid, T0 + shift, T0 + shift + 900)
      .api("cudaLaunchKernel", TraceBuilder::MainTid, T0 + shift + 100,
           T0 + shift + 200, 1)
      .kernel("k", 7, T0 + shift + 300, T0 + shift + 800, 1)
      .flow(true, 1, TraceBuilder::HostPid, TraceBuilder::MainTid,
            T0 + shift + 100)
      .flow(false, 1, TraceBuilder::GpuPid, 7, T0 + shift + 300);
  json doc = json::parse(b.text());
  for (json &e : doc[key::Events]) {
    if (e[key::Pid] == TraceBuilder::HostPid)
      e[key::Pid] = pid;
    if (e[key::Tid] == TraceBuilder::MainTid)
      e[key::Tid] = pid;
  }
  doc[key::Metadata][key::MetaPid] = pid;
  return doc.dump();
}

std::string writeFile(const std::string &name, const std::string &text) {
  std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

/// Merges \p texts (written to files); the merged text, or "" with \p error.
std::string merged(const std::vector<std::string> &texts, std::string &error,
                   std::vector<MergedTrace> *report = nullptr) {
  std::vector<std::string> files;
  for (std::size_t i = 0; i < texts.size(); ++i)
    files.push_back(
        writeFile("merge-" + std::to_string(i) + ".trace.json", texts[i]));
  std::FILE *out = std::tmpfile();
  std::vector<MergedTrace> m;
  bool ok = mergeTraces(files, out, "9.9", m, error);
  std::string text;
  if (ok) {
    std::rewind(out);
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, out));)
      text.append(buffer, n);
  }
  std::fclose(out);
  if (report)
    *report = m;
  return text;
}

} // namespace

TEST(TraceMerge, EachProcessKeepsItsGpuTrackAndItsJoins) {
  std::string error;
  std::vector<MergedTrace> report;
  std::string text =
      merged({processTrace(100, 0), processTrace(200, 5000)}, error, &report);
  ASSERT_FALSE(text.empty()) << error;
  ASSERT_EQ(report.size(), 2u);
  EXPECT_EQ(report[0].pid, 100);
  EXPECT_EQ(report[1].pid, 200);
  EXPECT_EQ(report[1].calls, 1u);

  std::optional<TraceModel> model = parseTrace(text, error);
  ASSERT_TRUE(model) << error;
  // Every call, with its exact nanoseconds.
  ASSERT_EQ(model->cpuOps.size(), 2u);
  std::set<std::pair<std::int64_t, TimeNs>> calls;
  for (const CpuOp &op : model->cpuOps)
    calls.insert({op.thread.pid, op.start});
  EXPECT_EQ(calls, (std::set<std::pair<std::int64_t, TimeNs>>{
                       {100, T0}, {200, T0 + 5000}}));
  // Each process's GPU 0 on a track of its own, named for it.
  ASSERT_EQ(model->gpuRecords.size(), 2u);
  std::set<std::int64_t> gpuPids;
  for (const GpuRecord &r : model->gpuRecords)
    gpuPids.insert(r.row.pid);
  EXPECT_EQ(gpuPids.size(), 2u);
  EXPECT_EQ(gpuPids.count(0), 0u);
  std::set<std::string> names;
  for (const ProcessInfo &p : model->processes)
    if (p.name != NoName)
      names.insert(std::string(model->name(p.name)));
  EXPECT_EQ(names, (std::set<std::string>{"app", "GPU 0 (pid 100)",
                                          "GPU 0 (pid 200)"}));
  // Correlations and flows stay unique: each launch joins its own kernel.
  std::map<std::int64_t, std::int64_t> launchPidOf; // correlation -> pid
  for (const ApiCall &a : model->apiCalls)
    launchPidOf[a.correlation] = a.thread.pid;
  ASSERT_EQ(launchPidOf.size(), 2u);
  for (const GpuRecord &r : model->gpuRecords) {
    ASSERT_EQ(launchPidOf.count(r.correlation), 1u);
    EXPECT_EQ(r.start - T0, launchPidOf[r.correlation] == 100 ? 300 : 5300);
  }
  std::map<std::int64_t, std::set<std::int64_t>> flowPids;
  for (const FlowPoint &f : model->flows)
    flowPids[f.id].insert(f.thread.pid);
  ASSERT_EQ(flowPids.size(), 2u);
  // Metadata: the drops summed, each trace's own kept with its file.
  EXPECT_EQ(model->metadata.droppedSpans, 4u);
  EXPECT_FALSE(model->metadata.pid);
  json meta = json::parse(text)[key::Metadata];
  EXPECT_EQ(meta[key::MetaClockDomain], "CLOCK_MONOTONIC");
  ASSERT_EQ(meta[key::MetaMerged].size(), 2u);
  EXPECT_EQ(meta[key::MetaMerged][1][key::MetaPid], 200);
  EXPECT_NE(meta[key::MetaMerged][1][key::MergedFile].get<std::string>().find(
                "merge-1.trace.json"),
            std::string::npos);
}

TEST(TraceMerge, OneFunctionTableForAllLocatesEveryCall) {
  // Calls carry no location of their own (as the runtime writes them); each
  // trace's metadata.functions says where its functions are. The merge lists
  // each function once, and every call of both processes finds its place.
  auto withTable = [](std::int64_t pid, const char *only) {
    json doc = json::parse(processTrace(pid, pid * 10));
    for (json &e : doc[key::Events])
      e.erase(key::Args);
    json shared = {{key::Name, "launch"},
                   {key::MetaFunctionMangled, "_Z6launchv"},
                   {key::ArgFile, "/src/app.cpp"},
                   {key::ArgLine, 3}};
    json own = {{key::Name, only},
                {key::MetaFunctionMangled, std::string("_Z") + only},
                {key::ArgFile, "/src/own.cpp"},
                {key::ArgLine, pid}};
    doc[key::Metadata][key::MetaFunctions] = {shared, own};
    return doc.dump();
  };
  std::string error;
  std::string text = merged(
      {withTable(100, "first_only"), withTable(200, "second_only")}, error);
  ASSERT_FALSE(text.empty()) << error;
  json meta = json::parse(text)[key::Metadata];
  std::vector<std::string> listed;
  for (const json &f : meta[key::MetaFunctions])
    listed.push_back(f[key::Name].get<std::string>());
  EXPECT_EQ(listed,
            (std::vector<std::string>{"launch", "first_only", "second_only"}));
  for (const json &m : meta[key::MetaMerged])
    EXPECT_FALSE(m.contains(key::MetaFunctions)); // not twice
  std::optional<TraceModel> model = parseTrace(text, error);
  ASSERT_TRUE(model) << error;
  ASSERT_EQ(model->cpuOps.size(), 2u);
  for (const CpuOp &op : model->cpuOps) {
    EXPECT_EQ(model->name(op.file), "/src/app.cpp");
    EXPECT_EQ(op.line, 3);
  }
}

TEST(TraceMerge, RefusesWhatCannotShareATimeline) {
  std::string error;
  EXPECT_EQ(merged({processTrace(100, 0), processTrace(100, 10)}, error), "");
  EXPECT_NE(error.find("merge-1.trace.json: process 100 is in "),
            std::string::npos)
      << error;
  std::string other = processTrace(200, 0);
  json doc = json::parse(other);
  doc[key::Metadata][key::MetaClockDomain] = "CLOCK_REALTIME";
  EXPECT_EQ(merged({processTrace(100, 0), doc.dump()}, error), "");
  EXPECT_NE(error.find("merge-1.trace.json: its clock is CLOCK_REALTIME, "),
            std::string::npos)
      << error;
  std::string cut = processTrace(200, 0);
  cut.resize(cut.size() / 2);
  EXPECT_EQ(merged({processTrace(100, 0), cut}, error), "");
  EXPECT_NE(error.find("merge-1.trace.json: truncated"), std::string::npos)
      << error;
}

TEST(TraceMerge, RefusesIdsTooLargeToRenumber) {
  // The second trace's flow ids are offset past the first's: ids near the
  // top of the 64-bit range would wrap round to collide with others.
  auto withFlowId = [](std::int64_t pid, std::int64_t id) {
    json doc = json::parse(processTrace(pid, 0));
    for (json &e : doc[key::Events])
      if (e.contains(key::FlowId))
        e[key::FlowId] = id;
    return doc.dump();
  };
  std::int64_t huge = std::numeric_limits<std::int64_t>::max() - 1000;
  std::string error;
  EXPECT_EQ(merged({withFlowId(100, huge), withFlowId(200, huge)}, error), "");
  EXPECT_NE(error.find("merge-1.trace.json: its flow ids go up to " +
                       std::to_string(huge)),
            std::string::npos)
      << error;
  // One such trace alone is renumbered by nothing: merged as it is.
  EXPECT_NE(merged({withFlowId(100, huge), withFlowId(200, 1)}, error), "")
      << error;
}

namespace {

nlohmann::ordered_json summary(std::int64_t pid, std::uint64_t calls,
                               std::uint64_t total, std::uint64_t min,
                               std::uint64_t max, std::uint64_t start) {
  namespace s = perfcc::schema::summary;
  nlohmann::ordered_json times = {
      {s::Total, total}, {s::Mean, calls ? total / calls : 0},
      {s::P50, min},     {s::P99, max},
      {s::Min, min},     {s::Max, max}};
  nlohmann::ordered_json fn = {{s::Name, "work"},
                               {s::Mangled, "_Z4workv"},
                               {s::File, "app.cpp"},
                               {s::Line, 3},
                               {s::Calls, calls},
                               {s::InclusiveNs, times},
                               {s::ExclusiveNs, times},
                               {s::Threads,
                                {{{s::Tid, pid},
                                  {s::Calls, calls},
                                  {s::InclusiveNs, times},
                                  {s::ExclusiveNs, times}}}}};
  return {
      {s::Version, "0.1.0"},
      {s::Program, "app"},
      {s::Pid, pid},
      {s::Mode, "summary"},
      {s::Dropped, {{s::DroppedSpans, 1}}},
      {s::Window,
       {{s::StartNs, start}, {s::EndNs, start + 1000}, {s::DurationNs, 1000}}},
      {s::Functions, {fn}},
      {s::Threads,
       {{{s::Tid, pid}, {s::ThreadName, "app"}, {s::Calls, calls}}}},
      {s::Progress,
       {{{s::Name, "items"},
         {s::Kind, s::KindThroughput},
         {s::Count, calls},
         {s::RatePerS, 10.0}}}}};
}

} // namespace

TEST(SummaryMerge, ExactWhereItCanBeAndEachProcessKept) {
  namespace s = perfcc::schema::summary;
  auto out =
      mergeSummaries({{"a.summary.json", summary(1, 10, 1000, 50, 300, 5000)},
                      {"b.summary.json", summary(2, 30, 2000, 20, 90, 5500)}},
                     "9.9");
  ASSERT_EQ(out[s::Functions].size(), 1u);
  const auto &fn = out[s::Functions][0];
  EXPECT_EQ(fn[s::Calls], 40u);
  EXPECT_EQ(fn[s::InclusiveNs][s::Total], 3000u);
  EXPECT_EQ(fn[s::InclusiveNs][s::Mean], 75u);
  EXPECT_EQ(fn[s::InclusiveNs][s::Min], 20u);
  EXPECT_EQ(fn[s::InclusiveNs][s::Max], 300u);
  EXPECT_FALSE(fn[s::InclusiveNs].contains(s::P50)); // no union's percentile
  ASSERT_EQ(fn[s::Processes].size(), 2u);
  EXPECT_EQ(fn[s::Processes][1][s::Pid], 2);
  EXPECT_EQ(fn[s::Processes][1][s::InclusiveNs][s::P99], 90u);
  ASSERT_EQ(fn[s::Threads].size(), 2u);
  EXPECT_EQ(fn[s::Threads][1][s::Pid], 2);
  EXPECT_EQ(out[s::Threads].size(), 2u);
  EXPECT_EQ(out[s::Dropped][s::DroppedSpans], 2u);
  EXPECT_EQ(out[s::Window][s::StartNs], 5000u);
  EXPECT_EQ(out[s::Window][s::EndNs], 6500u);
  EXPECT_EQ(out[s::Progress][0][s::Count], 40u);
  EXPECT_DOUBLE_EQ(out[s::Progress][0][s::RatePerS].get<double>(), 20.0);
  ASSERT_EQ(out[s::Merged].size(), 2u);
  EXPECT_EQ(out[s::Merged][0][s::MergedFile], "a.summary.json");
  EXPECT_FALSE(out[s::Merged][0].contains(s::Functions));

  // A function only one process called keeps that process's percentiles.
  auto single = mergeSummaries({{"a", summary(1, 10, 1000, 50, 300, 0)},
                                {"b", summary(2, 0, 0, 0, 0, 0)}},
                               "9.9");
  EXPECT_EQ(single[s::Functions][0][s::InclusiveNs][s::P50], 50u);
  EXPECT_THROW(mergeSummaries({{"c", {{s::Functions, 3}}}}, "9.9"),
               std::runtime_error);
}

TEST(SummaryMerge, AProgressPointOfTheWrongKindIsAnErrorNamingTheFile) {
  // The merge adds a point to the first one of its name: a count that is a
  // float, a rate that is a string or a point that is not an object must be
  // refused before anything is added to it (summary_fuzzer found each).
  namespace s = perfcc::schema::summary;
  auto expectRefused = [](nlohmann::ordered_json point, const char *what) {
    auto b = summary(2, 30, 2000, 20, 90, 5500);
    b[s::Progress].push_back(std::move(point));
    try {
      mergeSummaries({{"a.summary.json", summary(1, 10, 1000, 50, 300, 5000)},
                      {"b.summary.json", b}},
                     "9.9");
      ADD_FAILURE() << "accepted a point with " << what;
    } catch (const std::runtime_error &e) {
      EXPECT_NE(std::string(e.what()).find("b.summary.json: not a perfcc "
                                           "summary: "),
                std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos)
          << e.what();
    }
  };
  expectRefused({{s::Name, "items"}, {s::Count, 1e30}},
                "progress point \"items\" has no count \"count\"");
  expectRefused({{s::Name, "items"}, {s::Ends, "a"}, {s::MeanLatencyNs, 1}},
                "has no count \"ends\"");
  expectRefused({{s::Name, "items"}, {s::RatePerS, "fast"}},
                "has no number \"rate_per_s\"");
  expectRefused(5, "a progress point is not an object");
}

TEST(SummaryMerge, WorkIsSummedAndItsRatesTakenOverTheMergedTime) {
  // perf_work's totals add over processes; the rates are over the merged
  // inclusive time (3,000 ns), as the runtime computes them; a malformed
  // work object adds nothing; work outside any call adds at the top.
  namespace s = perfcc::schema::summary;
  auto a = summary(1, 10, 1000, 50, 300, 5000);
  auto b = summary(2, 30, 2000, 20, 90, 5500);
  auto c = summary(3, 0, 0, 0, 0, 0);
  a[s::Functions][0][s::Work] = {
      {s::WorkBytes, 6000}, {s::WorkFlops, 100}, {s::WorkReports, 10}};
  b[s::Functions][0][s::Work] = {
      {s::WorkBytes, 3000}, {s::WorkFlops, 200}, {s::WorkReports, 30}};
  c[s::Functions][0][s::Work] = {
      {s::WorkBytes, -5}, {s::WorkFlops, 1}, {s::WorkReports, 1}};
  a[s::WorkUnattributed] = {
      {s::WorkBytes, 7}, {s::WorkFlops, 7}, {s::WorkReports, 1}};
  auto out = mergeSummaries({{"a", a}, {"b", b}, {"c", c}}, "9.9");
  const auto &work = out[s::Functions][0][s::Work];
  EXPECT_EQ(work[s::WorkBytes], 9000u);
  EXPECT_EQ(work[s::WorkFlops], 300u);
  EXPECT_EQ(work[s::WorkReports], 40u);
  EXPECT_DOUBLE_EQ(work[s::WorkBytesPerS].get<double>(), 3e9);
  EXPECT_DOUBLE_EQ(work[s::WorkFlopsPerS].get<double>(), 1e8);
  EXPECT_DOUBLE_EQ(work[s::WorkFlopsPerByte].get<double>(), 300.0 / 9000);
  EXPECT_EQ(out[s::WorkUnattributed][s::WorkBytes], 7u);
  // None reported: no work object.
  auto none =
      mergeSummaries({{"b", summary(2, 30, 2000, 20, 90, 5500)}}, "9.9");
  EXPECT_FALSE(none[s::Functions][0].contains(s::Work));
  EXPECT_FALSE(none.contains(s::WorkUnattributed));
}
