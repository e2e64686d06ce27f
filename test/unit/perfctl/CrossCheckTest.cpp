//===- CrossCheckTest.cpp - a lock's verdict from the other side ----------===//
//
// A slack verdict beside a contended mutex wants a cross-check by virtual
// speedups; what the cross-check measured replaces the advice to run one
// by hand with a gain, a loss or neither shown, in words; the speedups asked
// follow --extrapolate's percents; a sweep whose throughput a virtual
// speedup cannot correct says why it was not run. A gain of a function that
// holds the contended mutex wants one too, and where it measures less than
// the line extrapolates, the measurement is the estimate.
//
//===----------------------------------------------------------------------===//
#include "sweep/CrossCheck.h"
#include "SyntheticRuns.h"
#include "sweep/Plan.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <functional>

using namespace perfcc::perfctl;

namespace {

const std::vector<std::uint64_t> kFine = {0, 5000, 10000, 20000, 40000, 80000};

/// A group whose time per unit of work follows \p model (100 us at no
/// delay, the targets 40 us of their own work a call), its threads waiting
/// for a mutex 30% of the run, the targets doing \p held of their work
/// holding one (< 0: not reported), asked about \p percents faster.
GroupAnalysis nearAMutex(const std::function<double(double)> &model,
                         double held, std::uint64_t seed,
                         std::vector<unsigned> percents = {}) {
  std::vector<RunPoint> points;
  addGroup(points, 0, kFine, 5, model, 0.002, seed);
  for (RunPoint &p : points) {
    p.mutexWaitShare = 0.3;
    p.targetWorkNsPerCall = 40000;
    p.targetHeldShare = held;
  }
  addUnarmed(points, 5, 100000, 0.002, seed + 1);
  AnalysisSettings settings;
  settings.resamples = 300;
  settings.speedupPercents = std::move(percents);
  return analyzeSweep({"g"}, {"g.targets"}, kFine, points, settings).groups[0];
}

/// A flat curve (slack) whose threads waited for a mutex 30% of the run.
GroupAnalysis slackBesideAMutex() {
  return nearAMutex([](double) { return 100000.0; }, -1, 31);
}

SpeedupGroup measured(double value, double lo, double hi) {
  SpeedupGroup s;
  s.name = "g";
  s.headlinePercent = 50;
  s.headline = {value, {lo, hi}};
  s.levels.resize(3);
  s.levels[0].percent = BaselinePercent;
  s.levels[1].percent = 25;
  s.levels[1].gainPercent = {value / 2, {lo / 2, hi / 2}};
  s.levels[2].percent = 50;
  s.levels[2].gainPercent = s.headline;
  return s;
}

/// On the critical path (slope 1, 40 us of work a call against 100 us per
/// unit of work): the line puts 10% faster at +4.2% and 50% at +25%. The
/// function does \p held of its work holding a mutex the threads waited for
/// 30% of the run.
GroupAnalysis gainHoldingAMutex(double held) {
  return nearAMutex([](double x) { return 100000.0 + x; }, held, 41, {10, 50});
}

/// A virtual-speedup result at 10% and 50%.
SpeedupGroup measuredAt10And50(double at10, double at50) {
  SpeedupGroup s;
  s.name = "g";
  s.headlinePercent = 50;
  s.headline = {at50, {at50 - 2, at50 + 2}};
  s.levels.resize(3);
  s.levels[0].percent = BaselinePercent;
  s.levels[1].percent = 10;
  s.levels[1].gainPercent = {at10, {at10 - 1, at10 + 1}};
  s.levels[2].percent = 50;
  s.levels[2].gainPercent = s.headline;
  return s;
}

} // namespace

TEST(CrossCheck, SlackBesideAContendedMutexWantsOne) {
  GroupAnalysis g = slackBesideAMutex();
  ASSERT_EQ(g.shape, Shape::None);
  EXPECT_TRUE(g.crossCheck.wanted);
  EXPECT_FALSE(g.crossCheck.ran);
}

TEST(CrossCheck, AGainReplacesTheAdviceWithTheAnswer) {
  GroupAnalysis g = slackBesideAMutex();
  applyCrossCheck(g, measured(12.0, 6.5, 17.0));
  EXPECT_TRUE(g.crossCheck.ran);
  EXPECT_TRUE(g.crossCheck.valid);
  EXPECT_EQ(g.crossCheck.percent, 50u);
  // Every speedup measured is kept, the baseline left out.
  ASSERT_EQ(g.crossCheck.levels.size(), 2u);
  EXPECT_EQ(g.crossCheck.levels[0].first, 25u);
  EXPECT_DOUBLE_EQ(g.crossCheck.levels[0].second.value, 6.0);
  EXPECT_EQ(g.crossCheck.levels[1].first, 50u);
  EXPECT_EQ(g.verdict.find("cross-check with --speedup"), std::string::npos)
      << g.verdict;
  EXPECT_NE(g.verdict.find("sped up virtually (cross-check): +12.0% [+6.5%, "
                           "+17.0%] if 50% faster, a faster call saves "
                           "hand-offs of the mutex: worth speeding up, though "
                           "slowing it down shows slack"),
            std::string::npos)
      << g.verdict;
  EXPECT_EQ(g.verdict.rfind("off the critical path (none)", 0), 0u)
      << g.verdict;
  EXPECT_NE(g.evidence.back().find("cross-check/report.md"), std::string::npos);
}

