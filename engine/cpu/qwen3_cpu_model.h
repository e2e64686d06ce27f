// engine/cpu/qwen3_cpu_model.h - the Qwen3 decoder on the CPU backend: one
// forward over a ForwardBatch, writing K/V into the paged cache and logits
// for the requested rows.
//
// Weights keep their stored dtype (bf16 stays bf16), copied into 2 MiB pages
// where transparent huge pages are allowed, else (or with
// ENGINE_HUGE_PAGES=0) used in place from the memory-mapped checkpoint;
// activations are fp32. Only the small norm vectors are
// converted to fp32 copies.
#pragma once

#include "engine/cpu/gemv_tuning.h"
#include "engine/cpu/huge_pages.h"
#include "engine/cpu/kv_cache.h"
#include "engine/cpu/matmul.h"
#include "engine/cpu/ops.h"
#include "engine/cpu/thread_pool.h"
#include "engine/forward_batch.h"
#include "engine/io/model_config.h"
#include "engine/qwen3_weights.h"

#include <vector>

namespace engine {

class Qwen3CpuModel {
public:
  /// `pool` copies the weights into huge pages (ENGINE_HUGE_PAGES) and is
  /// not kept.
  Qwen3CpuModel(ThreadPool &pool, const ModelConfig &config,
                const Qwen3Weights &weights, int max_positions);

  /// Runs every layer over batch's tokens and writes
  /// [batch.logits_rows.size()][vocab_size] logits. Token ids and slots must
  /// already be validated (the ModelRunner does).
  void forward(ThreadPool &pool, const ForwardBatch &batch, KvCache &kv,
               float *logits);

  const ModelConfig &config() const { return config_; }

  /// The weights copied into huge pages, and how many bytes of that copy
  /// the kernel backs with 2 MiB pages now (0 and 0 without a copy).
  size_t weights_copied_bytes() const { return weights_.size(); }
  size_t weights_huge_bytes() const { return weights_.huge_bytes(); }

  /// Chooses the m = 1 plan of every bf16 projection and the head
  /// (gemv_tuning.h) and keeps it with each matrix. Call before forward().
  std::vector<GemvChoice> choose_gemv_plans(ThreadPool &pool,
                                            const GemvTuning &tuning);

private:
  struct Layer {
    std::vector<float> input_norm, post_norm, q_norm, k_norm;
    WeightMatrix q, k, v, o, gate, up, down;
  };
  // Both blocks leave their output in h_ for the next norm to add to the
  // residual stream x_. pending_residual: h_ holds the previous layer's
  // output, not yet added (false for the first layer).
  void attention_block(ThreadPool &pool, const ForwardBatch &batch,
                       const Layer &layer, const PagedKv &kv, int64_t n,
                       bool pending_residual);
  void mlp_block(ThreadPool &pool, const Layer &layer, int64_t n);
  // Copies the projections and the head into huge pages (huge_pages.h) and
  // points the matrices there.
  void move_to_huge_pages(ThreadPool &pool, bool file_mapped);

  ModelConfig config_;
  HugePageBuffer weights_; // the copies move_to_huge_pages made, if any
  WeightMatrix embed_, lm_head_;
  std::vector<float> final_norm_;
  std::vector<Layer> layers_;
  RopeTable rope_;
  float attn_scale_;
  // Activations, grown to the largest batch seen and reused.
  std::vector<float> x_, h_, q_, k_, v_, attn_, gate_, up_, last_;
};

} // namespace engine
