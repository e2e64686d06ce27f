// engine/qwen3_weights.h - the Qwen3 checkpoint's tensors, found by their
// Hugging Face names and checked against the config's shapes.
//
// Backend-neutral: it only points into the memory-mapped checkpoint, so the
// CPU backend uses the tensors in place and a GPU backend copies them from
// here. Tied embeddings: the head is the embedding even when the checkpoint
// also stores a redundant lm_head.weight (Qwen3-0.6B does).
#pragma once

#include "engine/io/checkpoint.h"
#include "engine/io/model_config.h"

#include <vector>

namespace engine {

struct Qwen3LayerWeights {
  const TensorView *input_layernorm, *post_attention_layernorm;
  const TensorView *q_proj, *k_proj, *v_proj, *o_proj;
  const TensorView *q_norm, *k_norm;
  const TensorView *gate_proj, *up_proj, *down_proj;
};

struct Qwen3Weights {
  const TensorView *embed_tokens, *norm, *lm_head;
  std::vector<Qwen3LayerWeights> layers;
};

/// Finds every tensor the config implies; throws engine::Error naming the
/// checkpoint and the first missing or mis-shaped tensor, or a tensor whose
/// dtype the model cannot use (norms and projections of mixed types are
/// fine; each is used as stored).
Qwen3Weights bind_qwen3_weights(const ModelConfig &config,
                                const Checkpoint &checkpoint);

} // namespace engine