TEST(CrossCheck, ALossAndNoGainAreSaidInWords) {
  GroupAnalysis loss = slackBesideAMutex();
  applyCrossCheck(loss, measured(-6.0, -9.0, -2.5));
  EXPECT_NE(loss.verdict.find("speeding it up would slow the program down"),
            std::string::npos)
      << loss.verdict;
  GroupAnalysis neither = slackBesideAMutex();
  applyCrossCheck(neither, measured(0.8, -1.5, 3.0));
  EXPECT_NE(
      neither.verdict.find("no gain or loss shown (the interval holds 0)"),
      std::string::npos)
      << neither.verdict;
}

TEST(CrossCheck, AnInvalidSpeedupSaysWhy) {
  GroupAnalysis g = slackBesideAMutex();
  SpeedupGroup s = measured(0, 0, 0);
  s.valid = false;
  s.reason = "the targets ran on a thread that was never paused";
  applyCrossCheck(g, s);
  EXPECT_TRUE(g.crossCheck.ran);
  EXPECT_FALSE(g.crossCheck.valid);
  EXPECT_EQ(g.crossCheck.why, s.reason);
  EXPECT_NE(g.verdict.find("could not tell: " + s.reason), std::string::npos)
      << g.verdict;
}

TEST(CrossCheck, SpeedupsFollowExtrapolateOrDefault) {
  AnalysisSettings settings;
  EXPECT_EQ(crossCheckPercents(settings), (std::vector<unsigned>{25, 50}));
  settings.speedupPercents = {50, 10, 30, 10};
  EXPECT_EQ(crossCheckPercents(settings), (std::vector<unsigned>{10, 30, 50}));
  // The baseline's 1% and a speedup of 100% (a call taking no time, which
  // pauses the other threads for its whole length) are not asked.
  settings.speedupPercents = {1, 100};
  EXPECT_EQ(crossCheckPercents(settings), (std::vector<unsigned>{25, 50}));
}

TEST(CrossCheck, ThroughputsAVirtualSpeedupCannotCorrectBlockIt) {
  SweepOptions options;
  EXPECT_EQ(crossCheckBlocker(options), "");
  options.throughput.source = ThroughputSource::WallTime;
  EXPECT_NE(crossCheckBlocker(options).find("progress point"),
            std::string::npos);
  options.throughput.source = ThroughputSource::Progress;
  options.frequency = 20;
  EXPECT_NE(crossCheckBlocker(options).find("--frequency"), std::string::npos);
}

TEST(CrossCheck, AGainHoldingAContendedMutexWantsOne) {
  GroupAnalysis g = gainHoldingAMutex(0.95);
  ASSERT_EQ(g.shape, Shape::Linear);
  EXPECT_DOUBLE_EQ(g.heldShare, 0.95);
  EXPECT_TRUE(g.crossCheck.wanted);
  EXPECT_TRUE(g.crossCheck.holdsMutex);
  EXPECT_NE(g.verdict.find(HeldMutexCrossCheckAdvice), std::string::npos)
      << g.verdict;
  EXPECT_NE(g.evidence.back().find("95% of its own work is done holding one"),
            std::string::npos)
      << g.evidence.back();
  // Work mostly outside the mutex: the line stands on its own.
  GroupAnalysis outside = gainHoldingAMutex(0.2);
  EXPECT_FALSE(outside.crossCheck.wanted);
  EXPECT_EQ(outside.verdict.find("--speedup"), std::string::npos)
      << outside.verdict;
}

