//===- SpeedupAnalysisTest.cpp - perfctl's virtual-speedup analysis -------===//
//
// Synthetic speedup sweeps whose right answer is known: targets holding 40%
// of the time per unit of work on the critical path gain 1 / (1 - 0.4 P) - 1
// when P faster, with the truth inside the interval and the slope at small
// P near 0.4; targets off the path gain nothing; the scaling from the 1%
// baseline is exact on a noiseless line; an invalid run marks its group
// and ranks it last; the answer reads as Coz's table does.
//
//===----------------------------------------------------------------------===//
#include "speedup/Analysis.h"

#include "sweep/Plan.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace perfcc::perfctl;

namespace {

const std::vector<unsigned> kPercents = {1, 10, 25, 50};

/// Runs of \p group: the effective time per unit of work at P is
/// base * (1 - share * P / 100), with multiplicative noise; the real time
/// stays at base (the other threads wait anyway).
void addGroup(std::vector<SpeedupPoint> &points, int group, double share,
              unsigned repeats, double noise, std::uint64_t seed,
              bool valid = true) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  for (unsigned percent : kPercents)
    for (unsigned r = 0; r < repeats; ++r) {
      SpeedupPoint p;
      p.group = group;
      p.percent = percent;
      double time =
          100000 * (1 - share * percent / 100.0) * (1 + noise * normal(rng));
      p.virtualThroughput = 1e9 / time;
      p.throughput = 1e9 / (100000 * (1 + noise * normal(rng)));
      p.valid = valid;
      p.reason = valid ? "" : "the process loaded a CUDA driver";
      points.push_back(p);
    }
}

void addUnarmed(std::vector<SpeedupPoint> &points, unsigned repeats,
                double time) {
  for (unsigned r = 0; r < repeats; ++r) {
    SpeedupPoint p;
    p.throughput = 1e9 / (time * (1 + 0.001 * r));
    points.push_back(p);
  }
}

SpeedupAnalysis analyze(const std::vector<SpeedupPoint> &points,
                        std::vector<std::string> names = {"consumer",
                                                          "producer"}) {
  AnalysisSettings settings;
  settings.resamples = 1000;
  std::vector<std::string> files;
  for (const std::string &name : names)
    files.push_back(name + ".targets");
  return analyzeSpeedups(names, files, kPercents, points, settings);
}

double truth(double share, unsigned percent) {
  return 100 * (1 / (1 - share * percent / 100.0) - 1);
}

/// The gain of the program run without the experiment, which takes
/// \p unarmed ns a unit, when P% faster targets save share * P% of the
/// armed 100 us a unit (the arming's own cost is not sped up).
double truthAgainst(double share, unsigned percent, double unarmed) {
  double saved = 100000 * share * percent / 100.0;
  return 100 * (unarmed / (unarmed - saved) - 1);
}

} // namespace

TEST(SpeedupGain, ScalesTheChangeFromTheBaselineToTheWholeSpeedup) {
  // 20% more virtual throughput from 1% to 25% measures 24 points of
  // speedup; the whole 25% is 25/24 of it.
  EXPECT_NEAR(speedupGain(1.2, 1.0, 25, 1), 20 * 25.0 / 24, 1e-9);
  EXPECT_DOUBLE_EQ(speedupGain(1.0, 1.0, 50, 1), 0);
  EXPECT_LT(speedupGain(0.9, 1.0, 10, 1), 0);
  EXPECT_TRUE(std::isnan(speedupGain(1.2, 1.0, 1, 1)));
  EXPECT_TRUE(std::isnan(speedupGain(1.2, 0, 10, 1)));
  // Exact when the time per unit is linear in P: y(P) = 1 - 0.4 P.
  auto rate = [](double percent) { return 1 / (1 - 0.4 * percent / 100); };
  for (unsigned p : {2u, 10u, 25u, 50u, 100u})
    EXPECT_NEAR(speedupGain(rate(p), rate(1), p, 1), truth(0.4, p), 1e-9) << p;
}

TEST(SpeedupGain, FormatsAsWholeSignedPercents) {
  EXPECT_EQ(formatGain(26.4), "+26%");
  EXPECT_EQ(formatGain(-3.2), "-3%");
  EXPECT_EQ(formatGain(-0.3), "+0%");
  EXPECT_EQ(formatGain(0), "+0%");
  EXPECT_EQ(formatGain(std::nan("")), "n/a");
}

