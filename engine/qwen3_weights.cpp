// engine/qwen3_weights.cpp - binding Hugging Face Qwen3 tensor names.
#include "engine/qwen3_weights.h"

#include <string>

namespace engine {

Qwen3Weights bind_qwen3_weights(const ModelConfig &c, const Checkpoint &ckpt) {
  const int64_t hidden = c.hidden_size, inter = c.intermediate_size;
  const int64_t q_dim = int64_t(c.num_attention_heads) * c.head_dim;
  const int64_t kv_dim = int64_t(c.num_key_value_heads) * c.head_dim;
  auto get = [&](const std::string &name, std::vector<int64_t> shape) {
    return &ckpt.get(name, std::move(shape));
  };
  Qwen3Weights w;
  w.embed_tokens = get("model.embed_tokens.weight", {c.vocab_size, hidden});
  w.norm = get("model.norm.weight", {hidden});
  w.lm_head = c.tie_word_embeddings
                  ? w.embed_tokens
                  : get("lm_head.weight", {c.vocab_size, hidden});
  for (int i = 0; i < c.num_hidden_layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i) + ".";
    Qwen3LayerWeights l;
    l.input_layernorm = get(p + "input_layernorm.weight", {hidden});
    l.post_attention_layernorm =
        get(p + "post_attention_layernorm.weight", {hidden});
    l.q_proj = get(p + "self_attn.q_proj.weight", {q_dim, hidden});
    l.k_proj = get(p + "self_attn.k_proj.weight", {kv_dim, hidden});
    l.v_proj = get(p + "self_attn.v_proj.weight", {kv_dim, hidden});
    l.o_proj = get(p + "self_attn.o_proj.weight", {hidden, q_dim});
    l.q_norm = get(p + "self_attn.q_norm.weight", {c.head_dim});
    l.k_norm = get(p + "self_attn.k_norm.weight", {c.head_dim});
    l.gate_proj = get(p + "mlp.gate_proj.weight", {inter, hidden});
    l.up_proj = get(p + "mlp.up_proj.weight", {inter, hidden});
    l.down_proj = get(p + "mlp.down_proj.weight", {hidden, inter});
    w.layers.push_back(l);
  }
  return w;
}

} // namespace engine
