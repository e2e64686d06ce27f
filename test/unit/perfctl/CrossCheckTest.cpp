//===- CrossCheckTest.cpp - a slack verdict measured from the other side --===//
//
// A slack verdict beside a contended mutex wants a cross-check by virtual
// speedups; what the cross-check measured replaces the advice to run one
// by hand with a gain, a loss or neither shown, in words; the speedups asked
// follow --extrapolate's percents; a sweep whose throughput a virtual
// speedup cannot correct says why it was not run.
//
//===----------------------------------------------------------------------===//
#include "sweep/CrossCheck.h"
#include "SyntheticRuns.h"
#include "sweep/Plan.h"

#include <gtest/gtest.h>

using namespace perfcc::perfctl;

namespace {

const std::vector<std::uint64_t> kFine = {0, 5000, 10000, 20000, 40000, 80000};

/// A flat curve (slack) whose threads waited for a mutex 30% of the run.
GroupAnalysis slackBesideAMutex() {
  std::vector<RunPoint> points;
  addGroup(
      points, 0, kFine, 5, [](double) { return 100000.0; }, 0.002, 31);
  for (RunPoint &p : points)
    p.mutexWaitShare = 0.3;
  addUnarmed(points, 5, 100000, 0.002, 32);
  AnalysisSettings settings;
  settings.resamples = 300;
  return analyzeSweep({"local"}, {"local.targets"}, kFine, points, settings)
      .groups[0];
}

SpeedupGroup measured(double value, double lo, double hi) {
  SpeedupGroup s;
  s.name = "local";
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
