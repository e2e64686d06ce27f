// test/engine/cpu/bandwidth_sampler_test.cpp - the read-bandwidth samples
// engine-bench takes between a test's steps: each reads the whole buffer
// (several times the last-level cache), the rate is their bytes over their
// time, and reset() forgets them.
#include "engine/cpu/bandwidth_sampler.h"

#include <gtest/gtest.h>

namespace engine {
namespace {

TEST(BandwidthSamplerTest, SamplesReadMemoryAtAPlausibleRate) {
  ThreadPool pool(2);
  BandwidthSampler sampler(pool, active_isa());
  EXPECT_EQ(sampler.samples(), 0);
  EXPECT_EQ(sampler.bytes_per_s(), 0) << "no rate before any sample";
  // Several times the last-level cache, so a sample reads memory, not cache.
  EXPECT_GE(sampler.buffer_bytes(), 4 * last_level_cache_bytes());
  EXPECT_GE(sampler.buffer_bytes(), int64_t(128) << 20);
  for (int i = 0; i < 3; ++i)
    sampler.sample();
  EXPECT_EQ(sampler.samples(), 3);
  // From a slow VM's memory to the fastest servers' (0.2 GB/s to 2 TB/s).
  EXPECT_GT(sampler.bytes_per_s(), 2e8);
  EXPECT_LT(sampler.bytes_per_s(), 2e12);
  sampler.reset();
  EXPECT_EQ(sampler.samples(), 0);
  EXPECT_EQ(sampler.bytes_per_s(), 0);
}

TEST(BandwidthSamplerTest, WorksOnOneThread) {
  ThreadPool pool(1);
  BandwidthSampler sampler(pool, Isa::Scalar);
  sampler.sample();
  EXPECT_EQ(sampler.samples(), 1);
  EXPECT_GT(sampler.bytes_per_s(), 2e8);
}

} // namespace
} // namespace engine
