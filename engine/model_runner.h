// engine/model_runner.h - the host/device boundary: one step of the model
// for the scheduled sequences, returning one sampled token each.
//
// The LLMEngine and Scheduler see only this interface; the CPU backend
// (CpuModelRunner) implements it, and a CUDA backend slots in beside it.
#pragma once

#include "engine/sequence.h"

#include <memory>
#include <string>
#include <vector>

namespace engine {

struct EngineConfig;
struct ModelConfig;
class Checkpoint;

class ModelRunner {
public:
  virtual ~ModelRunner() = default;
  /// Computes the sequences' new tokens (prefill: all uncached tokens;
  /// decode: the last token) into the KV cache and samples the next token
  /// of each. Their block tables must cover every token.
  virtual std::vector<int32_t> run(const std::vector<Sequence *> &seqs,
                                   bool is_prefill) = 0;
  /// KV blocks the backend allocated (what the BlockManager manages).
  virtual int num_kv_blocks() const = 0;
  /// One line for logs ("cpu: avx512bf16+amx, 2 threads, 1024 KV blocks").
  virtual std::string describe() const = 0;
};

/// The backend config.device names; throws engine::Error when it cannot be
/// built (not enough memory for one max_model_len sequence, ...).
std::unique_ptr<ModelRunner> make_model_runner(const EngineConfig &config,
                                               const ModelConfig &model,
                                               const Checkpoint &checkpoint);

} // namespace engine
