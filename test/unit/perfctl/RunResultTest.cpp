//===- RunResultTest.cpp - reading what one run of a sweep measured -------===//
//
// Summary fixtures in the runtime's format (docs/runtime.md): one process,
// forked processes merged, throughput from progress points, wall time and
// the program's output, and the errors a sweep stops on.
//
//===----------------------------------------------------------------------===//
#include "run/Result.h"

#include "perfcc/OutputSchema.h"
#include "perfcc/Selection.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace perfcc::perfctl;

namespace {

/// A summary as the runtime writes it, with \p units progress counts in a
/// window of \p windowNs, and \p delayedCalls delayed calls of "consumer".
/// Built with the schema's keys (perfcc/OutputSchema.h), as the runtime does.
std::string summary(std::uint64_t units, std::uint64_t windowNs,
                    std::uint64_t delayedCalls, std::uint64_t delayNs,
                    const std::string &progressName = "tokens") {
  namespace k = perfcc::schema::summary;
  using nlohmann::json;
  std::uint64_t delivered = delayedCalls * delayNs + delayedCalls * 10;
  auto times = [](std::uint64_t total, std::uint64_t mean, std::uint64_t min,
                  std::uint64_t max) {
    return json{{k::Total, total}, {k::Mean, mean}, {k::P50, mean},
                {k::P99, max},     {k::Min, min},   {k::Max, max}};
  };
  json doc = {
      {k::Version, "0.1.0"},
      {k::Program, "app"},
      {k::Pid, 42},
      {k::Mode, "summary"},
      {k::TraceFile, ""},
      {k::Clock, "tsc"},
      {k::DurationNs, windowNs + 5000000},
      {k::FunctionsRegistered, 3},
      {k::Dropped,
       {{k::DroppedSpans, 0},
        {k::DroppedDepthOverflows, 0},
        {k::DroppedUnmatchedExits, 0},
        {k::DroppedAbandonedFrames, 0}}},
      {k::Window,
       {{k::StartNs, 100},
        {k::EndNs, 100 + windowNs},
        {k::DurationNs, windowNs}}},
      {k::Delay,
       {{k::Armed, true},
        {k::DelayNs, delayNs},
        {k::Frequency, 1},
        {k::DelayTargets, "c.targets"},
        {k::Calibration, {{k::ClockReadNs, 8.6}, {k::MinDelayNs, 30}}},
        {k::Functions, json::array({{{k::Name, "consumer"},
                                     {k::CallsInWindow, delayedCalls},
                                     {k::DelayedCalls, delayedCalls},
                                     {k::RequestedNs, delayedCalls * delayNs},
                                     {k::DeliveredNs, delivered},
                                     {k::MeanErrorNs, 10},
                                     {k::WorstErrorNs, 55}}})},
        {k::DelayedCalls, delayedCalls},
        {k::RequestedNs, delayedCalls * delayNs},
        {k::DeliveredNs, delivered},
        {k::MutexWaitNs, windowNs / 10},
        {k::ContendedLocks, 12}}},
      {k::Progress, json::array({{{k::Name, progressName},
                                  {k::Kind, k::KindThroughput},
                                  {k::Count, units + 7},
                                  {k::CountInWindow, units},
                                  {k::RatePerS, 1.0}},
                                 {{k::Name, "request"},
                                  {k::Kind, k::KindLatency},
                                  {k::Begins, 11},
                                  {k::Ends, 10},
                                  {k::EndsInWindow, 8},
                                  {k::RatePerS, 1.0},
                                  {k::MeanLatencyNs, 500}}})},
      {k::Functions, json::array({{{k::Name, "consumer"},
                                   {k::Mangled, "_Z8consumerv"},
                                   {k::File, "/src/pipe.cpp"},
                                   {k::Line, 3},
                                   {k::Calls, delayedCalls + 2},
                                   {k::InclusiveNs, times(5000, 50, 40, 70)},
                                   {k::ExclusiveNs, times(5000, 50, 40, 70)},
                                   {k::Threads, json::array()}},
                                  {{k::Name, "producer"},
                                   {k::Mangled, "_Z8producerv"},
                                   {k::File, "/src/pipe.cpp"},
                                   {k::Line, 9},
                                   {k::Calls, 4},
                                   {k::InclusiveNs, times(400, 100, 100, 100)},
                                   {k::ExclusiveNs, times(400, 100, 100, 100)},
                                   {k::Threads, json::array()}}})},
      {k::Threads, json::array()}};
  return doc.dump();
}

RunMeasurement parsed(const std::string &text) {
  std::string error;
  std::optional<RunMeasurement> m = parseSummary(text, "s.json", error);
  EXPECT_TRUE(m) << error;
  return m.value_or(RunMeasurement{});
}

std::optional<RunOutcome> measure(const RunMeasurement &m,
                                  const ThroughputSpec &spec,
                                  std::string &error, double wallNs = 2e9,
                                  const std::string &output = "",
                                  const OutputPattern *pattern = nullptr) {
  return measureRun(m, spec, pattern, wallNs, output, error);
}

} // namespace

