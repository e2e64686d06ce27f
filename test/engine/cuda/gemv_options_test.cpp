// test/engine/cuda/gemv_options_test.cpp - ENGINE_CUDA_PREFETCH and
// ENGINE_CUDA_GEMV_ROWS: anything but their values is one clear error; each
// is read once; and outside a decode step's dependent launches no GEMV
// prefetches.
#include "engine/cuda/gemv_options.h"

#include "env_setting_checks.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace engine::cuda {
namespace {

// One test per setting: each is read once per process, when it is valid.
TEST(GemvOptionsTest, PrefetchIsZeroOrOne) {
  expect_refused("ENGINE_CUDA_PREFETCH", {"on"}, gemv_prefetch_enabled,
                 "0 (the default: a GEMV reads its weights after its wait) or "
                 "1 (it prefetches them into L2 before)");
  ASSERT_EQ(setenv("ENGINE_CUDA_PREFETCH", "1", 1), 0);
  EXPECT_TRUE(gemv_prefetch_enabled());
  ASSERT_EQ(setenv("ENGINE_CUDA_PREFETCH", "0", 1), 0);
  EXPECT_TRUE(gemv_prefetch_enabled()) << "read once, when first valid";
  // Not inside a decode step's launches (and, here, no GPU of compute
  // capability 9.0): nothing runs ahead of a GEMV to overlap.
  EXPECT_FALSE(gemv_options_now().prefetch);
}

TEST(GemvOptionsTest, RowsPerGroupAreOneTwoOrFour) {
  expect_refused("ENGINE_CUDA_GEMV_ROWS", {"3", "8", "0", "", "2x", "-1"},
                 gemv_rows_per_group,
                 "1 (the default), 2 or 4 (the rows a GEMV's group of warps "
                 "takes at once)");
  ASSERT_EQ(setenv("ENGINE_CUDA_GEMV_ROWS", "4", 1), 0);
  EXPECT_EQ(gemv_rows_per_group(), 4);
  EXPECT_EQ(gemv_options_now().rows_per_group, 4);
  ASSERT_EQ(setenv("ENGINE_CUDA_GEMV_ROWS", "2", 1), 0);
  EXPECT_EQ(gemv_rows_per_group(), 4) << "read once, when first valid";
}

} // namespace
} // namespace engine::cuda