TEST(CrossCheck, AHolderTakesTheMeasuredGainsWhereTheyAreLess) {
  GroupAnalysis g = gainHoldingAMutex(0.95);
  ASSERT_EQ(g.extrapolations.size(), 2u);
  ASSERT_EQ(g.extrapolations[1].percent, 50u);
  ASSERT_NEAR(g.extrapolations[1].gainPercent.value, 25.0, 0.5);
  double line10 = g.extrapolations[0].gainPercent.value;
  // The mutex stops being the bottleneck: +15% measured at 50% where the
  // line says +25%; at 10% the measurement (+4.5%) is above the line.
  applyCrossCheck(g, measuredAt10And50(4.5, 15.0));
  const Extrapolation &at50 = g.extrapolations[1];
  EXPECT_TRUE(at50.byCrossCheck);
  EXPECT_DOUBLE_EQ(at50.gainPercent.value, 15.0);
  EXPECT_DOUBLE_EQ(at50.gainPercent.ci.lo, 13.0);
  EXPECT_NEAR(at50.lineGainPercent.value, 25.0, 0.5);
  EXPECT_NE(at50.note.find("the most it could give"), std::string::npos)
      << at50.note;
  const Extrapolation &at10 = g.extrapolations[0];
  EXPECT_FALSE(at10.byCrossCheck);
  EXPECT_DOUBLE_EQ(at10.gainPercent.value, line10);
  EXPECT_EQ(g.verdict.find("cross-check with --speedup"), std::string::npos)
      << g.verdict;
  EXPECT_NE(g.verdict.find("holds a contended mutex, sped up virtually "
                           "(cross-check): +15.0% [+13.0%, +17.0%] if 50% "
                           "faster, less than the line extrapolates"),
            std::string::npos)
      << g.verdict;
  EXPECT_EQ(g.verdict.rfind("on the critical path (linear)", 0), 0u)
      << g.verdict;
}

TEST(CrossCheck, AHolderKeepsTheLineWhereTheMeasurementIsNotLess) {
  GroupAnalysis g = gainHoldingAMutex(0.95);
  double line50 = g.extrapolations[1].gainPercent.value;
  applyCrossCheck(g, measuredAt10And50(6.0, 30.0));
  for (const Extrapolation &e : g.extrapolations)
    EXPECT_FALSE(e.byCrossCheck);
  EXPECT_DOUBLE_EQ(g.extrapolations[1].gainPercent.value, line50);
  EXPECT_NE(g.verdict.find("the gains extrapolated stand"), std::string::npos)
      << g.verdict;
}

TEST(CrossCheck, PartlyOnThePathBesideAContendedMutexWantsOne) {
  // Half the delay passes through (sub-linear) for work done outside the
  // mutex: the part of the gain a faster hand-off brings is not in the
  // line (lock_convoy's prepare_local). Holding the mutex, the same curve
  // is a holder's cross-check instead.
  auto run = [](double held) {
    return nearAMutex([](double x) { return 100000.0 + 0.5 * x; }, held, 51);
  };
  GroupAnalysis beside = run(0.0);
  ASSERT_EQ(beside.shape, Shape::SubLinear);
  EXPECT_TRUE(beside.crossCheck.wanted);
  EXPECT_FALSE(beside.crossCheck.holdsMutex);
  EXPECT_NE(beside.verdict.find(CrossCheckAdvice), std::string::npos)
      << beside.verdict;
  GroupAnalysis holding = run(0.9);
  EXPECT_TRUE(holding.crossCheck.wanted);
  EXPECT_TRUE(holding.crossCheck.holdsMutex);
  EXPECT_EQ(holding.verdict.find(CrossCheckAdvice), std::string::npos)
      << holding.verdict;
}

namespace {

/// A watcher-like function (CallRateModelTest.cpp): each call costs the
/// worker 3.7 us, its thread calls it every 20 us + the delay, 19 us of its
/// own work a call; the worker's time per unit T = 5.4 us / (1 - 3.7 us / Q)
/// and its calls per unit T / Q. No mutex: the loss works through the call
/// rate alone. Asked about 50% faster: the line says about -7%, the
/// call-rate model about -20%.
GroupAnalysis lossThroughACallRate() {
  const std::vector<std::uint64_t> ladder = {0,     2000,  4000, 8000,
                                             16000, 24000, 32000};
  auto time = [](double x) { return 5400 / (1 - 3700 / (20000 + x)); };
  std::vector<RunPoint> points;
  for (std::uint64_t delay : ladder)
    for (unsigned r = 0; r < 5; ++r) {
      RunPoint p;
      p.group = 0;
      p.delayNs = delay;
      double x = double(delay), wobble = 1 + 0.002 * (int(r) - 2);
      p.timePerUnitNs = time(x) * wobble;
      p.throughput = 1e9 / p.timePerUnitNs;
      p.delayedCallsPerUnit = time(x) / (20000 + x);
      p.delayPerUnitNs = x * p.delayedCallsPerUnit;
      p.targetNsPerCall = 19000 + x;
      p.targetWorkNsPerCall = 19000;
      points.push_back(p);
    }
  addUnarmed(points, 5, time(0), 0.002, 61);
  AnalysisSettings settings;
  settings.resamples = 300;
  settings.speedupPercents = {50};
  return analyzeSweep({"g"}, {"g.targets"}, ladder, points, settings).groups[0];
}

} // namespace