TEST(Summary, ReadsWindowDelayProgressAndFunctions) {
  RunMeasurement m = parsed(summary(1000, 500000000, 2000, 1000));
  EXPECT_EQ(m.windowNs, 500000000u);
  EXPECT_TRUE(m.hasDelay);
  EXPECT_TRUE(m.armed);
  EXPECT_EQ(m.delayedCalls, 2000u);
  EXPECT_EQ(m.deliveredNs, 2000u * 1010);
  EXPECT_DOUBLE_EQ(m.clockReadNs, 8.6);
  ASSERT_EQ(m.delayed.size(), 1u);
  EXPECT_EQ(m.delayed[0].name, "consumer");
  EXPECT_DOUBLE_EQ(m.delayed[0].worstErrorNs, 55);
  ASSERT_EQ(m.progress.size(), 2u);
  EXPECT_EQ(m.progress[0].name, "tokens");
  EXPECT_EQ(m.progress[0].countInWindow, 1000u);
  EXPECT_EQ(m.progress[1].kind, "latency");
  EXPECT_EQ(m.progress[1].count, 10u); // ends
  EXPECT_EQ(m.progress[1].countInWindow, 8u);
  ASSERT_EQ(m.functions.size(), 2u);
  EXPECT_EQ(m.functions[0].mangled, "_Z8consumerv");
  EXPECT_DOUBLE_EQ(m.functions[1].inclusiveNs, 400);
  EXPECT_EQ(m.mutexWaitNs, 50000000u);
  EXPECT_EQ(m.contendedLocks, 12u);
}

TEST(Summary, MutexWaitsAreSummedOverProcessesAsAShareOfTheRun) {
  // Each process waited 50 ms of its 505 ms run; the run's share sums them
  // over the longest process, as the waits of threads sum.
  RunMeasurement m = parsed(summary(1000, 500000000, 2000, 1000));
  mergeMeasurement(m, parsed(summary(1000, 500000000, 2000, 1000)));
  EXPECT_EQ(m.mutexWaitNs, 100000000u);
  EXPECT_EQ(m.contendedLocks, 24u);
  std::string error;
  std::optional<RunOutcome> o = measure(m, ThroughputSpec{}, error);
  ASSERT_TRUE(o) << error;
  EXPECT_NEAR(o->mutexWaitShare, 100.0 / 505, 1e-9);
}

TEST(Summary, OlderRuntimeWithoutDelayOrWindowStillReads) {
  namespace k = perfcc::schema::summary;
  RunMeasurement m = parsed(nlohmann::json{
      {k::DurationNs, 7000},
      {k::Functions,
       nlohmann::json::array()}}.dump());
  EXPECT_FALSE(m.hasDelay);
  EXPECT_EQ(m.windowNs, 7000u); // the whole run
  EXPECT_TRUE(m.progress.empty());
}

