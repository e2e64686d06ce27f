//===- RunResultTest.cpp - reading what one run of a sweep measured -------===//
//
// Summary fixtures in the runtime's format (docs/runtime.md): one process,
// forked processes merged, throughput from progress points, wall time and
// the program's output, and the errors a sweep stops on.
//
//===----------------------------------------------------------------------===//
#include "run/Result.h"

#include "perfcc/Selection.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace perfcc::perfctl;

namespace {

/// A summary as the runtime writes it, with \p units progress counts in a
/// window of \p windowNs, and \p delayedCalls delayed calls of "consumer".
std::string summary(std::uint64_t units, std::uint64_t windowNs,
                    std::uint64_t delayedCalls, std::uint64_t delayNs,
                    const std::string &progressName = "tokens") {
  std::uint64_t delivered = delayedCalls * delayNs + delayedCalls * 10;
  return R"({"perfcc_version":"0.1.0","program":"app","pid":42,"mode":"summary",
"trace":"","clock":"tsc","duration_ns":)" +
         std::to_string(windowNs + 5000000) + R"(,"functions_registered":3,
"dropped":{"spans":0,"depth_overflows":0,"unmatched_exits":0,"abandoned_frames":0},
"window":{"start_ns":100,"end_ns":)" +
         std::to_string(100 + windowNs) + R"(,"duration_ns":)" +
         std::to_string(windowNs) + R"(},
"delay":{"armed":true,"ns":)" +
         std::to_string(delayNs) + R"(,"frequency":1,"targets":"c.targets",
 "calibration":{"clock_read_ns":8.6,"min_delay_ns":30},
 "functions":[{"name":"consumer","calls_in_window":)" +
         std::to_string(delayedCalls) + R"(,"delayed_calls":)" +
         std::to_string(delayedCalls) + R"(,"requested_ns":)" +
         std::to_string(delayedCalls * delayNs) + R"(,"delivered_ns":)" +
         std::to_string(delivered) +
         R"(,"mean_error_ns":10,"worst_error_ns":55}],
 "delayed_calls":)" +
         std::to_string(delayedCalls) + R"(,"requested_ns":)" +
         std::to_string(delayedCalls * delayNs) + R"(,"delivered_ns":)" +
         std::to_string(delivered) + R"(},
"progress":[{"name":")" +
         progressName + R"(","kind":"throughput","count":)" +
         std::to_string(units + 7) + R"(,"count_in_window":)" +
         std::to_string(units) + R"(,"rate_per_s":1.0},
 {"name":"request","kind":"latency","begins":11,"ends":10,"ends_in_window":8,
  "rate_per_s":1.0,"mean_latency_ns":500}],
"functions":[
{"name":"consumer","mangled":"_Z8consumerv","file":"/src/pipe.cpp","line":3,"calls":)" +
         std::to_string(delayedCalls + 2) + R"(,
 "inclusive_ns":{"total":5000,"mean":50,"p50":50,"p99":60,"min":40,"max":70},
 "exclusive_ns":{"total":5000,"mean":50,"p50":50,"p99":60,"min":40,"max":70},
 "threads":[]},
{"name":"producer","mangled":"_Z8producerv","file":"/src/pipe.cpp","line":9,"calls":4,
 "inclusive_ns":{"total":400,"mean":100,"p50":100,"p99":100,"min":100,"max":100},
 "exclusive_ns":{"total":400,"mean":100,"p50":100,"p99":100,"min":100,"max":100},
 "threads":[]}
],"threads":[]})";
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
}

TEST(Summary, OlderRuntimeWithoutDelayOrWindowStillReads) {
  RunMeasurement m = parsed(R"({"duration_ns":7000,"functions":[]})");
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
  std::string text = summary(1000, 500000000, 0, 0);
  std::string speedup =
      R"("speedup":{"percent":25,"inserted_ns":100000000,"paid_ns":90000000,)"
      R"("effective_duration_ns":400000000,"valid":false,"reason":"the )"
      R"(process loaded a CUDA driver"},"progress":)";
  text.replace(text.find("\"progress\":"), 11, speedup);
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
