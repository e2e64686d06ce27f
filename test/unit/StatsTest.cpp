// The summary's histogram: every value lands in a bucket whose midpoint is
// within 6.25% of it, and quantiles come out within that error.
#include "perfrt_stats.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using namespace perfrt;

TEST(Histogram, BucketMidpointIsWithinSixPercentOfEveryValue) {
  for (uint64_t v = 1; v < (1ull << 40); v = v * 3 / 2 + 1) {
    double mid = histBucketMid(histBucket(v));
    EXPECT_LE(std::fabs(mid - double(v)) / double(v), 0.0625) << v;
  }
}

TEST(Histogram, BucketsAreMonotonicAndInRange) {
  int last = 0;
  for (uint64_t v = 0; v < 100000; ++v) {
    int b = histBucket(v);
    ASSERT_GE(b, last);
    ASSERT_LT(b, HistBuckets);
    last = b;
  }
  EXPECT_EQ(histBucket(~0ull), HistBuckets - 1);
}

TEST(Histogram, QuantilesMatchSortedSamples) {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> dist(8.0, 1.5);
  std::vector<uint64_t> samples;
  static Histogram h; // large: not on the stack
  h = Histogram{};
  for (int i = 0; i < 100000; ++i) {
    uint64_t v = uint64_t(dist(rng)) + 1;
    samples.push_back(v);
    h.add(v);
  }
  std::sort(samples.begin(), samples.end());
  for (double q : {0.5, 0.9, 0.99}) {
    double exact = double(samples[size_t(q * double(samples.size() - 1))]);
    double got = h.quantile(q, samples.size());
    EXPECT_NEAR(got, exact, exact * 0.07) << "q=" << q;
  }
}

TEST(FnStats, MergeAddsCountsAndKeepsMaxima) {
  static FnStats a, b;
  a = FnStats{};
  b = FnStats{};
  a.add(10, 5);
  b.add(30, 1);
  b.add(20, 20);
  a.merge(b);
  EXPECT_EQ(a.calls, 3u);
  EXPECT_EQ(a.inclTotal, 60u);
  EXPECT_EQ(a.exclTotal, 26u);
  EXPECT_EQ(a.inclMax, 30u);
  EXPECT_EQ(a.exclMax, 20u);
  EXPECT_EQ(a.inclMin, 10u);
  EXPECT_EQ(a.exclMin, 1u);
}

TEST(FnStats, MergingEmptyStatsKeepsTheMinimum) {
  static FnStats a, empty;
  a = FnStats{};
  empty = FnStats{};
  a.add(7, 3);
  a.merge(empty);
  empty.merge(a);
  EXPECT_EQ(a.inclMin, 7u);
  EXPECT_EQ(empty.inclMin, 7u);
  EXPECT_EQ(empty.calls, 1u);
}
