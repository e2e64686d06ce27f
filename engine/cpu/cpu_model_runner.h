// engine/cpu/cpu_model_runner.h - the CPU backend: a thread pool, the Qwen3
// model over the memory-mapped weights, the paged KV cache and the sampler.
#pragma once

#include "engine/cpu/kv_cache.h"
#include "engine/cpu/qwen3_cpu_model.h"
#include "engine/cpu/thread_pool.h"
#include "engine/engine_config.h"
#include "engine/model_runner.h"

#include <memory>

namespace engine {

class CpuModelRunner : public ModelRunner {
public:
  CpuModelRunner(const EngineConfig &config, const ModelConfig &model,
                 const Checkpoint &checkpoint);
  std::vector<int32_t> run(const std::vector<Sequence *> &seqs,
                           bool is_prefill) override;
  int num_kv_blocks() const override { return kv_->num_blocks(); }
  std::string describe() const override;

  /// The m = 1 plan of each bf16 weight shape, and why (gemv_tuning.h).
  const std::vector<GemvChoice> &gemv_choices() const { return gemv_choices_; }

  /// The runner's threads, for work between steps that must run where the
  /// model runs (engine-bench's bandwidth passes).
  ThreadPool &threads() const { return pool_; }

private:
  // Mutable: lending the threads out between steps changes nothing the
  // runner computes.
  mutable ThreadPool pool_;
  Qwen3Weights weights_;
  std::unique_ptr<Qwen3CpuModel> model_;
  std::unique_ptr<KvCache> kv_;
  std::vector<float> logits_;
  std::vector<GemvChoice> gemv_choices_;
};

} // namespace engine
