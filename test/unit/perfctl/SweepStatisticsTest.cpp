//===- SweepStatisticsTest.cpp - perfctl's numerical methods --------------===//
//
// Known answers (quantiles, Student's t table values, exact lines) and
// behaviour on synthetic data whose truth is known: intervals cover it, the
// hinge finds its knee, the hinge test tells a threshold from a line.
//
//===----------------------------------------------------------------------===//
#include "sweep/Statistics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

using namespace perfcc::perfctl;

namespace {

/// \p repeats runs at each of \p levels: y = f(x) * (1 + noise * N(0,1)).
struct Data {
  std::vector<double> x, y;
  std::vector<std::size_t> level;
};
template <typename F>
Data synthetic(const std::vector<double> &levels, unsigned repeats, F f,
               double noise, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  Data d;
  for (std::size_t l = 0; l < levels.size(); ++l)
    for (unsigned r = 0; r < repeats; ++r) {
      d.x.push_back(levels[l]);
      d.y.push_back(f(levels[l]) * (1 + noise * normal(rng)));
      d.level.push_back(l);
    }
  return d;
}

const std::vector<double> kLevels = {0, 1000, 10000, 100000};

} // namespace

TEST(Quantile, InterpolatesBetweenOrderStatistics) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 2, 3}), 2.5);
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4, 5}, 0.25), 2);
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4}, 0.25), 1.75); // R: type 7
  EXPECT_DOUBLE_EQ(quantile({7}, 0.9), 7);
  EXPECT_TRUE(std::isnan(median({})));
}

TEST(Quantile, MadIsMedianDistanceFromMedian) {
  EXPECT_DOUBLE_EQ(mad({1, 1, 2, 2, 4, 6, 9}), 1);
  EXPECT_DOUBLE_EQ(mad({5, 5, 5}), 0);
}

TEST(Summary, RobustCVOfNormalDataIsItsRelativeSD) {
  std::mt19937_64 gen(7);
  std::normal_distribution<double> normal(100, 2);
  std::vector<double> sample;
  for (int i = 0; i < 20000; ++i)
    sample.push_back(normal(gen));
  Rng rng(1);
  Summary s = summarize(sample, 0.95, 200, rng);
  EXPECT_NEAR(s.robustCV(), 0.02, 0.001);
  EXPECT_NEAR(s.iqr, 2 * 0.6745 * 2, 0.1);
}

TEST(Bootstrap, MedianIntervalCoversTheTrueMedianAtAboutItsLevel) {
  std::mt19937_64 gen(11);
  std::exponential_distribution<double> skewed(1.0);
  const double trueMedian = std::log(2.0);
  Rng rng(3);
  int covered = 0, trials = 200;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> sample;
    for (int i = 0; i < 25; ++i)
      sample.push_back(skewed(gen));
    Interval ci = bootstrapInterval(
        sample, [](const std::vector<double> &v) { return median(v); }, 0.95,
        500, rng);
    EXPECT_LE(ci.lo, median(sample));
    EXPECT_GE(ci.hi, median(sample));
    covered += ci.contains(trueMedian);
  }
  EXPECT_GE(covered, int(0.88 * trials));
}

TEST(Bootstrap, SameSeedSameInterval) {
  std::vector<double> sample = {1, 5, 2, 8, 3, 9, 4};
  auto med = [](const std::vector<double> &v) { return median(v); };
  Rng a(42), b(42);
  Interval x = bootstrapInterval(sample, med, 0.9, 300, a);
  Interval y = bootstrapInterval(sample, med, 0.9, 300, b);
  EXPECT_EQ(x.lo, y.lo);
  EXPECT_EQ(x.hi, y.hi);
}

TEST(StudentT, MatchesTableValues) {
  EXPECT_NEAR(studentTQuantile(0.975, 1), 12.7062, 1e-3);
  EXPECT_NEAR(studentTQuantile(0.975, 2), 4.3027, 1e-4);
  EXPECT_NEAR(studentTQuantile(0.975, 10), 2.2281, 1e-4);
  EXPECT_NEAR(studentTQuantile(0.975, 30), 2.0423, 1e-4);
  EXPECT_NEAR(studentTQuantile(0.95, 5), 2.0150, 1e-4);
  EXPECT_NEAR(studentTQuantile(0.995, 20), 2.8453, 1e-4);
  EXPECT_NEAR(studentTQuantile(0.5, 7), 0, 1e-9);
  EXPECT_NEAR(studentTQuantile(0.025, 10), -2.2281, 1e-4);
  EXPECT_NEAR(studentTCdf(0, 3), 0.5, 1e-12);
}

