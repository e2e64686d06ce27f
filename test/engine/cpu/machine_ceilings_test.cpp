// test/engine/cpu/machine_ceilings_test.cpp - the bandwidth pass reads every
// byte once (its sum of ones is a count) at every instruction-set level, the
// peak loop counts its operations, and the measurement gives rates a
// machine can have, or one clear error for too small a buffer.
#include "engine/cpu/machine_ceilings.h"

#include "engine/error.h"
#include "isa_test_util.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <vector>

namespace engine {
namespace {

class MachineCeilingsPerIsa : public test::PerIsa {};

TEST_P(MachineCeilingsPerIsa, ReadSumCountsEveryFloat) {
  constexpr int64_t kBytes = 1 << 20;
  std::unique_ptr<float, decltype(&std::free)> data(
      static_cast<float *>(std::aligned_alloc(64, kBytes)), &std::free);
  std::fill(data.get(), data.get() + kBytes / 4, 1.0f);
  EXPECT_EQ(cpu_detail::read_sum(data.get(), kBytes, GetParam()), kBytes / 4);
  // Only the first 256 bytes: 64 floats.
  data.get()[64] = 1000.f;
  EXPECT_EQ(cpu_detail::read_sum(data.get(), 256, GetParam()), 64);
  EXPECT_EQ(cpu_detail::read_sum(data.get(), 512, GetParam()), 1127);
}

// A float stops counting at 2^24; the sample engine-bench takes between steps
// reads up to 4 x the last-level cache on one thread, so the count must
// hold far past 2^24 floats a sum at every level.
TEST(MachineCeilingsTest, ReadSumCountsPast2To24FloatsASum) {
  constexpr int64_t kBytes = int64_t(576) << 20; // 151M floats
  std::unique_ptr<float, decltype(&std::free)> data(
      static_cast<float *>(std::aligned_alloc(64, kBytes)), &std::free);
  std::fill(data.get(), data.get() + kBytes / 4, 1.0f);
  for (Isa isa : test::available_isas())
    EXPECT_EQ(cpu_detail::read_sum(data.get(), kBytes, isa), kBytes / 4)
        << isa_name(isa);
}

TEST_P(MachineCeilingsPerIsa, PeakLoopCountsItsOperations) {
  float sink = 0;
  const double one = cpu_detail::peak_loop(GetParam(), 1000, &sink);
  EXPECT_GT(one, 0);
  EXPECT_DOUBLE_EQ(cpu_detail::peak_loop(GetParam(), 3000, &sink), 3 * one);
  EXPECT_NE(sink, 0.f) << "the loop's results reach the sink";
}

INSTANTIATE_TEST_SUITE_P(Levels, MachineCeilingsPerIsa,
                         testing::ValuesIn(test::available_isas()),
                         test::isa_param_name);

TEST(MachineCeilingsTest, MeasuresPlausibleRatesOnEveryThread) {
  ThreadPool pool(2);
  const MachineCeilings c =
      measure_machine_ceilings(pool, active_isa(), int64_t(64) << 20);
  EXPECT_EQ(c.threads, 2);
  // From a slow VM's memory to the fastest servers': 0.2 GB/s to 2 TB/s,
  // and 0.5 GFLOP/s to 100 TFLOP/s for two threads.
  EXPECT_GT(c.read_bytes_per_s, 2e8);
  EXPECT_LT(c.read_bytes_per_s, 2e12);
  EXPECT_GT(c.peak_flops, 5e8);
  EXPECT_LT(c.peak_flops, 1e14);
  EXPECT_FALSE(c.peak_instruction.empty());
}

TEST(MachineCeilingsTest, TooSmallABufferIsAnError) {
  ThreadPool pool(1);
  try {
    measure_machine_ceilings(pool, Isa::Scalar, 1 << 20);
    FAIL() << "a 1 MiB buffer was accepted";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()),
              "engine: the bandwidth pass needs at least 64 MiB, got 1048576 "
              "bytes");
  }
}

} // namespace
} // namespace engine
