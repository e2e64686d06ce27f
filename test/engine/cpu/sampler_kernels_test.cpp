// The Sampler's row kernels: the dispatched (AVX2) and baseline (SSE2)
// versions agree with plain loops on every length, including the tails.
#include "engine/cpu/sampler_kernels.h"
#include "engine/random.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace engine;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<const SamplerKernels *> all_kernels() {
  return {&baseline_sampler_kernels(), &sampler_kernels()};
}

std::vector<float> row(int64_t n, uint64_t seed) {
  Rng rng(seed);
  std::vector<float> x(n);
  for (float &v : x)
    v = (rng.uniform() - 0.5f) * 40;
  return x;
}

} // namespace

TEST(SamplerKernels, MaxAndFirstIndexMatchPlainLoopsAtEveryLength) {
  for (const SamplerKernels *k : all_kernels())
    for (int64_t n = 1; n < 100; ++n) {
      std::vector<float> x = row(n, n);
      x[n / 3] = kNaN;
      float m = -kInf;
      for (float v : x)
        m = v > m ? v : m;
      EXPECT_EQ(k->row_max(x.data(), n), m) << k->name << " n=" << n;
      int64_t first = -1;
      for (int64_t i = n - 1; i >= 0; --i)
        if (x[i] == m)
          first = i;
      EXPECT_EQ(k->first_index_of(x.data(), n, m), first) << k->name;
      EXPECT_EQ(k->first_index_of(x.data(), n, 1e30f), -1) << k->name;
    }
}

TEST(SamplerKernels, SkipBelowStopsAtTheFirstGroupWithAHit) {
  for (const SamplerKernels *k : all_kernels())
    for (int64_t n : {5, 16, 31, 32, 47, 64, 100, 1000})
      for (int64_t hit = 0; hit < n; hit += 7) {
        std::vector<float> x(n, 1.0f);
        x[0] = kNaN;
        x[hit] = 5.0f;
        // From 0, groups of 16: the group holding `hit`, or the tail.
        const int64_t full_groups = n / kGroup * kGroup;
        const int64_t want =
            hit < full_groups ? hit / kGroup * kGroup : full_groups;
        EXPECT_EQ(k->skip_below(x.data(), 0, n, 4.0f), want)
            << k->name << " n=" << n << " hit=" << hit;
        EXPECT_EQ(k->skip_below(x.data(), 0, n, 6.0f), full_groups);
      }
}

TEST(SamplerKernels, ExpIsAccurateAndZeroBelowTheFloor) {
  for (const SamplerKernels *k : all_kernels()) {
    const int64_t n = 10007;
    std::vector<float> x(n);
    for (int64_t i = 0; i < n; ++i)
      x[i] = -90.0f * static_cast<float>(i) / (n - 1); // 0 down to -90
    x[5] = -kInf;
    x[6] = kNaN;
    std::vector<float> e = x;
    const double sum = k->exp_in_place(e.data(), n, 0.0f, 1.0f);
    double want_sum = 0;
    for (int64_t i = 0; i < n; ++i) {
      double want = x[i] >= -87.0f ? std::exp(static_cast<double>(x[i])) : 0;
      if (i == 5 || i == 6)
        want = 0;
      want_sum += want;
      if (want == 0)
        EXPECT_EQ(e[i], 0.0f) << k->name << " x=" << x[i];
      else
        EXPECT_NEAR(e[i] / want, 1.0, 3e-7) << k->name << " x=" << x[i];
    }
    EXPECT_NEAR(sum / want_sum, 1.0, 1e-6) << k->name;
    // Shifted and scaled: exp((x - max) * inv_t).
    std::vector<float> y = {3.0f, 1.0f};
    k->exp_in_place(y.data(), 2, 3.0f, 0.5f);
    EXPECT_EQ(y[0], 1.0f);
    EXPECT_NEAR(y[1], std::exp(-1.0), 1e-7);
  }
}
