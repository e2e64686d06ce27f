// engine/roofline.h - what a forward pass must move and compute, from the
// model's shape and its checkpoint's real tensor sizes: the bytes of every
// projection and of the head (read once per forward pass, whatever the
// batch), the K and V of each cached position attention reads, and the
// floating-point operations of the matrix products and of attention.
// engine-bench divides these by a test's time and by the machine's
// ceilings (cpu/machine_ceilings.h) for "% of the bandwidth bound" and MFU.
//
// Left out, as small against them: the embedding rows looked up, norms,
// RoPE, activations (they stay in cache), sampling.
#pragma once

#include "engine/io/checkpoint.h"
#include "engine/io/model_config.h"

namespace engine {

struct WorkCost {
  double bytes = 0, flops = 0;
};

struct ModelCost {
  double matrix_bytes = 0;  ///< q/k/v/o/gate/up/down of every layer, the head
  double matrix_params = 0; ///< their elements (2 flops each per token)
  /// The head's elements (in matrix_params too): a prefill computes the
  /// logits of a prompt's last position only.
  double head_params = 0;
  double kv_bytes_per_position = 0; ///< K and V of one position, all layers
  /// q·k and p·v for one query against one key, all layers and heads.
  double attention_flops_per_position = 0;
};

/// Reads the matrices' sizes from the checkpoint (the head is the
/// embedding when tie_word_embeddings); the KV cache holds bf16 for bf16
/// weights and f32 otherwise, as the CPU backend stores it (the CUDA
/// backend always bf16: pass kv_element_bytes 2 there, 0 for the CPU rule).
/// Throws engine::Error naming a missing tensor.
ModelCost model_cost(const ModelConfig &config, const Checkpoint &checkpoint,
                     int kv_element_bytes = 0);

/// One decode step of `sequences` sequences whose contexts average
/// `mean_context` positions.
WorkCost decode_step_cost(const ModelCost &m, int sequences,
                          double mean_context);

/// The prefill of one prompt of `tokens` tokens with nothing cached: every
/// projection for each token, the head for the last.
WorkCost prefill_cost(const ModelCost &m, int tokens);

} // namespace engine
