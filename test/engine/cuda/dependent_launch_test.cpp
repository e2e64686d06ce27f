// test/engine/cuda/dependent_launch_test.cpp - ENGINE_CUDA_PDL: anything but
// 0 or 1 is one clear error; 0 turns programmatic dependent launch off
// (which it also is wherever no GPU of compute capability 9.0 is found).
#include "engine/cuda/dependent_launch.h"

#include "env_setting_checks.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace engine::cuda {
namespace {

TEST(DependentLaunchTest, SettingIsZeroOrOne) {
  // One test: the setting is read once per process, when it is valid.
  expect_refused("ENGINE_CUDA_PDL", {"yes"}, dependent_launch_enabled,
                 "0 (kernels wait for the one ahead to finish before they "
                 "launch) or 1 (the default)");
  ASSERT_EQ(setenv("ENGINE_CUDA_PDL", "0", 1), 0);
  EXPECT_FALSE(dependent_launch_enabled());
  ASSERT_EQ(setenv("ENGINE_CUDA_PDL", "1", 1), 0);
  EXPECT_FALSE(dependent_launch_enabled()) << "read once, when first valid";
}

} // namespace
} // namespace engine::cuda
