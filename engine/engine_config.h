// engine/engine_config.h - the engine's options (Nano-vLLM's Config) with
// their defaults in one function and validation against the model.
//
// Options that only mean something on a GPU (enforce_eager,
// gpu_memory_utilization) are validated everywhere and ignored by the CPU
// backend, so programs written for either run on both.
// tensor_parallel_size must be 1: neither backend shards a model yet.
#pragma once

#include <cstdint>
#include <string>

namespace engine {

struct ModelConfig;

struct EngineConfig {
  /// Tokens one step may process (prefill is not chunked, so it must be at
  /// least max_model_len).
  int max_num_batched_tokens = 16384;
  /// Sequences one step may hold.
  int max_num_seqs = 512;
  /// Longest sequence (prompt + completion); clamped to the model's
  /// max_position_embeddings.
  int max_model_len = 4096;
  /// Tokens per KV block; any positive value (both backends' attention
  /// kernels read any block size).
  int kvcache_block_size = 256;
  /// KV blocks; -1 sizes the cache from kv_cache_memory_mb.
  int num_kvcache_blocks = -1;
  /// Memory for the KV cache when num_kvcache_blocks is -1 (the CPU's
  /// counterpart of gpu_memory_utilization).
  int64_t kv_cache_memory_mb = 4096;
  /// GPU only: no CUDA graphs (every decode step launches its kernels).
  /// Accepted and ignored on the CPU.
  bool enforce_eager = false;
  /// GPU only: fraction of device memory the engine may use, KV cache
  /// included (it gets what the weights, activations and a profiling pass
  /// leave), unless num_kvcache_blocks is set; must be in (0, 1]. Ignored on
  /// the CPU.
  double gpu_memory_utilization = 0.9;
  /// GPUs to shard the model over; only 1 in this build.
  int tensor_parallel_size = 1;
  /// Worker threads for the CPU backend, the caller included; 0 = one per
  /// online CPU.
  int num_threads = 0;
  /// CPU: the kernel of one-row (decode) products with bf16 weights. "auto"
  /// takes each weight shape's plan from the wisdom file, measuring (within
  /// 0.3 s) and saving those it lacks; "measure" measures all again;
  /// "default" measures nothing; a plan's name forces it for every shape
  /// (engine/cpu/gemv_kernels.h). Ignored on the GPU.
  std::string kernels = "auto";
  /// CPU: the wisdom file of measured plans; empty: the default,
  /// $XDG_CACHE_HOME/perfcc/engine-kernels.json or
  /// ~/.cache/perfcc/engine-kernels.json; "none": no file.
  std::string kernel_wisdom;
  /// Seed of the per-request random streams (requests without their own).
  uint64_t seed = 0;
  /// The backend: "cpu", or "cuda" in a build with the CUDA toolkit.
  std::string device = "cpu";
};

/// The defaults, as llama.cpp's llama_context_default_params does.
EngineConfig default_engine_config();

/// Checks every option and fills the derived ones (max_model_len clamped,
/// num_threads resolved). Throws engine::Error naming the option
/// ("engine: max_num_seqs must be positive, got 0").
void validate(EngineConfig &config, const ModelConfig &model);

} // namespace engine