TEST(Summary, MalformedIsAnErrorNamingTheFile) {
  std::string error;
  EXPECT_FALSE(parseSummary("{\"functions\": [", "x.summary.json", error));
  EXPECT_EQ(error.rfind("x.summary.json: not a perfcc summary", 0), 0u);
  EXPECT_FALSE(parseSummary("[1,2]", "y.json", error));
}

// Found by test/fuzz/summary_fuzzer (scripts/fuzz.sh, 2026-11-26): a
// number as "armed" threw out of the reader and ended perfctl.
TEST(Summary, AFlagThatIsNoFlagIsAnErrorNamingFileAndKey) {
  std::string error;
  EXPECT_FALSE(parseSummary(R"({"functions": [], "delay": {"armed": 0}})",
                            "z.json", error));
  EXPECT_EQ(error, "z.json: \"armed\" is 0, not true or false: not a summary "
                   "perfcc wrote");
  EXPECT_TRUE(parseSummary(R"({"functions": [], "delay": {"armed": true}})",
                           "z.json", error));
}

// Found by test/fuzz/summary_fuzzer: a count past 2^64 as a float was
// converted to an integer (undefined behaviour), a negative one wrapped.
TEST(Summary, ACountThatIsNoCountIsAnErrorNamingFileAndKey) {
  std::string error;
  EXPECT_FALSE(
      parseSummary(R"({"functions": [], "window": {"duration_ns": 1e+41}})",
                   "z.json", error));
  EXPECT_EQ(error, "z.json: \"duration_ns\" is 1e+41, not a count (a "
                   "non-negative integer): not a summary perfcc wrote");
  EXPECT_FALSE(parseSummary(R"({"functions": [{"name": "f", "calls": -3}]})",
                            "z.json", error));
  EXPECT_NE(error.find("\"calls\" is -3"), std::string::npos);
  EXPECT_FALSE(parseSummary(R"({"functions": [], "duration_ns": "12"})",
                            "z.json", error));
  EXPECT_NE(error.find("\"duration_ns\" is \"12\""), std::string::npos);
}

TEST(Summary, ForkedProcessesAreSummedWithTheLongestWindow) {
  RunMeasurement a = parsed(summary(1000, 500000000, 2000, 1000));
  RunMeasurement b = parsed(summary(300, 200000000, 600, 1000));
  mergeMeasurement(a, b);
  EXPECT_EQ(a.windowNs, 500000000u);
  EXPECT_EQ(a.delayedCalls, 2600u);
  EXPECT_EQ(a.deliveredNs, 2600u * 1010);
  EXPECT_EQ(a.progress[0].countInWindow, 1300u);
  EXPECT_EQ(a.delayed[0].delayedCalls, 2600u);
  EXPECT_EQ(a.functions[0].calls, 2002u + 602u);
  EXPECT_EQ(a.files.size(), 2u);
}

TEST(Summary, RunFolderMergesEverySummaryFile) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(testing::TempDir()) / "run-folder";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string error;
  EXPECT_FALSE(readRunFolder(dir.string(), error));
  EXPECT_NE(error.find("wrote no summary into"), std::string::npos);
  std::ofstream(dir / "app.1.summary.json") << summary(100, 1000000, 10, 5);
  std::ofstream(dir / "app.2.summary.json") << summary(50, 3000000, 5, 5);
  std::ofstream(dir / "app.1.trace.json") << "not read";
  std::ofstream(dir / ".app.1.spans") << "not read";
  std::optional<RunMeasurement> m = readRunFolder(dir.string(), error);
  ASSERT_TRUE(m) << error;
  EXPECT_EQ(m->files.size(), 2u);
  EXPECT_EQ(m->progress[0].countInWindow, 150u);
  EXPECT_EQ(m->windowNs, 3000000u);
}