TEST(CrossCheck, ALossThroughACallRateWantsOne) {
  GroupAnalysis g = lossThroughACallRate();
  ASSERT_EQ(g.shape, Shape::Negative) << g.verdict;
  ASSERT_TRUE(g.callRate.applies) << g.callRate.why;
  ASSERT_EQ(g.extrapolations.size(), 1u);
  EXPECT_TRUE(g.extrapolations[0].byCallRate);
  EXPECT_TRUE(g.crossCheck.wanted);
  EXPECT_TRUE(g.crossCheck.callRate);
  EXPECT_FALSE(g.crossCheck.holdsMutex);
  EXPECT_NE(g.verdict.find(CallRateCrossCheckAdvice), std::string::npos)
      << g.verdict;
  // Both ends of the bracket are there for the cross-check to use.
  const Extrapolation &e = g.extrapolations[0];
  EXPECT_LT(e.callRateGainPercent.value, e.lineGainPercent.value);
  EXPECT_DOUBLE_EQ(e.callRateGainPercent.value, e.gainPercent.value);
}

TEST(CrossCheck, ALossMeasuredWithinTheBracketIsTheEstimate) {
  GroupAnalysis g = lossThroughACallRate();
  const Extrapolation before = g.extrapolations[0];
  double mid = (before.lineGainPercent.value + before.gainPercent.value) / 2;
  applyCrossCheck(g, measured(mid, mid - 2, mid + 2));
  const Extrapolation &e = g.extrapolations[0];
  EXPECT_TRUE(e.byCrossCheck);
  EXPECT_TRUE(e.byCallRate);
  EXPECT_DOUBLE_EQ(e.gainPercent.value, mid);
  EXPECT_DOUBLE_EQ(e.gainPercent.ci.lo, mid - 2);
  EXPECT_DOUBLE_EQ(e.callRateGainPercent.value, before.gainPercent.value);
  EXPECT_DOUBLE_EQ(e.lineGainPercent.value, before.lineGainPercent.value);
  // It says what was measured in place of the model's sentence, and still
  // that it is a loss.
  EXPECT_NE(e.note.find("measured by virtual speedups (the cross-check)"),
            std::string::npos)
      << e.note;
  EXPECT_NE(e.note.find("a loss: speeding it up slows the program down"),
            std::string::npos)
      << e.note;
  EXPECT_EQ(e.note.find("held fixed"), std::string::npos) << e.note;
  // The verdict states the measured loss, and the advice is answered.
  EXPECT_EQ(g.verdict.find("cross-check with --speedup"), std::string::npos)
      << g.verdict;
  EXPECT_EQ(g.verdict.rfind(
                "speeding it up would slow the program down (negative)", 0),
            0u)
      << g.verdict;
  EXPECT_NE(g.verdict.find(fmt::format("; {:+.1f}% throughput at", mid)),
            std::string::npos)
      << g.verdict;
  EXPECT_NE(g.verdict.find("between the line's (the least) and the call-rate "
                           "model's (the most)"),
            std::string::npos)
      << g.verdict;
}

TEST(CrossCheck, ALossMeasuredOutsideTheBracketIsTakenAtItsEnd) {
  // Beyond the model (a virtual speedup's pause paid in lumps can add a
  // loss of its own): the model's loss, the most the mechanism gives.
  GroupAnalysis more = lossThroughACallRate();
  double model = more.extrapolations[0].gainPercent.value;
  applyCrossCheck(more, measured(model - 10, model - 13, model - 7));
  const Extrapolation &m = more.extrapolations[0];
  EXPECT_DOUBLE_EQ(m.gainPercent.value, model);
  EXPECT_LE(m.gainPercent.ci.lo, model);
  EXPECT_DOUBLE_EQ(m.gainPercent.ci.hi, model);
  EXPECT_NE(m.note.find("beyond the call-rate model's loss, taken at it"),
            std::string::npos)
      << m.note;
  EXPECT_NE(more.verdict.find("brought within"), std::string::npos)
      << more.verdict;
  // Short of the line (a measured gain even): the line's loss, the least.
  GroupAnalysis less = lossThroughACallRate();
  double line = less.extrapolations[0].lineGainPercent.value;
  applyCrossCheck(less, measured(1.0, -1.0, 3.0));
  const Extrapolation &l = less.extrapolations[0];
  EXPECT_DOUBLE_EQ(l.gainPercent.value, line);
  EXPECT_LT(l.gainPercent.value, 0);
  EXPECT_NE(l.note.find("short of the line's loss, taken at it"),
            std::string::npos)
      << l.note;
}
