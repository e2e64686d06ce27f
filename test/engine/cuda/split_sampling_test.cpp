// test/engine/cuda/split_sampling_test.cpp - the split sampler's host side:
// its grid (blocks per row) across batch sizes, vocabularies and GPUs, its
// workspace, and ENGINE_CUDA_SPLIT_SAMPLING's values.
#include "engine/cuda/split_sampling.h"

#include "env_setting_checks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

namespace engine::cuda {
namespace {

constexpr int kQwen3Vocab = 151936;

TEST(SplitSamplingTest, ARowGetsAboutTwoBlocksPerMultiprocessorInAll) {
  // An H100 or H200 has 132: batch 1 takes the most a row may have.
  EXPECT_EQ(split_sampling_blocks(1, kQwen3Vocab, 132), kMaxSplitBlocks);
  EXPECT_EQ(split_sampling_blocks(8, kQwen3Vocab, 132), kMaxSplitBlocks);
  EXPECT_EQ(split_sampling_blocks(16, kQwen3Vocab, 132), 16);
  EXPECT_EQ(split_sampling_blocks(100, kQwen3Vocab, 132), 2);
  // From 133 rows on, a block per row already fills the GPU.
  EXPECT_EQ(split_sampling_blocks(133, kQwen3Vocab, 132), 1);
  EXPECT_EQ(split_sampling_blocks(512, kQwen3Vocab, 132), 1);
  // A smaller GPU splits less.
  EXPECT_EQ(split_sampling_blocks(4, kQwen3Vocab, 16), 8);
  for (int rows = 1; rows <= 1024; ++rows) {
    const int b = split_sampling_blocks(rows, kQwen3Vocab, 132);
    ASSERT_GE(b, 1);
    ASSERT_LE(b, kMaxSplitBlocks);
    ASSERT_LE(b * rows, std::max(264, rows)) << rows;
  }
}

TEST(SplitSamplingTest, NoBlockHasFewerLogitsThanThreads) {
  EXPECT_EQ(split_sampling_blocks(1, 5, 132), 1);
  EXPECT_EQ(split_sampling_blocks(1, 1023, 132), 1);
  EXPECT_EQ(split_sampling_blocks(1, 4096, 132), 4);
  EXPECT_EQ(split_sampling_blocks(1, 4095, 132), 3);
  // A GPU that reports no multiprocessors still gets a grid.
  EXPECT_EQ(split_sampling_blocks(3, kQwen3Vocab, 0), 1);
}

TEST(SplitSamplingTest, TheWorkspaceHoldsEverySegmentAndBlockOfEveryRow) {
  // A (max, sum) pair per warp of each of the most blocks, and an (argmax
  // value, index) pair per block.
  EXPECT_EQ(sample_workspace_floats(1), (32 * 32 + 32) * 2);
  EXPECT_EQ(sample_workspace_floats(512), 512 * (32 * 32 + 32) * 2);
  EXPECT_EQ(kSplitSegments, kMaxSplitBlocks * 32);
}

// Read once per process, when valid: one test.
TEST(SplitSamplingTest, TheSettingIsZeroOrOne) {
  expect_refused("ENGINE_CUDA_SPLIT_SAMPLING", {"on", "", "2", "yes"},
                 split_sampling_enabled,
                 "0 (the default: a block samples a row) or 1 (several "
                 "blocks sample a row in one pass over its logits)");
  ASSERT_EQ(setenv("ENGINE_CUDA_SPLIT_SAMPLING", "1", 1), 0);
  EXPECT_TRUE(split_sampling_enabled());
  ASSERT_EQ(setenv("ENGINE_CUDA_SPLIT_SAMPLING", "0", 1), 0);
  EXPECT_TRUE(split_sampling_enabled()) << "read once, when first valid";
}

} // namespace
} // namespace engine::cuda