TEST(Throughput, FromTheFirstProgressPointByDefault) {
  RunMeasurement m = parsed(summary(1000, 500000000, 2000, 1000));
  std::string error;
  std::optional<RunOutcome> o = measure(m, {}, error);
  ASSERT_TRUE(o) << error;
  EXPECT_EQ(o->progress, "tokens");
  EXPECT_DOUBLE_EQ(o->throughput, 2000); // 1000 in 0.5 s
  EXPECT_DOUBLE_EQ(o->timePerUnitNs, 500000);
  EXPECT_DOUBLE_EQ(o->workUnits, 1000);
  EXPECT_DOUBLE_EQ(o->delayPerUnitNs, 2000.0 * 1010 / 1000);
}

TEST(Throughput, FromANamedOrALatencyPoint) {
  RunMeasurement m = parsed(summary(1000, 500000000, 2000, 1000));
  std::string error;
  ThroughputSpec spec;
  spec.progress = "request";
  std::optional<RunOutcome> o = measure(m, spec, error);
  ASSERT_TRUE(o) << error;
  EXPECT_DOUBLE_EQ(o->throughput, 16); // 8 ends in 0.5 s
  spec.progress = "nope";
  EXPECT_FALSE(measure(m, spec, error));
  EXPECT_EQ(error, "it has no progress point named 'nope' (it has 'tokens', "
                   "'request')");
}

TEST(Throughput, ProgressNeverReachedInTheWindowIsAnError) {
  RunMeasurement m = parsed(summary(0, 500000000, 2000, 1000));
  std::string error;
  EXPECT_FALSE(measure(m, {}, error));
  EXPECT_EQ(error, "progress point 'tokens' was never reached in the "
                   "measurement window (7 in the whole run, window 500 ms)");
  m.progress.clear();
  EXPECT_FALSE(measure(m, {}, error));
  EXPECT_NE(error.find("no progress point"), std::string::npos);
}

TEST(Throughput, FromWallTimeAndWork) {
  RunMeasurement m = parsed(summary(1000, 500000000, 2000, 1000));
  ThroughputSpec spec;
  spec.source = ThroughputSource::WallTime;
  spec.work = 50;
  std::string error;
  std::optional<RunOutcome> o = measure(m, spec, error, 2e9);
  ASSERT_TRUE(o) << error;
  EXPECT_DOUBLE_EQ(o->throughput, 25);
  EXPECT_DOUBLE_EQ(o->delayPerUnitNs, 2000.0 * 1010 / 50);
}

TEST(Throughput, FromTheLastNumberTheRegexCaptures) {
  RunMeasurement m = parsed(summary(1000, 500000000, 2000, 1000));
  std::string error;
  auto pattern = OutputPattern::compile("tok/s: ([0-9.]+)", error);
  ASSERT_TRUE(pattern) << error;
  ThroughputSpec spec;
  spec.source = ThroughputSource::Regex;
  std::optional<RunOutcome> o = measure(
      m, spec, error, 2e9, "tok/s: 1.5\nother\ntok/s: 400.25\n", pattern.get());
  ASSERT_TRUE(o) << error;
  EXPECT_DOUBLE_EQ(o->throughput, 400.25);
  EXPECT_DOUBLE_EQ(o->workUnits, 400.25 * 0.5); // over the window
  EXPECT_FALSE(measure(m, spec, error, 2e9, "nothing here\n", pattern.get()));
  EXPECT_EQ(error, "no line of its output matched --regex 'tok/s: ([0-9.]+)'");
  EXPECT_FALSE(measure(m, spec, error, 2e9, "tok/s: .\n", pattern.get()));
  EXPECT_NE(error.find("captured '.', not a non-negative number"),
            std::string::npos);
}

TEST(Throughput, RegexMustCompileWithOneGroup) {
  std::string error;
  EXPECT_FALSE(OutputPattern::compile("a(b", error));
  EXPECT_NE(error.find("--regex 'a(b': missing closing parenthesis"),
            std::string::npos)
      << error;
  EXPECT_FALSE(OutputPattern::compile("(a)(b)", error));
  EXPECT_NE(error.find("exactly one capture group"), std::string::npos);
  EXPECT_TRUE(OutputPattern::compile("(?:x)=(\\d+)", error)); // PCRE syntax
}