TEST(LinearFit, RecoversAnExactLine) {
  LinearFit fit = fitLinear({0, 1, 2, 3, 4}, {3, 5, 7, 9, 11}, 0.95);
  ASSERT_TRUE(fit.ok);
  EXPECT_NEAR(fit.intercept, 3, 1e-9);
  EXPECT_NEAR(fit.slope, 2, 1e-9);
  EXPECT_NEAR(fit.r2, 1, 1e-12);
  EXPECT_NEAR(fit.slopeCI.lo, 2, 1e-9);
  EXPECT_NEAR(fit.slopeCI.hi, 2, 1e-9);
}

TEST(LinearFit, NeedsThreePointsAndSpreadInX) {
  EXPECT_FALSE(fitLinear({0, 1}, {1, 2}, 0.95).ok);
  EXPECT_FALSE(fitLinear({2, 2, 2}, {1, 2, 3}, 0.95).ok);
}

TEST(LinearFit, SlopeIntervalCoversTheTruthUnderHeteroscedasticNoise) {
  // Noise proportional to y (larger at larger delays), as in real sweeps.
  int covered = 0, trials = 300;
  for (int t = 0; t < trials; ++t) {
    Data d = synthetic(
        kLevels, 5, [](double x) { return 100000 + 0.7 * x; }, 0.03, t + 1);
    LinearFit fit = fitLinear(d.x, d.y, 0.95);
    covered += fit.slopeCI.contains(0.7);
  }
  EXPECT_GE(covered, int(0.90 * trials));
  EXPECT_LE(covered, trials);
}

TEST(Hinge, KneeGridSpansFirstToSecondToLastLevel) {
  std::vector<double> grid = kneeGrid({0, 10, 20, 40}, 4);
  ASSERT_EQ(grid.size(), 9u);
  EXPECT_EQ(grid.front(), 0);
  EXPECT_EQ(grid[1], 2.5);
  EXPECT_EQ(grid.back(), 20);
  EXPECT_TRUE(kneeGrid({0, 10}).empty());
}

TEST(Hinge, FindsTheKneeOfExactData) {
  std::vector<double> x = {0, 10, 20, 30, 40, 50, 60};
  std::vector<double> y;
  for (double v : x)
    y.push_back(100 + 2 * std::max(0.0, v - 25));
  HingeFit fit = fitHinge(x, y, kneeGrid(x, 20));
  ASSERT_TRUE(fit.ok);
  EXPECT_NEAR(fit.knee, 25, 1e-9);
  EXPECT_NEAR(fit.slope, 2, 1e-9);
  EXPECT_NEAR(fit.intercept, 100, 1e-9);
  EXPECT_NEAR(fit.sse, 0, 1e-9);
}

TEST(Hinge, TestFindsAThresholdWithItsKneeInsideTheInterval) {
  std::vector<double> levels = {0, 5000, 10000, 20000, 40000, 80000};
  Data d = synthetic(
      levels, 5, [](double x) { return 100000 + std::max(0.0, x - 15000); },
      0.01, 5);
  Rng rng(1);
  HingeTest test = testHinge(d.x, d.y, d.level, levels, 0.95, 1000, rng);
  ASSERT_TRUE(test.ok);
  EXPECT_LT(test.pValue, 0.01);
  EXPECT_NEAR(test.fit.knee, 15000, 3000);
  EXPECT_TRUE(test.kneeCI.contains(test.fit.knee));
  EXPECT_NEAR(test.fit.slope, 1, 0.1);
  EXPECT_TRUE(test.slopeCI.contains(1));
}

TEST(Hinge, TestRarelyCallsALineAThreshold) {
  int rejected = 0, trials = 40;
  for (int t = 0; t < trials; ++t) {
    Data d = synthetic(
        kLevels, 5, [](double x) { return 100000 + x; }, 0.02, 100 + t);
    Rng rng(t);
    HingeTest test = testHinge(d.x, d.y, d.level, kLevels, 0.95, 400, rng);
    rejected += test.pValue < 0.05;
  }
  // About 5% expected; 5 of 40 would be far out (p < 0.05 binomially).
  EXPECT_LE(rejected, 5);
}

TEST(Hinge, TestNeedsThreeLevels) {
  Rng rng(1);
  HingeTest test = testHinge({0, 0, 1, 1}, {1, 1, 2, 2}, {0, 0, 1, 1}, {0, 1},
                             0.95, 10, rng);
  EXPECT_FALSE(test.ok);
}

TEST(Random, ShuffleAndIndicesAreReproducible) {
  std::vector<int> a = {1, 2, 3, 4, 5, 6, 7, 8}, b = a;
  Rng r1(9), r2(9);
  shuffle(a, r1);
  shuffle(b, r2);
  EXPECT_EQ(a, b);
  Rng r(1);
  std::vector<int> counts(3);
  for (int i = 0; i < 30000; ++i)
    ++counts[uniformIndex(r, 3)];
  for (int c : counts)
    EXPECT_NEAR(c, 10000, 400);
}
