//===- SpeedupReportTest.cpp - a speedup sweep's sweep.json, report, plot -===//
#include "speedup/Plot.h"
#include "speedup/Report.h"
#include "sweep/Report.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace perfcc::perfctl;

namespace {

/// A complete speedup sweep over synthetic runs: "consumer" holds 40% of
/// the time per unit on the critical path, "producer" none of it.
SweepState syntheticSweep(bool cuda = false) {
  SweepState state;
  state.options.command = {"./pipeline"};
  state.plan = makeSpeedupPlan(
      {{"consumer", "c.targets"}, {"producer", "p.targets"}}, {10, 25}, 3, 5);
  unsigned wobble = 0;
  for (const PlannedRun &run : state.plan.runs) {
    RunRecord r;
    r.plan = run;
    r.folder = "runs/" + std::to_string(run.index);
    r.command.started = true;
    r.command.exitStatus = 0;
    r.command.wallNs = 1e8;
    r.measured = true;
    double time = 100000 * (1 + 0.002 * double(wobble++ % 3));
    double share = run.group == 0 ? 0.4 : 0.0;
    double effective = time * (1 - share * run.speedupPercent / 100.0);
    r.outcome.progress = "tokens";
    r.outcome.workUnits = 1000;
    r.outcome.throughput = 1e9 / time;
    r.outcome.timePerUnitNs = time;
    r.outcome.windowNs = 1000 * time;
    if (run.armed()) {
      r.outcome.speedup = true;
      r.outcome.virtualThroughput = 1e9 / effective;
      r.outcome.effectiveWindowNs = 1000 * effective;
      r.outcome.insertedNs = 1000 * (time - effective);
      r.outcome.paidNs = r.outcome.insertedNs;
      r.outcome.speedupValid = !(cuda && run.group == 0);
      r.outcome.speedupReason =
          r.outcome.speedupValid ? "" : "the process loaded a CUDA driver";
    }
    state.records.push_back(r);
  }
  state.status = "complete";
  return state;
}

SpeedupAnalysis analyzed(const SweepState &state) {
  AnalysisSettings settings;
  settings.resamples = 300;
  return analyzeSpeedups({"consumer", "producer"}, {"c.targets", "p.targets"},
                         state.plan.speedups, speedupPointsOf(state), settings);
}

} // namespace

TEST(SpeedupJson, HoldsTheRunsVirtualRatesAndTheAnalysis) {
  SweepState state = syntheticSweep();
  SpeedupAnalysis a = analyzed(state);
  nlohmann::json doc =
      nlohmann::json::parse(renderSweepJson(state, nullptr, &a));
  EXPECT_EQ(doc["settings"]["mode"], "speedup");
  EXPECT_EQ(doc["settings"]["speedups_percent"], nlohmann::json({1, 10, 25}));
  EXPECT_EQ(doc["settings"]["baseline_percent"], 1);
  for (const nlohmann::json &run : doc["runs"]) {
    ASSERT_TRUE(run.contains("speedup_percent"));
    if (run["armed"] == true) {
      EXPECT_TRUE(run["speedup_percent"].is_number());
      for (const char *key : {"virtual_throughput", "effective_window_ns",
                              "inserted_ns", "paid_ns", "speedup_valid"})
        EXPECT_TRUE(run.contains(key)) << key;
    } else {
      EXPECT_TRUE(run["speedup_percent"].is_null());
      EXPECT_FALSE(run.contains("virtual_throughput"));
    }
  }
  const nlohmann::json &analysis = doc["analysis"];
  EXPECT_EQ(analysis["mode"], "speedup");
  EXPECT_EQ(analysis["ranking"], nlohmann::json({"consumer", "producer"}));
  const nlohmann::json &consumer = analysis["groups"][0];
  EXPECT_EQ(consumer["valid"], true);
  EXPECT_EQ(consumer["headline"]["percent"], 25);
  EXPECT_NEAR(consumer["headline"]["gain_percent"]["value"].get<double>(),
              100 * (1 / 0.9 - 1), 0.5);
  ASSERT_EQ(consumer["levels"].size(), 3u);
  EXPECT_TRUE(consumer["levels"][0]["gain_percent"]["value"].is_null());
  EXPECT_TRUE(consumer["fit"]["line"]["slope_ci"][0].is_number());
  EXPECT_EQ(consumer["slope"]["to_percent"], 10);
  EXPECT_EQ(analysis["answer"], a.answer);

  // A speed-bump sweep says its mode, and its runs have no speedup fields.
  SweepState bumps;
  bumps.plan = makePlan({{"g", "g.t"}}, {1000}, 1, 1);
  nlohmann::json plain = nlohmann::json::parse(renderSweepJson(bumps, nullptr));
  EXPECT_EQ(plain["settings"]["mode"], "delay");
  EXPECT_FALSE(plain["settings"].contains("speedups_percent"));
}