TEST(SpeedupAnalysis, CriticalTargetsGainWithTheTruthInsideTheInterval) {
  int covered = 0, slopeCovered = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    std::vector<SpeedupPoint> points;
    addGroup(points, 0, 0.4, 5, 0.01, seed);
    addGroup(points, 1, 0.0, 5, 0.01, seed + 100);
    addUnarmed(points, 5, 95000);
    SpeedupAnalysis a = analyze(points);
    const SpeedupGroup &c = a.groups[0];
    ASSERT_EQ(c.levels.size(), 4u);
    EXPECT_EQ(c.levels[0].percent, 1u);
    EXPECT_TRUE(std::isnan(c.levels[0].gainPercent.value));
    EXPECT_EQ(c.headlinePercent, 50u);
    // Gains are of the program without the experiment: 5% faster than
    // the armed baseline (the controls' median, 95190 ns a unit), and the
    // time the targets save is worth more of it.
    double unarmed = 95000 * 1.002;
    covered += c.headline.ci.contains(truthAgainst(0.4, 50, unarmed));
    EXPECT_NEAR(c.headline.value, truthAgainst(0.4, 50, unarmed), 3)
        << "seed " << seed;
    EXPECT_NEAR(c.levels[2].gainPercent.value, truthAgainst(0.4, 25, unarmed),
                3);
    // From 1% to 10% only: a 9-point step, so noisier than the gains.
    EXPECT_EQ(c.slopeToPercent, 10u);
    double share = 0.4 * 100000 / unarmed;
    EXPECT_NEAR(c.slope.value, share, 0.3);
    slopeCovered += c.slope.ci.contains(share);
    ASSERT_TRUE(c.line.ok);
    EXPECT_NEAR(-100 * c.line.slope / c.line.intercept, 0.4, 0.05);
    // The baseline's real time per unit against the unarmed control.
    EXPECT_NEAR(c.overheadPercent.value, 100000 / 95000.0 * 100 - 100, 2);
    const SpeedupGroup &p = a.groups[1];
    EXPECT_TRUE(p.headline.ci.contains(0) || std::fabs(p.headline.value) < 2);
    EXPECT_EQ(a.ranking, (std::vector<std::size_t>{0, 1}));
  }
  EXPECT_GE(covered, 8);
  EXPECT_GE(slopeCovered, 8);
}

TEST(SpeedupAnalysis, AnswerReadsIfGroupWerePercentFaster) {
  std::vector<SpeedupPoint> points;
  // The producer listed first, the consumer ranked first.
  addGroup(points, 0, 0.0, 5, 0.0, 1);
  addGroup(points, 1, 0.4, 5, 0.0, 2);
  addUnarmed(points, 5, 100000);
  SpeedupAnalysis a = analyze(points, {"producer", "consumer"});
  EXPECT_EQ(a.answer, "consumer: +25% [+25%, +25%] if 50% faster; producer: "
                      "+0% [+0%, +0%] if 50% faster");
  EXPECT_EQ(a.groups[1].verdict, "+25% [+25%, +25%] if 50% faster");
  // Against the controls (100200 ns a unit: a hair slower than armed).
  EXPECT_NEAR(a.groups[1].slope.value, 0.4, 0.003);
  EXPECT_EQ(a.ranking, (std::vector<std::size_t>{1, 0}));
  EXPECT_TRUE(a.groups[0].valid);
}

TEST(SpeedupAnalysis, AnInvalidRunMarksItsGroupAndRanksItLast) {
  std::vector<SpeedupPoint> points;
  addGroup(points, 0, 0.4, 3, 0.0, 1);
  addGroup(points, 1, 0.0, 3, 0.0, 2);
  points[4].valid = false; // one run of the consumer
  points[4].reason = "the process loaded a CUDA driver";
  addUnarmed(points, 3, 100000);
  SpeedupAnalysis a = analyze(points);
  const SpeedupGroup &c = a.groups[0];
  EXPECT_FALSE(c.valid);
  EXPECT_EQ(c.reason, "the process loaded a CUDA driver");
  EXPECT_EQ(c.verdict, "invalid: the process loaded a CUDA driver");
  EXPECT_EQ(c.evidence.back(), "invalid: the process loaded a CUDA driver");
  // The numbers are still computed (sweep.json keeps them).
  EXPECT_NEAR(c.headline.value, truthAgainst(0.4, 50, 100100), 1e-6);
  EXPECT_EQ(a.ranking, (std::vector<std::size_t>{1, 0}));
  EXPECT_EQ(a.answer, "producer: +0% [+0%, +0%] if 50% faster; consumer: "
                      "invalid: the process loaded a CUDA driver");
}

TEST(SpeedupAnalysis, ControlsAndNoise) {
  std::vector<SpeedupPoint> points;
  addGroup(points, 0, 0.2, 9, 0.02, 7);
  addUnarmed(points, 9, 100000);
  SpeedupAnalysis a = analyze(points, {"only"});
  EXPECT_EQ(a.unarmedThroughput.n, 9u);
  EXPECT_NEAR(a.unarmedThroughput.median, 1e9 / 100400, 50);
  EXPECT_GT(a.groups[0].noisePercent, 0.5);
  EXPECT_LT(a.groups[0].noisePercent, 5);
  EXPECT_EQ(a.percents, kPercents);
  // Evidence: the baseline, the slope at small P, the line, the noise.
  ASSERT_EQ(a.groups[0].evidence.size(), 4u);
  EXPECT_EQ(a.groups[0].evidence[1].rfind("slope at small P: +0.", 0), 0u)
      << a.groups[0].evidence[1];
}

