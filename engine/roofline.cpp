// engine/roofline.cpp - bytes and operations of a forward pass.
#include "engine/roofline.h"

#include "engine/error.h"

#include <string>

namespace engine {

namespace {
const TensorView &tensor(const Checkpoint &c, const std::string &name) {
  const TensorView *t = c.find(name);
  if (!t)
    throw Error(c.source() + ": missing tensor '" + name + "'");
  return *t;
}
} // namespace

ModelCost model_cost(const ModelConfig &config, const Checkpoint &checkpoint,
                     int kv_element_bytes) {
  ModelCost m;
  auto add = [&](const std::string &name) {
    const TensorView &t = tensor(checkpoint, name);
    m.matrix_bytes += double(t.nbytes);
    m.matrix_params += double(t.numel());
  };
  for (int64_t i = 0; i < config.num_hidden_layers; ++i) {
    const std::string layer = "model.layers." + std::to_string(i) + ".";
    for (const char *p : {"q", "k", "v", "o"})
      add(layer + "self_attn." + p + "_proj.weight");
    for (const char *p : {"gate", "up", "down"})
      add(layer + "mlp." + p + "_proj.weight");
  }
  const double before_head = m.matrix_params;
  add(config.tie_word_embeddings ? "model.embed_tokens.weight"
                                 : "lm_head.weight");
  m.head_params = m.matrix_params - before_head;
  if (kv_element_bytes <= 0)
    kv_element_bytes =
        tensor(checkpoint, "model.layers.0.self_attn.k_proj.weight").dtype ==
                DType::BF16
            ? 2
            : 4;
  const double layers = double(config.num_hidden_layers);
  m.kv_bytes_per_position = layers * 2 * double(config.num_key_value_heads) *
                            double(config.head_dim) * kv_element_bytes;
  // Per layer and head: q·k (head_dim multiply-adds) and p·v (head_dim).
  m.attention_flops_per_position =
      layers * double(config.num_attention_heads) * double(config.head_dim) * 4;
  return m;
}

WorkCost decode_step_cost(const ModelCost &m, int sequences,
                          double mean_context) {
  WorkCost w;
  w.bytes = m.matrix_bytes + sequences * mean_context * m.kv_bytes_per_position;
  w.flops = sequences * (2 * m.matrix_params +
                         mean_context * m.attention_flops_per_position);
  return w;
}

WorkCost prefill_cost(const ModelCost &m, int tokens) {
  WorkCost w;
  const double n = tokens;
  // The K and V it writes, read back by the later queries from cache.
  w.bytes = m.matrix_bytes + n * m.kv_bytes_per_position;
  // Causal: query i attends to i + 1 positions.
  w.flops = n * 2 * (m.matrix_params - m.head_params) + 2 * m.head_params +
            m.attention_flops_per_position * n * (n + 1) / 2;
  return w;
}

} // namespace engine
