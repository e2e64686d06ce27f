//===- SweepSizingTest.cpp - delays and repeats a sweep chooses itself ----===//
//
// The ladder --delays auto picks from a pilot's figures (its range reaches
// past any slack a function can have, with two points past every possible
// knee), the stopping rule of adaptive repeats (settled, budget, maximum),
// and, on synthetic noisy sweeps whose answer is known, that adding rounds
// until settled ends on the right shape.
//
//===----------------------------------------------------------------------===//
#include "SyntheticRuns.h"
#include "sweep/Sizing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

using namespace perfcc::perfctl;

TEST(Budget, ParsesSecondsMinutesHours) {
  std::string error;
  EXPECT_EQ(parseBudget("90", error), 90.0);
  EXPECT_EQ(parseBudget("90s", error), 90.0);
  EXPECT_EQ(parseBudget("5m", error), 300.0);
  EXPECT_EQ(parseBudget("5min", error), 300.0);
  EXPECT_EQ(parseBudget("1.5h", error), 5400.0);
  for (const char *bad : {"", "m", "5x", "0.5s", "-3m", "1h30m"}) {
    EXPECT_FALSE(parseBudget(bad, error)) << bad;
    EXPECT_NE(error.find("is not a time budget"), std::string::npos) << error;
  }
}

TEST(Ladder, DelaysKeepTwoSignificantDigits) {
  EXPECT_EQ(roundDelay(1234), 1200u);
  EXPECT_EQ(roundDelay(15049), 15000u);
  EXPECT_EQ(roundDelay(987654), 990000u);
  EXPECT_EQ(roundDelay(37.5), 38u);
  EXPECT_EQ(roundDelay(0.3), 1u);
}

TEST(Ladder, ReachesPastAnySlackWithTwoPointsBeyondEveryKnee) {
  // 900us per unit, 100 delayed calls per unit: the largest delay adds
  // 150% of the time per unit, 13.5us a call.
  Ladder ladder = chooseLadder(900000, 100);
  ASSERT_TRUE(ladder.ok) << ladder.why;
  EXPECT_EQ(ladder.delays.front(), 0u);
  EXPECT_EQ(ladder.delays.back(), 14000u);
  EXPECT_EQ(ladder.delays.size(), 7u);
  EXPECT_TRUE(std::is_sorted(ladder.delays.begin(), ladder.delays.end()));
  // A slack is at most the time per unit: 9us a call here. Wherever the
  // knee is, up to that, two delays lie past it, and from a sixteenth of
  // the range on, one below it.
  for (double slack = 900; slack <= 9000; slack += 100) {
    long past = std::count_if(ladder.delays.begin(), ladder.delays.end(),
                              [&](std::uint64_t d) { return d > slack; });
    long below =
        std::count_if(ladder.delays.begin(), ladder.delays.end(),
                      [&](std::uint64_t d) { return d > 0 && d < slack; });
    EXPECT_GE(past, 2) << "slack " << slack;
    EXPECT_GE(below, 1) << "slack " << slack;
  }
  EXPECT_NE(ladder.why.find("900us per unit of work"), std::string::npos)
      << ladder.why;
  EXPECT_NE(ladder.why.find("adds 156%"), std::string::npos) << ladder.why;
}

TEST(Ladder, FollowsTheDelayedCallsNotTheCalls) {
  // --frequency 10: a tenth of the calls is delayed, each by ten times more.
  Ladder every = chooseLadder(100000, 1), tenth = chooseLadder(100000, 0.1);
  ASSERT_TRUE(every.ok && tenth.ok);
  EXPECT_EQ(every.delays.back(), 150000u);
  EXPECT_EQ(tenth.delays.back(), 1500000u);
}

TEST(Ladder, TinyDelaysAreSaidToBeCoarseAndNothingDelayedIsNoLadder) {
  Ladder tiny = chooseLadder(100, 10);
  EXPECT_TRUE(tiny.ok);
  EXPECT_EQ(tiny.delays.back(), 15u);
  EXPECT_NE(tiny.why.find("--frequency"), std::string::npos) << tiny.why;
  Ladder none = chooseLadder(100000, 0);
  EXPECT_FALSE(none.ok);
  EXPECT_NE(none.why.find("delayed no call"), std::string::npos);
}

