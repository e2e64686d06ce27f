// engine/cuda/kv_budget.h - how many KV blocks the GPU's memory allows.
//
// Host-only: built and tested on every machine. As Nano-vLLM: after the
// weights and every activation buffer are allocated and a profiling forward
// pass at the largest step has run, the cache gets what is left of
// gpu_memory_utilization × total memory.
#pragma once

#include "engine/engine_config.h"

#include <cstdint>

namespace engine::cuda {

struct GpuMemory {
  int64_t total = 0; ///< bytes on the device
  int64_t used = 0;  ///< bytes in use after the profiling pass (all processes)
};

/// num_kvcache_blocks when set, else ⌊(utilization·total − used) /
/// block_bytes⌋. Throws engine::Error naming gpu_memory_utilization (or
/// num_kvcache_blocks) when that is fewer blocks than one max_model_len
/// sequence needs (`needed`).
int kv_blocks_for_gpu(const EngineConfig &config, GpuMemory memory,
                      int64_t block_bytes, int needed);

} // namespace engine::cuda
