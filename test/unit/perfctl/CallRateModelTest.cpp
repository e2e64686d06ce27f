//===- CallRateModelTest.cpp - losses through a call rate, known answers --===//
//
// Synthetic sweeps of a watcher-like function: each of its calls costs the
// worker h ns, its thread calls it every Q0 + x ns (x: the delay a call),
// so the worker's time per unit is T = Tc / (1 - h / Q) and its calls per
// unit T / Q. The true loss of each call s ns shorter is known in closed
// form; the model must find it within its interval, where the line through
// the slow-downs finds about half of it. Where the calls per unit do not
// move, or the time per unit does not follow them, the model must not
// apply.
//
//===----------------------------------------------------------------------===//
#include "sweep/CallRateModel.h"
#include "SyntheticRuns.h"
#include "sweep/Analysis.h"
#include "sweep/Sizing.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace perfcc::perfctl;

namespace {

const std::vector<std::uint64_t> kLadder = {0,     2000,  4000, 8000,
                                            16000, 24000, 32000};

struct Watcher {
  double tc = 5400, h = 3700, q0 = 20000, g = 1.0;
  double time(double x) const { return tc / (1 - h / (q0 + g * x)); }
  double calls(double x) const { return time(x) / (q0 + g * x); }
  /// The real throughput change of each call s ns shorter, in %.
  double gain(double s) const { return 100 * (time(0) / time(-s) - 1); }
};

/// Runs of \p w at kLadder, \p repeats each, with relative noise \p noise
/// in the watcher's pace and in the measured time; group 0, with unarmed
/// controls.
std::vector<RunPoint> watcherRuns(const Watcher &w, double noise,
                                  std::uint64_t seed, unsigned repeats = 5) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  std::vector<RunPoint> points;
  for (std::uint64_t delay : kLadder)
    for (unsigned r = 0; r < repeats; ++r) {
      RunPoint p;
      p.group = 0;
      p.delayNs = delay;
      // A run's watcher keeps its own pace (its period varies), and the
      // worker's time per unit follows it; the time is also measured
      // with noise of its own.
      double x = double(delay);
      double period = (w.q0 + w.g * x) * (1 + noise * normal(rng));
      double time = w.tc / (1 - w.h / period);
      p.timePerUnitNs = time * (1 + noise * normal(rng));
      p.throughput = 1e9 / p.timePerUnitNs;
      p.delayedCallsPerUnit = time / period;
      p.delayPerUnitNs = x * p.delayedCallsPerUnit;
      p.targetNsPerCall = 19000 + x;
      p.targetWorkNsPerCall = 19000;
      points.push_back(p);
    }
  addUnarmed(points, repeats, w.time(0), noise, seed + 7);
  return points;
}

SweepAnalysis analyze(const std::vector<RunPoint> &points,
                      std::vector<unsigned> percents) {
  AnalysisSettings settings;
  settings.resamples = 1000;
  settings.speedupPercents = std::move(percents);
  return analyzeSweep({"check"}, {"check.targets"}, kLadder, points, settings);
}

} // namespace

TEST(CallRateModel, ExactRunsGiveTheClosedFormLoss) {
  Watcher w;
  std::vector<CallRateRun> runs;
  for (std::size_t level = 0; level < kLadder.size(); ++level) {
    double x = double(kLadder[level]);
    runs.push_back({level, w.calls(x), w.time(x), x});
  }
  CallRateModel m = fitCallRateModel(runs, 0.95);
  // T is exactly linear in r (T = Tc + h r) and Q in x: both fits exact.
  ASSERT_TRUE(m.applies) << m.why;
  EXPECT_NEAR(m.harm.slope, w.h, 1e-6 * w.h);
  EXPECT_NEAR(m.period.intercept, w.q0, 1e-6 * w.q0);
  for (double s : {2000.0, 6000.0, 10000.0}) {
    double ratio = callRateTimeRatio(m.harm, m.period, s);
    EXPECT_NEAR(100 * (1 / ratio - 1), w.gain(s), 1e-6);
  }
  // A call every h ns or more often: the worker would never finish.
  EXPECT_TRUE(std::isinf(callRateTimeRatio(m.harm, m.period, w.q0)));
}

