// Rng: reproducible per seed, distinct across seeds, uniform() in [0, 1).
#include "engine/random.h"

#include <gtest/gtest.h>

#include <set>

using namespace engine;

TEST(Rng, SameSeedSameStreamNearbySeedsUnrelated) {
  Rng a(42), b(42), c(43);
  std::set<uint64_t> seen;
  int equal_to_c = 0;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t x = a.next();
    EXPECT_EQ(x, b.next());
    equal_to_c += x == c.next();
    seen.insert(x);
  }
  EXPECT_EQ(equal_to_c, 0);
  EXPECT_EQ(seen.size(), 1000u);
  a.reseed(42);
  EXPECT_EQ(a.next(), Rng(42).next());
}

TEST(Rng, UniformStaysInTheUnitIntervalWithTheRightMean) {
  Rng rng(7);
  double sum = 0, sum_d = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const float u = rng.uniform();
    const double d = rng.uniform_double();
    ASSERT_GE(u, 0.0f);
    ASSERT_LT(u, 1.0f);
    ASSERT_GE(d, 0.0);
    ASSERT_LT(d, 1.0);
    sum += u;
    sum_d += d;
  }
  // Standard error of the mean: 0.2887 / sqrt(n) = 0.00065.
  EXPECT_NEAR(sum / n, 0.5, 0.004);
  EXPECT_NEAR(sum_d / n, 0.5, 0.004);
}

TEST(Rng, BelowCoversEveryValueInRange) {
  Rng rng(9);
  std::vector<int> counts(10, 0);
  for (int i = 0; i < 10000; ++i) {
    const uint64_t v = rng.below(10);
    ASSERT_LT(v, 10u);
    ++counts[v];
  }
  for (int c : counts)
    EXPECT_NEAR(c, 1000, 150);
}
