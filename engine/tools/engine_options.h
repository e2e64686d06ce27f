// engine/tools/engine_options.h - the EngineConfig command-line options the
// programs share (CLI11), so every program spells them the same way.
#pragma once

#include "engine/engine_config.h"

#include <CLI/CLI.hpp>

namespace engine {

inline void add_engine_options(CLI::App &app, EngineConfig &c) {
  app.add_option("--threads", c.num_threads,
                 "CPU threads, the caller included (0 = all online CPUs)");
  app.add_option("--max-num-seqs", c.max_num_seqs, "sequences per step");
  app.add_option("--max-num-batched-tokens", c.max_num_batched_tokens,
                 "tokens per step");
  app.add_option("--max-model-len", c.max_model_len,
                 "longest sequence, prompt + completion");
  app.add_option("--kvcache-block-size", c.kvcache_block_size,
                 "tokens per KV block");
  app.add_option("--num-kvcache-blocks", c.num_kvcache_blocks,
                 "KV blocks (-1: from --kv-cache-mb on the cpu, from "
                 "--gpu-memory-utilization on cuda)");
  app.add_option("--kv-cache-mb", c.kv_cache_memory_mb,
                 "cpu: KV cache memory when --num-kvcache-blocks is -1");
  app.add_flag("--enforce-eager", c.enforce_eager,
               "cuda: no CUDA graphs for decode; no effect on the cpu");
  app.add_option("--gpu-memory-utilization", c.gpu_memory_utilization,
                 "cuda: share of GPU memory the engine may use, KV cache "
                 "included; no effect on the cpu");
  app.add_option("--tensor-parallel-size", c.tensor_parallel_size,
                 "GPUs to shard over (1: neither backend shards yet)");
  app.add_option("--device", c.device,
                 "backend: cpu, or cuda in a build with the CUDA toolkit");
  app.add_option("--kernels", c.kernels,
                 "cpu: decode's bf16 kernel: auto (measured once per "
                 "machine, kept in the wisdom file), measure, default, or a "
                 "plan's name");
  app.add_option("--kernel-wisdom", c.kernel_wisdom,
                 "cpu: the file of measured kernels (default "
                 "~/.cache/perfcc/engine-kernels.json; none: no file)");
  app.add_option("--engine-seed", c.seed, "seed of requests without their own");
}

} // namespace engine
