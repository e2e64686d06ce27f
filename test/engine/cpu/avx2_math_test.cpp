// Tests of engine/cpu/avx2_math.h's exp256 against std::exp in double: the
// softmax of the avx2 decode attention tile and silu_mul rest on it.
#include "engine/cpu/avx2_math.h"
#include "engine/cpu/cpu_features.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <gtest/gtest.h>
#include <limits>
#include <random>

namespace {

using engine::Isa;

#define ENGINE_AVX2 __attribute__((target("avx2,fma")))

ENGINE_AVX2 void exp8(const float *x, float *out) {
  _mm256_storeu_ps(out, engine::cpu_detail::exp256(_mm256_loadu_ps(x)));
}

// Distance in units in the last place between two finite floats of the
// same sign (denormals included: their ulp is the smallest denormal).
int64_t ulps(float a, float b) {
  int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  return std::abs(int64_t(ia) - int64_t(ib));
}

class Exp256 : public testing::Test {
protected:
  void SetUp() override {
    if (engine::max_supported_isa() < Isa::Avx2)
      GTEST_SKIP() << "this CPU has no AVX2";
  }
};

TEST_F(Exp256, IsWithinTwoUlpOfTheExactValueOverTheWholeRange) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-104.0f, 88.7f);
  float x[8], got[8];
  int64_t worst = 0;
  for (int i = 0; i < 200000; ++i) {
    for (float &v : x)
      v = dist(rng);
    exp8(x, got);
    for (int j = 0; j < 8; ++j) {
      const float exact = float(std::exp(double(x[j])));
      worst = std::max(worst, ulps(got[j], exact));
      ASSERT_LE(ulps(got[j], exact), 2) << "e^" << x[j];
    }
  }
  RecordProperty("worst_ulps", int(worst));
}

TEST_F(Exp256, ClampsInfinitiesAndKeepsNaN) {
  const float inf = std::numeric_limits<float>::infinity();
  float x[8] = {
      -inf, inf,   -1000.0f, 1000.0f, std::numeric_limits<float>::quiet_NaN(),
      0.0f, -0.0f, 1.0f};
  float got[8];
  exp8(x, got);
  EXPECT_EQ(0.0f, got[0]);
  EXPECT_TRUE(std::isfinite(got[1]));
  EXPECT_GT(got[1], 3e38f);
  EXPECT_EQ(0.0f, got[2]);
  EXPECT_TRUE(std::isfinite(got[3]));
  EXPECT_TRUE(std::isnan(got[4]));
  EXPECT_EQ(1.0f, got[5]);
  EXPECT_EQ(1.0f, got[6]);
  EXPECT_LE(ulps(got[7], float(std::exp(1.0))), 1);
}

TEST_F(Exp256, BuildsPowersOfTwoAtBothEndsOfTheExponentRange) {
  // n = round(x·log2 e) reaches -150 and 128, where 2^n is not a normal
  // float: each is built from two halves.
  float x[8] = {-103.9f, -103.3f, -87.5f, -87.0f, 88.0f, 88.5f, 88.7f, -100.0f};
  float got[8];
  exp8(x, got);
  for (int j = 0; j < 8; ++j) {
    const float exact = float(std::exp(double(x[j])));
    EXPECT_LE(ulps(got[j], exact), 2) << "e^" << x[j];
    EXPECT_TRUE(std::isfinite(got[j]));
  }
}

} // namespace
