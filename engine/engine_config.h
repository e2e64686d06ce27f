// engine/engine_config.h - the engine's options (Nano-vLLM's Config) with
// their defaults in one function and validation against the model.
//
// Options that only mean something on a GPU (enforce_eager,
// gpu_memory_utilization, tensor_parallel_size) exist so that programs and
// scripts written for the CUDA backend run unchanged; on the CPU backend they
// are validated and documented as having no effect (tensor_parallel_size must
// be 1).
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
  /// Tokens per KV block; any positive value on the CPU (the CUDA backend
  /// needs a multiple of 256, as flash-attn's paged KV does).
  int kvcache_block_size = 256;
  /// KV blocks; -1 sizes the cache from kv_cache_memory_mb.
  int num_kvcache_blocks = -1;
  /// Memory for the KV cache when num_kvcache_blocks is -1 (the CPU's
  /// counterpart of gpu_memory_utilization).
  int64_t kv_cache_memory_mb = 4096;
  /// GPU only: no CUDA graphs. Accepted and ignored on the CPU.
  bool enforce_eager = false;
  /// GPU only: fraction of device memory the engine may use; must be in
  /// (0, 1]. Ignored on the CPU.
  double gpu_memory_utilization = 0.9;
  /// GPUs to shard the model over; the CPU backend supports only 1.
  int tensor_parallel_size = 1;
  /// Worker threads for the CPU backend, the caller included; 0 = one per
  /// online CPU.
  int num_threads = 0;
  /// Seed of the per-request random streams (requests without their own).
  uint64_t seed = 0;
  /// The backend: "cpu", the only one so far.
  std::string device = "cpu";
};

/// The defaults, as llama.cpp's llama_context_default_params does.
EngineConfig default_engine_config();

/// Checks every option and fills the derived ones (max_model_len clamped,
/// num_threads resolved). Throws engine::Error naming the option
/// ("engine: max_num_seqs must be positive, got 0").
void validate(EngineConfig &config, const ModelConfig &model);

} // namespace engine
