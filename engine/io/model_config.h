// engine/io/model_config.h - a Qwen3 model's config.json and
// generation_config.json.
//
// load_model_config reads the fields the engine needs from a Hugging Face
// config.json, rejects what it does not implement (attention bias, RoPE
// scaling, sliding windows, other architectures) instead of running a
// different model than the file describes, and validates the sizes, so later
// code can divide by them. Both files are also written from these structs
// (engine-make-model), in the form transformers reads.
#pragma once

#include "engine/dtype.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace engine {

struct ModelConfig {
  int64_t vocab_size = 0;
  int64_t hidden_size = 0;
  int64_t intermediate_size = 0;
  int64_t num_hidden_layers = 0;
  int64_t num_attention_heads = 0;
  int64_t num_key_value_heads = 0;
  int64_t head_dim = 0;
  double rms_norm_eps = 1e-6;
  double rope_theta = 10000.0;
  int64_t max_position_embeddings = 32768;
  /// lm_head shares model.embed_tokens.weight (transformers' default: no).
  bool tie_word_embeddings = false;
  /// "bfloat16", "float16", "float32" or "" when absent; informational.
  std::string torch_dtype;
  /// config.json's bos_token_id / eos_token_id (an id or a list of them);
  /// empty when absent or null.
  std::vector<int32_t> bos_token_ids;
  std::vector<int32_t> eos_token_ids;

  /// Parameters as transformers counts them: a tied lm_head counts once.
  int64_t num_parameters() const;
};

/// Reads `<folder>/config.json`. Missing optional fields take transformers'
/// Qwen3 defaults (num_key_value_heads = num_attention_heads, rms_norm_eps
/// 1e-6, rope_theta 10000, max_position_embeddings 32768, tie false); a
/// missing head_dim is hidden_size / num_attention_heads when that divides.
/// Throws engine::Error "<folder>/config.json: ..." when the file is missing
/// or not a JSON object, names another architecture, a required field
/// (vocab_size, hidden_size, intermediate_size, num_hidden_layers,
/// num_attention_heads) is missing, a field has the wrong JSON type, a
/// feature is unsupported (attention_bias, rope_scaling, sliding window,
/// hidden_act other than silu), or validate_model_config fails.
ModelConfig load_model_config(const std::string &folder);

/// Checks that every count is positive, num_attention_heads is a multiple of
/// num_key_value_heads, head_dim is even, rms_norm_eps and rope_theta are
/// positive and token ids lie in the vocabulary. Throws engine::Error
/// "<source>: ..." naming the field.
void validate_model_config(const ModelConfig &config,
                           const std::string &source);

/// config.json text for `config` (Qwen3ForCausalLM, every field transformers
/// reads, hidden_act silu, no bias, no RoPE scaling).
std::string model_config_json(const ModelConfig &config);

/// The torch_dtype spelling of `dtype`: "float32", "float16", "bfloat16".
std::string torch_dtype_name(DType dtype);

/// generation_config.json: how the model's authors want it sampled.
/// Defaults are transformers' GenerationConfig defaults.
struct GenerationConfig {
  /// eos_token_id: an id or a list of them (Qwen3: [151645, 151643]).
  std::vector<int32_t> eos_token_ids;
  std::optional<int32_t> bos_token_id;
  std::optional<int32_t> pad_token_id;
  double temperature = 1.0;
  int64_t top_k = 50;
  double top_p = 1.0;
  bool do_sample = false;
};

/// Reads `<folder>/generation_config.json`; a missing file gives the
/// defaults. Throws engine::Error "<folder>/generation_config.json: ..." for
/// malformed JSON, a field of the wrong type, a negative token id,
/// temperature < 0, top_k < 0 or top_p outside (0, 1].
GenerationConfig load_generation_config(const std::string &folder);

/// generation_config.json text for `config`.
std::string generation_config_json(const GenerationConfig &config);

} // namespace engine
