// test/engine/cuda/attention_options_test.cpp - ENGINE_CUDA_PREFILL_STAGING
// and ENGINE_CUDA_FOLD_QK_NORM: anything but their values is one clear
// error, and each is read once.
#include "engine/cuda/attention_options.h"

#include "env_setting_checks.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace engine::cuda {
namespace {

// One test per setting: each is read once per process, when it is valid.
TEST(AttentionOptionsTest, StagingIsTransposeLdmatrixOrAsync) {
  expect_refused("ENGINE_CUDA_PREFILL_STAGING",
                 {"on", "", "1", "Async", "ldmatrix "}, prefill_staging,
                 "transpose (the default), ldmatrix or async (how prefill "
                 "attention stages its K and V tiles)");
  ASSERT_EQ(setenv("ENGINE_CUDA_PREFILL_STAGING", "async", 1), 0);
  EXPECT_EQ(prefill_staging(), PrefillStaging::async);
  ASSERT_EQ(setenv("ENGINE_CUDA_PREFILL_STAGING", "transpose", 1), 0);
  EXPECT_EQ(prefill_staging(), PrefillStaging::async)
      << "read once, when first valid";
}

TEST(AttentionOptionsTest, FoldIsZeroOrOne) {
  expect_refused("ENGINE_CUDA_FOLD_QK_NORM", {"on", "", "2", "yes"},
                 decode_folds_qk_norm,
                 "0 (the default: a kernel of its own norms q and k, applies "
                 "RoPE and stores k and v) or 1 (decode attention does it)");
  ASSERT_EQ(setenv("ENGINE_CUDA_FOLD_QK_NORM", "1", 1), 0);
  EXPECT_TRUE(decode_folds_qk_norm());
  ASSERT_EQ(setenv("ENGINE_CUDA_FOLD_QK_NORM", "0", 1), 0);
  EXPECT_TRUE(decode_folds_qk_norm()) << "read once, when first valid";
}

} // namespace
} // namespace engine::cuda