TEST(SpeedupAnalysis, ALossIsSaidInWords) {
  // Speeding the group up makes the program slower (share < 0: the effective
  // time grows with P), as when a faster thread hammers a contended lock.
  std::vector<SpeedupPoint> points;
  addGroup(points, 0, -0.3, 5, 0.005, 3);
  addUnarmed(points, 5, 100000);
  SpeedupAnalysis a = analyze(points, {"hammer"});
  const SpeedupGroup &g = a.groups[0];
  EXPECT_LT(g.headline.value, 0);
  EXPECT_LT(g.headline.ci.hi, 0);
  EXPECT_NE(
      g.verdict.find("a loss, speeding it up would slow the program down"),
      std::string::npos)
      << g.verdict;
  // A gain reads as before, with no such words.
  std::vector<SpeedupPoint> gain;
  addGroup(gain, 0, 0.3, 5, 0.005, 4);
  addUnarmed(gain, 5, 100000);
  EXPECT_EQ(analyze(gain, {"g"}).groups[0].verdict.find("loss"),
            std::string::npos);
}

TEST(SpeedupGain, AgainstTheUnarmedProgramWhenItsTimeIsKnown) {
  // Armed, the time per unit is linear in P: y(P) = 1e9 (1 - 0.004 P) ns,
  // so P% faster saves 0.4 P% of 1e9 ns. The program without the
  // experiment takes 0.8e9 ns a unit: the same saving is worth more.
  auto rate = [](double percent) { return 1 / (1 - 0.004 * percent); };
  for (unsigned p : {10u, 25u, 50u}) {
    double saved = 1e9 * 0.004 * p;
    EXPECT_NEAR(speedupGain(rate(p), rate(1), p, 1, 1e9),
                100 * (1e9 / (1e9 - saved) - 1), 1e-6)
        << p;
    EXPECT_NEAR(speedupGain(rate(p), rate(1), p, 1, 0.8e9),
                100 * (0.8e9 / (0.8e9 - saved) - 1), 1e-6)
        << p;
  }
  // Saving more than the whole reference: no estimate.
  EXPECT_TRUE(std::isnan(speedupGain(rate(50), rate(1), 50, 1, 1e8)));
}

// The stopping rule of adaptive speedup sweeps: a noisy group's headline
// interval is wide after five repeats and narrows below the target with
// more; the allowance is a share of the gain, with a floor in points; an
// invalid group needs no more runs.
TEST(SpeedupSettled, NoisyGainsNeedMoreRunsUntilTheirIntervalNarrows) {
  unsigned settledAt5 = 0, settledAt30 = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    for (unsigned repeats : {5u, 30u}) {
      std::vector<SpeedupPoint> points;
      addGroup(points, 0, 0.4, repeats, 0.03, seed);
      addUnarmed(points, repeats, 95000);
      SpeedupAnalysis a = analyze(points, {"consumer"});
      SpeedupSettled s = isSettled(a.groups[0], 0.2);
      (repeats == 5 ? settledAt5 : settledAt30) += s.settled;
      EXPECT_NE(s.why.find("the gain at 50% is"), std::string::npos) << s.why;
    }
  }
  // 3% noise: a gain of about +27% needs an interval of 8 points; five
  // runs a level (about 17 wide) rarely get there, thirty (about 6) do.
  EXPECT_LE(settledAt5, 3u);
  EXPECT_GE(settledAt30, 9u);
}

TEST(SpeedupSettled, TheAllowanceIsAShareOfTheGainWithAFloorInPoints) {
  SpeedupGroup g;
  g.headlinePercent = 50;
  g.headline = {60, {52, 68}}; // 16 points wide, 0.2 x 60 = 12 allowed
  EXPECT_FALSE(isSettled(g, 0.2).settled);
  EXPECT_TRUE(isSettled(g, 0.3).settled); // 18 allowed
  g.headline = {1, {-3, 4.5}};            // 7.5 points: under the floor
  SpeedupSettled s = isSettled(g, 0.2);
  EXPECT_TRUE(s.settled);
  EXPECT_NE(s.why.find("at most 8.0"), std::string::npos) << s.why;
  g.headline = {1, {-5, 5}};
  EXPECT_FALSE(isSettled(g, 0.2).settled);
  g.headline = {std::nan(""), {std::nan(""), std::nan("")}};
  EXPECT_FALSE(isSettled(g, 0.2).settled);
  g.valid = false;
  EXPECT_TRUE(isSettled(g, 0.2).settled);
}
