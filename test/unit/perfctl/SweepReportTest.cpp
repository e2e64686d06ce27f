//===- SweepReportTest.cpp - sweep.json, report.md, the plot, progress ----===//
#include "sweep/Plot.h"
#include "sweep/Progress.h"
#include "sweep/Report.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>

using namespace perfcc::perfctl;

namespace {

/// A complete two-group sweep over synthetic runs: "consumer" linear,
/// "producer" flat, one failed-free record per planned run.
SweepState syntheticSweep() {
  SweepState state;
  state.options.command = {"./pipeline", "--items", "100"};
  state.plan = makePlan({{"consumer", "c.targets"}, {"producer", "p.targets"}},
                        {1000, 10000, 100000}, 4, 3);
  unsigned wobble = 0;
  for (const PlannedRun &run : state.plan.runs) {
    RunRecord r;
    r.plan = run;
    r.folder = "runs/" + std::to_string(run.index);
    r.command.started = true;
    r.command.exitStatus = 0;
    r.command.wallNs = 1e8;
    r.measured = true;
    double perUnit = double(run.delayNs);
    double time = 100000 * (1 + 0.005 * double(wobble++ % 5)) +
                  (run.group == 0 ? perUnit : 0);
    r.outcome.throughput = 1e9 / time;
    r.outcome.timePerUnitNs = time;
    r.outcome.delayPerUnitNs = perUnit;
    r.outcome.workUnits = 1000;
    r.outcome.delayedCalls = run.delayNs ? 1000 : 0;
    r.outcome.progress = "tokens";
    r.delayedCallsPerUnit = run.delayNs ? 1 : 0;
    state.records.push_back(r);
  }
  state.status = "complete";
  return state;
}

SweepAnalysis analyzed(const SweepState &state) {
  AnalysisSettings settings;
  settings.resamples = 300;
  return analyzeSweep({"consumer", "producer"}, {"c.targets", "p.targets"},
                      state.plan.delays, pointsOf(state), settings);
}

} // namespace

TEST(SweepJson, HoldsEveryRunAndTheStatistics) {
  SweepState state = syntheticSweep();
  SweepAnalysis a = analyzed(state);
  nlohmann::json doc = nlohmann::json::parse(renderSweepJson(state, &a));
  EXPECT_EQ(doc["status"], "complete");
  EXPECT_EQ(doc["command"][2], "100");
  EXPECT_EQ(doc["settings"]["delays"],
            nlohmann::json({"0", "1us", "10us", "100us"}));
  ASSERT_EQ(doc["runs"].size(), state.plan.runs.size());
  const nlohmann::json &run = doc["runs"][0];
  for (const char *key :
       {"index", "group", "armed", "delay_ns", "repeat", "exit_status",
        "wall_s", "throughput", "delivered_ns", "delay_per_unit_ns", "error"})
    EXPECT_TRUE(run.contains(key)) << key;
  const nlohmann::json &groups = doc["analysis"]["groups"];
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0]["shape"], "linear");
  EXPECT_EQ(groups[1]["shape"], "none");
  EXPECT_EQ(groups[0]["levels"].size(), 4u);
  EXPECT_TRUE(groups[0]["fit"]["line"]["slope_ci"][0].is_number());
  EXPECT_TRUE(groups[0]["fit"]["hinge"].contains("p"));
  EXPECT_EQ(doc["analysis"]["ranking"][0], "consumer");
  // NaN (no pass-through at delay 0) is null, so the file stays JSON.
  EXPECT_TRUE(groups[0]["levels"][0]["pass_through"]["value"].is_null());
}

TEST(SweepJson, WithoutAnalysisWhileRunningOrAfterAFailure) {
  SweepState state = syntheticSweep();
  state.records.resize(2);
  state.records[1].measured = false;
  state.records[1].error = "it reported no progress point";
  state.status = "failed";
  state.error = "run 2/28 (...): it reported no progress point";
  nlohmann::json doc = nlohmann::json::parse(renderSweepJson(state, nullptr));
  EXPECT_EQ(doc["status"], "failed");
  EXPECT_FALSE(doc.contains("analysis"));
  EXPECT_EQ(doc["runs"].size(), 2u);
  EXPECT_EQ(doc["runs"][1]["error"], "it reported no progress point");
  EXPECT_FALSE(doc["runs"][1].contains("throughput"));
}