// A pattern that backtracks catastrophically on the program's output is an
// error in bounded time that says so (it read "no line of its output
// matched", which sent the user looking at the program instead).
TEST(Throughput, CatastrophicRegexGivesUpWithAnError) {
  std::string error;
  auto pattern = OutputPattern::compile("^((?:a|aa)+)$", error);
  ASSERT_TRUE(pattern) << error;
  std::string output(40, 'a');
  output += "b\n";
  EXPECT_FALSE(pattern->lastNumber(output, error));
  EXPECT_NE(error.find("gave up after 10000000 backtracking steps"),
            std::string::npos)
      << error;
}

TEST(Targets, MatchedAgainstTheProbedFunctions) {
  RunMeasurement m = parsed(summary(1000, 500000000, 2000, 1000));
  std::string error;
  auto selection = perfcc::Selection::parse(
      "consumer\nnot_there\npipe.cpp:prod*\n", "t.targets", error);
  ASSERT_TRUE(selection) << error;
  TargetUse use = matchTargets(*selection, m);
  EXPECT_EQ(use.functions, (std::vector<std::string>{"consumer", "producer"}));
  EXPECT_EQ(use.calls, 2002u + 4u);
  EXPECT_DOUBLE_EQ(use.inclusiveNs, 5400);
  EXPECT_EQ(use.unusedPatterns,
            (std::vector<std::string>{"t.targets:2: 'not_there'"}));
}

TEST(Speedup, VirtualRateFromTheEffectiveWindowAndValidity) {
  namespace k = perfcc::schema::summary;
  nlohmann::json doc = nlohmann::json::parse(summary(1000, 500000000, 0, 0));
  doc[k::Speedup] = {
      {k::Percent, 25},      {k::InsertedNs, 100000000},
      {k::PaidNs, 90000000}, {k::EffectiveDurationNs, 400000000},
      {k::Valid, false},     {k::Reason, "the process loaded a CUDA driver"}};
  std::string text = doc.dump();
  RunMeasurement m = parsed(text);
  EXPECT_TRUE(m.hasSpeedup);
  EXPECT_EQ(m.speedupPercent, 25u);
  EXPECT_EQ(m.insertedNs, 100000000u);
  EXPECT_EQ(m.effectiveNs, 400000000u);
  EXPECT_FALSE(m.speedupValid);
  EXPECT_EQ(m.speedupReason, "the process loaded a CUDA driver");
  std::string error;
  std::optional<RunOutcome> o = measure(m, ThroughputSpec{}, error);
  ASSERT_TRUE(o) << error;
  EXPECT_TRUE(o->speedup);
  EXPECT_DOUBLE_EQ(o->throughput, 2000);        // 1000 in 0.5 s
  EXPECT_DOUBLE_EQ(o->virtualThroughput, 2500); // 1000 in 0.4 s
  EXPECT_FALSE(o->speedupValid);

  // Forked processes: inserted delay summed, the longest effective window,
  // invalid when any says so.
  RunMeasurement valid = parsed(summary(10, 1000, 0, 0));
  EXPECT_FALSE(valid.hasSpeedup);
  EXPECT_FALSE(measure(valid, ThroughputSpec{}, error)->speedup);
  mergeMeasurement(valid, m);
  EXPECT_TRUE(valid.hasSpeedup);
  EXPECT_FALSE(valid.speedupValid);
  EXPECT_EQ(valid.effectiveNs, 400000000u);

  // No effective time left is an error, not a division by zero.
  m.effectiveNs = 0;
  EXPECT_FALSE(measure(m, ThroughputSpec{}, error));
  EXPECT_NE(error.find("no effective time"), std::string::npos) << error;
}