TEST(StoppingRule, SettledBudgetAndMaximum) {
  // Both settled: stop.
  NextRound next = nextRound({true, true}, {3, 3}, {1, 1}, 0.1, 10, 600);
  EXPECT_TRUE(next.groups.empty());
  EXPECT_EQ(next.stop, StopReason::Settled);
  // The unsettled one gets the round.
  next = nextRound({true, false}, {3, 3}, {1, 1}, 0.1, 10, 600);
  EXPECT_EQ(next.groups, std::vector<int>{1});
  // The round would overrun the budget: stop, and say it was the budget.
  next = nextRound({false, false}, {3, 3}, {40, 40}, 1, 530, 600);
  EXPECT_TRUE(next.groups.empty());
  EXPECT_EQ(next.stop, StopReason::Budget);
  // Only the unsettled group's round counts against the budget.
  next = nextRound({true, false}, {3, 3}, {400, 40}, 1, 530, 600);
  EXPECT_EQ(next.groups, std::vector<int>{1});
  // Unsettled at the maximum: stop; another below it goes on alone.
  next = nextRound({false}, {MaxRepeats}, {1}, 0.1, 0, 600);
  EXPECT_EQ(next.stop, StopReason::MaxRepeats);
  next = nextRound({false, false}, {MaxRepeats, 5}, {1, 1}, 0.1, 0, 600);
  EXPECT_EQ(next.groups, std::vector<int>{1});
  EXPECT_STREQ(stopReasonName(StopReason::Budget), "budget");
}

namespace {

double linear(double x) { return 100000 + x; }
double slack60us(double x) { return 100000 + std::max(0.0, x - 60000); }

/// Rounds until both groups settle (or MaxRepeats): the final analysis.
SweepAnalysis sweepUntilSettled(std::uint64_t seed, double noise,
                                unsigned &repeats) {
  Ladder ladder = chooseLadder(100000, 1);
  std::vector<RunPoint> points;
  addGroup(points, 0, ladder.delays, 3, linear, noise, seed * 1000);
  addGroup(points, 1, ladder.delays, 3, slack60us, noise, seed * 1000 + 1);
  addUnarmed(points, 3, 100000, noise, seed * 1000 + 2);
  std::uint64_t round = 0;
  std::vector<unsigned> made = {3, 3};
  AnalysisSettings settings;
  settings.resamples = 400;
  settings.seed = seed;
  for (;;) {
    SweepAnalysis a = analyzeSweep({"linear", "slack"}, {"l.t", "s.t"},
                                   ladder.delays, points, settings);
    std::vector<bool> settled;
    for (const GroupAnalysis &g : a.groups)
      settled.push_back(isSettled(g, 0.2).settled);
    NextRound next = nextRound(settled, made, {1, 1}, 0, 0, 1e9);
    if (next.groups.empty()) {
      repeats = std::max(made[0], made[1]);
      return a;
    }
    // Each round's runs draw their own noise, as a new run would.
    ++round;
    for (int g : next.groups) {
      addGroup(points, g, ladder.delays, 1, g == 0 ? linear : slack60us, noise,
               seed * 1000 + 10 * round + std::uint64_t(g));
      ++made[std::size_t(g)];
    }
    addUnarmed(points, 1, 100000, noise, seed * 1000 + 10 * round + 9);
  }
}

} // namespace

TEST(AdaptiveRepeats, NoisySweepsEndOnTheRightShapes) {
  // 8% noise per run: three repeats often leave an answer unsettled;
  // rounds are added until both are, and then the shapes are right.
  unsigned grew = 0, covered = 0;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    unsigned repeats = 0;
    SweepAnalysis a = sweepUntilSettled(seed, 0.08, repeats);
    grew += repeats > 3;
    EXPECT_EQ(a.groups[0].shape, Shape::Linear) << "seed " << seed;
    // A 95% interval misses now and then; the estimate stays close.
    covered += a.groups[0].passThrough.ci.contains(1.0);
    EXPECT_NEAR(a.groups[0].passThrough.value, 1.0, 0.15) << "seed " << seed;
    EXPECT_EQ(a.groups[1].shape, Shape::Threshold) << "seed " << seed;
    EXPECT_LE(a.groups[0].passThrough.ci.width(), 0.2);
    // The slack is settled too: its knee pinned down near the truth.
    const HingeTest &h = a.groups[1].hinge;
    EXPECT_LE(h.kneeCI.width(), KneeSettledShare * 0.2 * h.fit.knee)
        << "seed " << seed;
    EXPECT_NEAR(h.fit.knee, 60000, 15000) << "seed " << seed;
  }
  EXPECT_GE(covered, 6u);
  EXPECT_GT(grew, 0u) << "the noise should have needed more rounds";
}