TEST(Markdown, HasAnswerControlsATablePerGroupAndExtrapolations) {
  SweepState state = syntheticSweep();
  SweepAnalysis a = analyzed(state);
  std::string md = renderMarkdown(state, a, true);
  EXPECT_NE(md.find("## Answer\n\n1. **consumer**: on the critical path "
                    "(linear)"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("2. **producer**: off the critical path (none)"),
            std::string::npos);
  EXPECT_NE(md.find("## Controls"), std::string::npos);
  EXPECT_NE(md.find("| unarmed |"), std::string::npos);
  EXPECT_NE(md.find("## consumer (`c.targets`)"), std::string::npos);
  EXPECT_NE(md.find("| 100us | 4 |"), std::string::npos);
  EXPECT_NE(md.find("| if each call were faster by |"), std::string::npos);
  EXPECT_NE(md.find("![throughput against delay](plot.svg)"),
            std::string::npos);
  EXPECT_EQ(renderMarkdown(state, a, false).find("plot.svg"),
            std::string::npos);
}

TEST(Plot, ScriptDrawsEveryGroupWithErrorBarsAndFits) {
  SweepState state = syntheticSweep();
  SweepAnalysis a = analyzed(state);
  std::string gp = renderPlotScript(state, a, "/out/it's");
  EXPECT_NE(gp.find("set terminal svg"), std::string::npos);
  EXPECT_NE(gp.find("set output '/out/it''s/plot.svg'"), std::string::npos);
  EXPECT_NE(gp.find("index 0 using 1:2:3:4 with yerrorbars"),
            std::string::npos);
  EXPECT_NE(gp.find("title 'consumer (linear)'"), std::string::npos);
  EXPECT_NE(gp.find("title 'producer (none)'"), std::string::npos);
  EXPECT_NE(gp.find("title 'consumer fit'"), std::string::npos);
  EXPECT_NE(gp.find("unarmed control"), std::string::npos);
  EXPECT_NE(gp.find("throughput: tokens per second"), std::string::npos);
  std::string data = renderPlotData(state, a);
  // Two blocks (medians, runs) per group.
  EXPECT_NE(data.find("# consumer: delay per unit"), std::string::npos);
  EXPECT_NE(data.find("# producer: every run"), std::string::npos);
}

TEST(Progress, BarCountsRunsAndEstimatesTimeLeft) {
  SweepProgress progress(10, false, nullptr);
  EXPECT_LT(progress.secondsLeft(), 0);
  EXPECT_EQ(progress.bar(""), "[..............................] 0/10 runs");
  progress.finished("a", 2e9, "");
  progress.finished("b", 4e9, "");
  EXPECT_DOUBLE_EQ(progress.secondsLeft(), 3.0 * 8);
  EXPECT_EQ(progress.bar("x, delay 1us, repeat 2"),
            "[######........................] 2/10 runs, about 24 s left (x, "
            "delay 1us, repeat 2)");
}

TEST(Progress, LinePerRunWhenNotATerminal) {
  char *text = nullptr;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  SweepProgress progress(2, false, out);
  progress.started("g, delay 0, repeat 1");
  progress.finished("g, delay 0, repeat 1", 1.5e9, "123 units/s");
  std::fclose(out);
  EXPECT_STREQ(text, "perfctl: run 1/2 (g, delay 0, repeat 1): 123 units/s "
                     "in 1.50 s; about 2 s left\n");
  free(text);
}

TEST(Progress, SecondsReadAsMinutesAndHours) {
  EXPECT_EQ(formatSeconds(4.4), "4 s");
  EXPECT_EQ(formatSeconds(185), "3 min 05 s");
  EXPECT_EQ(formatSeconds(3720), "1 h 02 min");
}
