// test/engine/io/dtype_test.cpp - the scalar dtype conversions in
// engine/dtype.h, which every kernel is tested against: bf16 rounding and
// special values by hand, and f16 against the CPU's own F16C conversions
// (all 65536 halves, and a large sample of floats plus every tie).
#include "engine/dtype.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cpuid.h>
#include <cstdio>
#include <cstring>
#include <immintrin.h>
#include <limits>

namespace engine {
namespace {

uint32_t bits_of(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

float float_of(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

TEST(DTypeTest, SizesAndNamesMatchSafetensors) {
  EXPECT_EQ(dtype_size(DType::F32), 4u);
  EXPECT_EQ(dtype_size(DType::F16), 2u);
  EXPECT_EQ(dtype_size(DType::BF16), 2u);
  EXPECT_EQ(dtype_name(DType::F32), "F32");
  EXPECT_EQ(dtype_name(DType::F16), "F16");
  EXPECT_EQ(dtype_name(DType::BF16), "BF16");
}

TEST(DTypeTest, Bf16RoundsToNearestEvenOnTies) {
  // 1 + 2^-8 lies exactly between bf16 1.0 (0x3f80) and 1 + 2^-7 (0x3f81).
  EXPECT_EQ(f32_to_bf16(float_of(0x3f808000)), 0x3f80) << "tie to even (down)";
  EXPECT_EQ(f32_to_bf16(float_of(0x3f818000)), 0x3f82) << "tie to even (up)";
  EXPECT_EQ(f32_to_bf16(float_of(0x3f808001)), 0x3f81) << "above the tie";
  EXPECT_EQ(f32_to_bf16(float_of(0x3f807fff)), 0x3f80) << "below the tie";
  EXPECT_EQ(f32_to_bf16(-1.0f), 0xbf80);
  EXPECT_EQ(f32_to_bf16(float_of(0xbf818000)), 0xbf82) << "sign is symmetric";
}

TEST(DTypeTest, Bf16KeepsInfinitiesNaNsZerosAndSubnormals) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(f32_to_bf16(inf), 0x7f80);
  EXPECT_EQ(f32_to_bf16(-inf), 0xff80);
  EXPECT_EQ(f32_to_bf16(std::numeric_limits<float>::max()), 0x7f80)
      << "FLT_MAX rounds up to infinity";
  EXPECT_EQ(f32_to_bf16(0.0f), 0x0000);
  EXPECT_EQ(f32_to_bf16(-0.0f), 0x8000);
  // NaNs stay NaN (quiet) whatever their payload, even one whose payload
  // lies only in the low 16 bits, which plain rounding would turn into inf.
  for (uint32_t nan : {0x7fc00000u, 0x7f800001u, 0xff800001u, 0x7fffffffu}) {
    uint16_t h = f32_to_bf16(float_of(nan));
    EXPECT_TRUE(std::isnan(bf16_to_f32(h))) << std::hex << nan;
    EXPECT_EQ(h & 0x8000, (nan >> 16) & 0x8000) << "sign kept";
    EXPECT_TRUE(h & 0x0040) << "quiet bit set";
  }
  // Subnormal floats round like any other bits.
  EXPECT_EQ(f32_to_bf16(float_of(0x00018000)), 0x0002);
  EXPECT_EQ(f32_to_bf16(float_of(0x00008000)), 0x0000) << "tie to even zero";
  EXPECT_EQ(bf16_to_f32(0x0001), float_of(0x00010000));
}

TEST(DTypeTest, EveryBf16SurvivesARoundTrip) {
  for (uint32_t h = 0; h < 65536; ++h) {
    float f = bf16_to_f32(uint16_t(h));
    EXPECT_EQ(bits_of(f), h << 16);
    if (!std::isnan(f))
      ASSERT_EQ(f32_to_bf16(f), h) << std::hex << h;
  }
}

__attribute__((target("f16c"))) float hw_f16_to_f32(uint16_t h) {
  return _cvtsh_ss(h);
}

__attribute__((target("f16c"))) uint16_t hw_f32_to_f16(float f) {
  return _cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT);
}

// CPUID leaf 1, ECX bit 29.
bool have_f16c() {
  unsigned a, b, c, d;
  return __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 29));
}

TEST(DTypeTest, F16ToF32MatchesTheHardwareForAll65536Values) {
  if (!have_f16c())
    GTEST_SKIP() << "no F16C on this CPU";
  for (uint32_t h = 0; h < 65536; ++h) {
    float ref = f16_to_f32(uint16_t(h)), hw = hw_f16_to_f32(uint16_t(h));
    if (std::isnan(hw)) {
      // NaN: F16C sets the quiet bit of a signalling NaN; sign and payload
      // must otherwise agree.
      ASSERT_TRUE(std::isnan(ref)) << std::hex << h;
      ASSERT_EQ(bits_of(ref) | 0x00400000u, bits_of(hw)) << std::hex << h;
    } else {
      ASSERT_EQ(bits_of(ref), bits_of(hw)) << std::hex << h;
    }
  }
}

// f32_to_f16 against the hardware for the float with these bits.
::testing::AssertionResult f32_to_f16_matches(uint32_t bits) {
  float f = float_of(bits);
  uint16_t ref = f32_to_f16(f), hw = hw_f32_to_f16(f);
  // NaN payloads differ (the reference writes the canonical quiet NaN);
  // both must be NaN with the sign kept.
  bool ok = std::isnan(f)
                ? std::isnan(f16_to_f32(ref)) && (ref & 0x8000) == (hw & 0x8000)
                : ref == hw;
  if (ok)
    return ::testing::AssertionSuccess();
  char msg[96];
  std::snprintf(msg, sizeof msg,
                "f32 bits 0x%08x: reference 0x%04x, hardware 0x%04x", bits,
                unsigned(ref), unsigned(hw));
  return ::testing::AssertionFailure() << msg;
}

TEST(DTypeTest, F32ToF16MatchesTheHardwareOnASample) {
  if (!have_f16c())
    GTEST_SKIP() << "no F16C on this CPU";
  // Every 257th bit pattern: all exponents, signs and mantissa regions.
  for (uint64_t b = 0; b < (uint64_t(1) << 32); b += 257)
    ASSERT_TRUE(f32_to_f16_matches(uint32_t(b)));
  // Every midpoint between adjacent halves (the ties) and its neighbours,
  // normal and subnormal, up to the overflow threshold 65520.
  for (uint32_t h = 0; h < 0x7c00; ++h) {
    double lo = f16_to_f32(uint16_t(h));
    double hi = h + 1 < 0x7c00 ? f16_to_f32(uint16_t(h + 1)) : 65536.0;
    float mid = float((lo + hi) / 2);
    ASSERT_EQ(double(mid), (lo + hi) / 2) << "midpoints are exact in f32";
    for (int d = -1; d <= 1; ++d) {
      ASSERT_TRUE(f32_to_f16_matches(bits_of(mid) + d));
      ASSERT_TRUE(f32_to_f16_matches((bits_of(mid) + d) | 0x80000000u));
    }
  }
}

} // namespace
} // namespace engine
