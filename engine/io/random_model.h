// engine/io/random_model.h - writing a random-weight Qwen3 model folder.
//
// Weights cannot be downloaded here, and a checkpoint with Qwen3's exact
// shapes and seeded random values is as good as the real one for speed and
// for differential tests. write_random_model produces the folder
// transformers would load: config.json, generation_config.json, the weights
// (one file or shards plus an index) and optionally the real tokenizer's
// files. Values are a pure function of (seed, tensor name, element index),
// so a file is identical whatever the thread count or sharding, and is
// generated and written in chunks, never whole.
#pragma once

#include "engine/io/model_config.h"
#include "engine/io/safetensors_writer.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace engine {

struct RandomModelOptions {
  ModelConfig config; ///< torch_dtype is taken from `dtype`
  DType dtype = DType::BF16;
  uint64_t seed = 0;
  /// Standard deviation of the linear layers' weights.
  double scale = 0.02;
  /// 1: model.safetensors; N > 1: model-0000i-of-0000N.safetensors + index.
  int shards = 1;
  /// Also write lm_head.weight when the embeddings are tied (a copy of the
  /// embedding, as Qwen3-0.6B's real file has).
  bool store_lm_head = false;
  /// Folder whose tokenizer.json (and tokenizer_config.json, when there) is
  /// copied; empty: none.
  std::string tokenizer_dir;
  /// Write into a non-empty folder, replacing the model files there.
  bool force = false;
  /// Generator threads; 0: one per core.
  int threads = 0;
};

struct RandomModelSummary {
  int64_t parameters = 0; ///< ModelConfig::num_parameters()
  size_t tensors = 0;     ///< tensors written, lm_head copy included
  uint64_t bytes = 0;     ///< bytes of the .safetensors files
};

/// The named configuration: "tiny" (hidden 64, 2 layers, 4 heads, 2 KV
/// heads, head_dim 32, Qwen3's vocabulary) or "qwen3-0.6b" (the real
/// model's shapes). Throws engine::Error for another name.
ModelConfig model_preset(std::string_view name);

/// Every tensor of a Qwen3 checkpoint for `config` with Hugging Face's names
/// and [out, in] shapes, in the order written: the embedding, each layer,
/// the final norm, then lm_head when `with_lm_head`.
std::vector<TensorSpec> qwen3_tensor_specs(const ModelConfig &config,
                                           DType dtype, bool with_lm_head);

/// Standard deviation of the random embedding (and untied lm_head) values:
/// 1/sqrt(hidden_size), which puts a tied model's logits at a standard
/// deviation near 1 whatever the width. For the output to depend on the
/// context, not just the last token, the linear layers need a scale near
/// 1/sqrt(hidden_size) too: 0.02 suits the 0.6B shape, tiny wants 0.125.
double random_embedding_std(const ModelConfig &config);

/// Writes the model folder `out` (created when missing). Throws
/// engine::Error naming the folder when it exists and is not empty (unless
/// options.force) or is not a folder, when the config is invalid
/// (validate_model_config), shards < 1 or more than there are tensors, the
/// tokenizer folder lacks tokenizer.json, or on any I/O failure.
RandomModelSummary write_random_model(const std::string &out,
                                      const RandomModelOptions &options);

} // namespace engine
