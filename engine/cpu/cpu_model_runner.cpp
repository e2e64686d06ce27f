// engine/cpu_model_runner.cpp - sizing the KV cache and running one step on
// the CPU.
#include "engine/cpu/cpu_model_runner.h"

#include "engine/cpu/cpu_features.h"
#include "engine/cpu/gemv_wisdom.h"
#include "engine/error.h"
#include "engine/forward_batch.h"
#include "engine/sampler.h"

#include <string>

namespace engine {

namespace {
/// The cache keeps the model's activation type: bf16 for bf16 weights (as
/// Hugging Face keeps KV in the model dtype), fp32 otherwise.
DType kv_dtype_for(const Qwen3Weights &w) {
  return w.layers.empty() || w.layers[0].k_proj->dtype != DType::BF16
             ? DType::F32
             : DType::BF16;
}

int kv_blocks_for(const EngineConfig &c, const ModelConfig &m, DType dtype) {
  const size_t block =
      KvCache::block_bytes(m.num_hidden_layers, c.kvcache_block_size,
                           m.num_key_value_heads, m.head_dim, dtype);
  const int needed =
      (c.max_model_len + c.kvcache_block_size - 1) / c.kvcache_block_size;
  int blocks = c.num_kvcache_blocks;
  if (blocks == -1)
    blocks = int(std::min<int64_t>(
        (c.kv_cache_memory_mb << 20) / int64_t(block), 1 << 30));
  // Fewer blocks than one longest sequence needs could never finish it.
  if (blocks < needed)
    throw Error("engine: the KV cache holds " + std::to_string(blocks) +
                " blocks of " + std::to_string(c.kvcache_block_size) +
                " tokens, fewer than the " + std::to_string(needed) +
                " one max_model_len (" + std::to_string(c.max_model_len) +
                ") sequence needs; raise kv_cache_memory_mb or "
                "num_kvcache_blocks, or lower max_model_len");
  return blocks;
}
} // namespace

CpuModelRunner::CpuModelRunner(const EngineConfig &c, const ModelConfig &m,
                               const Checkpoint &checkpoint)
    : pool_(c.num_threads), weights_(bind_qwen3_weights(m, checkpoint)) {
  active_isa(); // a bad ENGINE_CPU_ISA is reported now, not at the first step
  model_ = std::make_unique<Qwen3CpuModel>(pool_, m, weights_, c.max_model_len);
  GemvTuning tuning;
  tuning.kernels = c.kernels;
  tuning.wisdom_path = c.kernel_wisdom == "none" ? ""
                       : c.kernel_wisdom.empty() ? default_gemv_wisdom_path()
                                                 : c.kernel_wisdom;
  gemv_choices_ = model_->choose_gemv_plans(pool_, tuning);
  const DType kv_dtype = kv_dtype_for(weights_);
  kv_ = std::make_unique<KvCache>(
      m.num_hidden_layers, kv_blocks_for(c, m, kv_dtype), c.kvcache_block_size,
      m.num_key_value_heads, m.head_dim, kv_dtype);
}

std::vector<int32_t> CpuModelRunner::run(const std::vector<Sequence *> &seqs,
                                         bool is_prefill) {
  ForwardBatch batch = build_forward_batch(seqs, is_prefill);
  const int64_t vocab = model_->config().vocab_size;
  logits_.resize(size_t(seqs.size()) * vocab);
  model_->forward(pool_, batch, *kv_, logits_.data());
  std::vector<int32_t> tokens(seqs.size());
  sample_batch(logits_.data(), int64_t(seqs.size()), vocab, seqs.data(),
               tokens.data());
  return tokens;
}

std::string CpuModelRunner::describe() const {
  std::string weights;
  if (size_t copied = model_->weights_copied_bytes())
    weights = ", weights copied to huge pages: " +
              std::to_string(model_->weights_huge_bytes() >> 20) + " of " +
              std::to_string(copied >> 20) + " MiB in 2 MiB pages";
  return cpu_description(pool_.size()) + ", " +
         std::to_string(kv_->num_blocks()) + " KV blocks of " +
         std::to_string(kv_->block_size()) + " tokens (" +
         std::string(dtype_name(kv_->dtype())) + ")" + weights;
}

} // namespace engine
