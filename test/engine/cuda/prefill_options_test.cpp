// test/engine/cuda/prefill_options_test.cpp - ENGINE_CUDA_PREFILL_STAGING:
// anything but its three values is one clear error, and it is read once.
#include "engine/cuda/prefill_options.h"

#include "engine/error.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace engine::cuda {
namespace {

TEST(PrefillOptionsTest, StagingIsTransposeLdmatrixOrAsync) {
  for (const char *bad : {"on", "", "1", "Async", "ldmatrix "}) {
    ASSERT_EQ(setenv("ENGINE_CUDA_PREFILL_STAGING", bad, 1), 0);
    try {
      prefill_staging();
      FAIL() << "ENGINE_CUDA_PREFILL_STAGING=" << bad << " was accepted";
    } catch (const Error &e) {
      EXPECT_EQ(std::string(e.what()),
                "engine: ENGINE_CUDA_PREFILL_STAGING=" + std::string(bad) +
                    ": must be transpose (the default), ldmatrix or async "
                    "(how prefill attention stages its K and V tiles)");
    }
  }
  ASSERT_EQ(setenv("ENGINE_CUDA_PREFILL_STAGING", "async", 1), 0);
  EXPECT_EQ(prefill_staging(), PrefillStaging::async);
  ASSERT_EQ(setenv("ENGINE_CUDA_PREFILL_STAGING", "transpose", 1), 0);
  EXPECT_EQ(prefill_staging(), PrefillStaging::async)
      << "read once, when first valid";
}

} // namespace
} // namespace engine::cuda