TEST(SpeedupMarkdown, AnswersWithATablePerGroup) {
  SweepState state = syntheticSweep();
  SpeedupAnalysis a = analyzed(state);
  std::string md = renderSpeedupMarkdown(state, a, true);
  EXPECT_NE(md.find("# perfctl sweep: virtual speedups"), std::string::npos);
  EXPECT_NE(md.find("speedups 1% (baseline), 10%, 25% x 3 repeats"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("## Answer\n\n1. **consumer**: +11% ["), std::string::npos)
      << md;
  EXPECT_NE(md.find("| consumer at the 1% baseline (real) |"),
            std::string::npos);
  EXPECT_NE(md.find("| if consumer were | throughput | 95% CI |"),
            std::string::npos);
  EXPECT_NE(md.find("| 1% faster (baseline) | – | – | 3 |"), std::string::npos);
  EXPECT_NE(md.find("| 25% faster | +1"), std::string::npos) << md;
  EXPECT_NE(md.find("![predicted throughput change against the "
                    "speedup](plot.svg)"),
            std::string::npos);
  EXPECT_EQ(renderSpeedupMarkdown(state, a, false).find("plot.svg"),
            std::string::npos);
}

TEST(SpeedupMarkdown, SaysInvalidWithTheRuntimesReason) {
  SweepState state = syntheticSweep(/*cuda=*/true);
  SpeedupAnalysis a = analyzed(state);
  EXPECT_FALSE(a.groups[0].valid);
  std::string md = renderSpeedupMarkdown(state, a, false);
  EXPECT_NE(md.find("2. **consumer**: invalid: the process loaded a CUDA "
                    "driver"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("**invalid**: the process loaded a CUDA driver (the "
                    "numbers below do not hold)"),
            std::string::npos);
  nlohmann::json doc =
      nlohmann::json::parse(renderSweepJson(state, nullptr, &a));
  EXPECT_EQ(doc["analysis"]["groups"][0]["valid"], false);
  EXPECT_EQ(doc["analysis"]["groups"][0]["reason"],
            "the process loaded a CUDA driver");
}

TEST(SpeedupPlot, GainAgainstSpeedupWithErrorBarsRunsAndTheLine) {
  SweepState state = syntheticSweep(/*cuda=*/true);
  SpeedupAnalysis a = analyzed(state);
  std::string gp = renderSpeedupPlotScript(state, a, "/out");
  EXPECT_NE(gp.find("set terminal svg"), std::string::npos);
  EXPECT_NE(gp.find("set output '/out/plot.svg'"), std::string::npos);
  EXPECT_NE(gp.find("set xlabel 'virtual speedup of the group (%)'"),
            std::string::npos);
  EXPECT_NE(gp.find("predicted change of tokens per second (%)"),
            std::string::npos);
  EXPECT_NE(gp.find("index 0 using 1:2:3:4 with yerrorbars"),
            std::string::npos);
  EXPECT_NE(gp.find("title 'consumer (invalid)'"), std::string::npos);
  EXPECT_NE(gp.find("title 'producer line fit'"), std::string::npos);
  std::string data = renderSpeedupPlotData(state, a);
  EXPECT_NE(data.find("# consumer: speedup (%), predicted throughput change"),
            std::string::npos);
  EXPECT_NE(data.find("\n10 "), std::string::npos);
  EXPECT_NE(data.find("# producer: every run"), std::string::npos);
}
