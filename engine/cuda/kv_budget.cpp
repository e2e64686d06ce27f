// engine/cuda/kv_budget.cpp - the KV cache's size on the GPU.
#include "engine/cuda/kv_budget.h"

#include "engine/error.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace engine::cuda {

namespace {
std::string gib(int64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", double(bytes) / (1 << 30));
  return buf;
}
} // namespace

int kv_blocks_for_gpu(const EngineConfig &c, GpuMemory m, int64_t block_bytes,
                      int needed) {
  if (c.num_kvcache_blocks != -1) {
    if (c.num_kvcache_blocks < needed)
      throw Error("engine: num_kvcache_blocks " +
                  std::to_string(c.num_kvcache_blocks) + " is fewer than the " +
                  std::to_string(needed) + " one max_model_len (" +
                  std::to_string(c.max_model_len) + ") sequence needs");
    return c.num_kvcache_blocks;
  }
  const int64_t budget =
      int64_t(c.gpu_memory_utilization * double(m.total)) - m.used;
  const int64_t blocks =
      std::min<int64_t>(std::max<int64_t>(budget, 0) / block_bytes, 1 << 30);
  if (blocks < needed)
    throw Error("engine: gpu_memory_utilization " +
                std::to_string(c.gpu_memory_utilization) + " of " +
                gib(m.total) + " leaves " + gib(std::max<int64_t>(budget, 0)) +
                " for the KV cache after " + gib(m.used) +
                " in use: " + std::to_string(blocks) +
                " blocks, fewer than the " + std::to_string(needed) +
                " one max_model_len (" + std::to_string(c.max_model_len) +
                ") sequence needs; raise gpu_memory_utilization or lower "
                "max_model_len, max_num_batched_tokens or max_num_seqs");
  return int(blocks);
}

} // namespace engine::cuda