TEST(CallRateModel, FindsTheLossTheLineUnderstates) {
  // 50% of a 19 us call: the truth is -20.5%; a line through the
  // slow-downs (which flatten as the calls thin out) says about -7%.
  Watcher w;
  double truth = w.gain(9500);
  int covered = 0;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    SweepAnalysis a = analyze(watcherRuns(w, 0.01, seed), {50});
    const GroupAnalysis &g = a.groups[0];
    ASSERT_EQ(g.shape, Shape::Negative) << g.verdict;
    ASSERT_TRUE(g.callRate.applies) << g.callRate.why;
    ASSERT_EQ(g.extrapolations.size(), 1u);
    const Extrapolation &e = g.extrapolations[0];
    EXPECT_TRUE(e.byCallRate);
    covered += e.gainPercent.ci.contains(truth);
    EXPECT_NEAR(e.gainPercent.value, truth, 3)
        << "seed " << seed << ": [" << e.gainPercent.ci.lo << ", "
        << e.gainPercent.ci.hi << "]";
    // The line's answer is kept, smaller, as the loss's lower end.
    EXPECT_LT(e.lineGainPercent.value, 0);
    EXPECT_GT(e.lineGainPercent.value, truth / 2 + 2);
    EXPECT_NE(e.note.find("the least"), std::string::npos) << e.note;
    bool said = false;
    for (const std::string &line : g.evidence)
      said |= line.rfind("loss by call rate", 0) == 0;
    EXPECT_TRUE(said);
  }
  // A percentile bootstrap of five runs a level is a little narrow: 95%
  // intervals, at least four of five cover the truth.
  EXPECT_GE(covered, 4);
}

TEST(CallRateModel, DoesNotApplyWhenTheCallsPerUnitStayPut) {
  // A loss whose calls per unit do not move (one call a unit, harm by its
  // length): the line stays the estimate, said to be the least.
  std::vector<RunPoint> points;
  addGroup(
      points, 0, kLadder, 5, [](double x) { return 200000 - 0.5 * x; }, 0.01,
      3);
  for (RunPoint &p : points)
    p.delayedCallsPerUnit = 1;
  addUnarmed(points, 5, 200000, 0.01, 4);
  AnalysisSettings settings;
  settings.resamples = 500;
  SweepAnalysis a =
      analyzeSweep({"g"}, {"g.targets"}, kLadder, points, settings);
  const GroupAnalysis &g = a.groups[0];
  ASSERT_EQ(g.shape, Shape::Negative);
  EXPECT_FALSE(g.callRate.applies);
  EXPECT_NE(g.callRate.why.find("hardly fell"), std::string::npos)
      << g.callRate.why;
  for (const Extrapolation &e : g.extrapolations)
    EXPECT_FALSE(e.byCallRate);
  EXPECT_NE(g.evidence.back().find("the least it would be"), std::string::npos)
      << g.evidence.back();
}

TEST(CallRateModel, DoesNotApplyWhenTimeDoesNotFollowTheCalls) {
  // The calls per unit fall as it is slowed but the time per unit does not
  // follow them (its harm is not per call): no call-rate estimate.
  std::vector<CallRateRun> runs;
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal;
  for (std::size_t level = 0; level < kLadder.size(); ++level)
    for (int r = 0; r < 5; ++r) {
      double x = double(kLadder[level]);
      runs.push_back(
          {level, 1000 / (2000 + x), 100000 * (1 + 0.01 * normal(rng)), x});
    }
  CallRateModel m = fitCallRateModel(runs, 0.95);
  EXPECT_FALSE(m.applies);
  EXPECT_NE(m.why.find("did not rise"), std::string::npos) << m.why;
}

TEST(CallRateModel, NeedsCallsAtThreeLevels) {
  std::vector<CallRateRun> runs = {{0, 0.3, 6000, 0}, {1, 0.2, 5800, 5000}};
  CallRateModel m = fitCallRateModel(runs, 0.95);
  EXPECT_FALSE(m.applies);
  EXPECT_NE(m.why.find("three delays"), std::string::npos) << m.why;
}

TEST(CallRateModel, AWideLossKeepsTheSweepGoing) {
  // The pass-through is narrow long before the loss estimated from it is:
  // an adaptive sweep goes on until the largest loss is narrow too.
  Watcher w;
  SweepAnalysis noisy = analyze(watcherRuns(w, 0.03, 11, 3), {50});
  const GroupAnalysis &g = noisy.groups[0];
  ASSERT_EQ(g.shape, Shape::Negative) << g.verdict;
  ASSERT_TRUE(g.callRate.applies) << g.callRate.why;
  double width = g.extrapolations.back().gainPercent.ci.width();
  ASSERT_GT(width, LossSettledPoints);
  ASSERT_LE(g.passThrough.ci.width(), 0.2);
  Settled s = isSettled(g, 0.2);
  EXPECT_FALSE(s.settled) << s.why;
  EXPECT_NE(s.why.find("its loss at"), std::string::npos) << s.why;
  // Many quiet runs: settled.
  SweepAnalysis quiet = analyze(watcherRuns(w, 0.005, 12, 10), {50});
  EXPECT_TRUE(isSettled(quiet.groups[0], 0.2).settled)
      << isSettled(quiet.groups[0], 0.2).why;
}
