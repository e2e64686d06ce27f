// engine/engine_config.cpp - defaults and validation of EngineConfig.
#include "engine/engine_config.h"

#include "engine/cpu/gemv_tuning.h"
#include "engine/error.h"
#include "engine/io/model_config.h"

#include <algorithm>
#include <string>
#include <unistd.h>

namespace engine {

EngineConfig default_engine_config() { return EngineConfig{}; }

namespace {
#if ENGINE_HAVE_CUDA
constexpr bool kHaveCuda = true;
#else
constexpr bool kHaveCuda = false;
#endif

void require_positive(const char *name, int64_t value) {
  if (value <= 0)
    throw Error(std::string("engine: ") + name + " must be positive, got " +
                std::to_string(value));
}
} // namespace

void validate(EngineConfig &c, const ModelConfig &model) {
  require_positive("max_num_batched_tokens", c.max_num_batched_tokens);
  require_positive("max_num_seqs", c.max_num_seqs);
  require_positive("max_model_len", c.max_model_len);
  require_positive("kvcache_block_size", c.kvcache_block_size);
  if (c.num_kvcache_blocks != -1)
    require_positive("num_kvcache_blocks (or -1)", c.num_kvcache_blocks);
  require_positive("kv_cache_memory_mb", c.kv_cache_memory_mb);
  if (!(c.gpu_memory_utilization > 0 && c.gpu_memory_utilization <= 1))
    throw Error("engine: gpu_memory_utilization must be in (0, 1], got " +
                std::to_string(c.gpu_memory_utilization));
  if (c.tensor_parallel_size < 1)
    throw Error("engine: tensor_parallel_size must be at least 1, got " +
                std::to_string(c.tensor_parallel_size));
  if (c.device != "cpu" && !(c.device == "cuda" && kHaveCuda))
    throw Error("engine: device '" + c.device + "' is not available (this " +
                "build has " + (kHaveCuda ? "cpu and cuda" : "cpu") + ")");
  // Tensor parallelism needs several GPUs and NCCL; neither backend has it.
  if (c.tensor_parallel_size != 1)
    throw Error("engine: tensor_parallel_size " +
                std::to_string(c.tensor_parallel_size) + ": the " + c.device +
                " backend runs on one " +
                (c.device == "cuda" ? "GPU" : "process") + " in this build");
  if (c.num_threads < 0)
    throw Error("engine: num_threads must be 0 (all CPUs) or positive, got " +
                std::to_string(c.num_threads));
  check_gemv_kernels_setting(c.kernels, "engine: kernels");
  if (c.num_threads == 0)
    c.num_threads = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
  c.max_model_len =
      std::min<int64_t>(c.max_model_len, model.max_position_embeddings);
  // Prefill is never chunked, so one step must fit the longest prompt.
  if (c.max_num_batched_tokens < c.max_model_len)
    throw Error("engine: max_num_batched_tokens (" +
                std::to_string(c.max_num_batched_tokens) +
                ") must be at least max_model_len (" +
                std::to_string(c.max_model_len) + ")");
}

} // namespace engine
