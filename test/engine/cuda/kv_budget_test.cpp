// The KV cache's size on the GPU: what gpu_memory_utilization leaves after
// what is in use, or num_kvcache_blocks; too little names the setting.
#include "engine/cuda/kv_budget.h"

#include "engine/error.h"

#include <gtest/gtest.h>

using namespace engine;
using namespace engine::cuda;

namespace {
constexpr int64_t GiB = int64_t(1) << 30;

std::string error_of(const EngineConfig &c, GpuMemory m, int64_t block,
                     int needed) {
  try {
    kv_blocks_for_gpu(c, m, block, needed);
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}
} // namespace

TEST(KvBudget, TakesWhatUtilizationLeavesAfterWhatIsInUse) {
  EngineConfig c = default_engine_config();
  c.gpu_memory_utilization = 0.9;
  // 80 GiB card, 10 GiB in use: 62 GiB left; 28 MiB blocks (Qwen3-0.6B:
  // 28 layers · 256 tokens · 8 heads · 128 · 2 (k, v) · 2 bytes).
  const int64_t block = int64_t(2) * 28 * 256 * 8 * 128 * 2;
  EXPECT_EQ(kv_blocks_for_gpu(c, GpuMemory{80 * GiB, 10 * GiB}, block, 16),
            int((int64_t(0.9 * double(80 * GiB)) - 10 * GiB) / block));
  c.gpu_memory_utilization = 0.5;
  EXPECT_EQ(kv_blocks_for_gpu(c, GpuMemory{80 * GiB, 10 * GiB}, block, 16),
            int(30 * GiB / block));
}

TEST(KvBudget, NumKvcacheBlocksOverridesTheBudget) {
  EngineConfig c = default_engine_config();
  c.num_kvcache_blocks = 100;
  EXPECT_EQ(kv_blocks_for_gpu(c, GpuMemory{80 * GiB, 79 * GiB}, 1 << 20, 16),
            100);
  c.num_kvcache_blocks = 8;
  EXPECT_NE(error_of(c, GpuMemory{80 * GiB, 0}, 1 << 20, 16)
                .find("num_kvcache_blocks 8"),
            std::string::npos);
}

TEST(KvBudget, TooLittleNamesTheSettingToChange) {
  EngineConfig c = default_engine_config();
  c.gpu_memory_utilization = 0.1;
  const std::string e = error_of(c, GpuMemory{80 * GiB, 10 * GiB}, 1 << 20, 16);
  EXPECT_NE(e.find("gpu_memory_utilization 0.1"), std::string::npos) << e;
  EXPECT_NE(e.find("0 blocks, fewer than the 16"), std::string::npos) << e;
  EXPECT_NE(e.find("10.00 GiB in use"), std::string::npos) << e;
}
