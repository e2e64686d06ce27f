// engine/llm_engine.h - the public API: LLM and SamplingParams, shaped like
// Nano-vLLM's (add_request / step / generate).
//
//   engine::LLM llm("models/qwen3-0.6b");          // EngineConfig defaults
//   engine::SamplingParams sp;  sp.temperature = 0.6f;  sp.max_tokens = 64;
//   auto outputs = llm.generate({std::string("Hello")}, {sp});
//   std::cout << outputs[0].text;
//
// A step is schedule, run, post-process: the Scheduler picks the sequences
// (prefill first, never mixed with decode), the ModelRunner computes them and
// samples one token each, the Scheduler appends the tokens and retires
// finished sequences.
#pragma once

#include "engine/engine_config.h"
#include "engine/io/checkpoint.h"
#include "engine/io/model_config.h"
#include "engine/model_runner.h"
#include "engine/sampling_params.h"
#include "engine/scheduler.h"
#include "engine/tokenizer/tokenizer.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace engine {

/// Text (encoded with the model's tokenizer) or token ids.
using Prompt = std::variant<std::string, std::vector<int32_t>>;

struct RequestOutput {
  int64_t request_id = 0;
  /// Completion decoded without special tokens (empty without a tokenizer).
  std::string text;
  /// Completion token ids; a final end-of-sequence token is included.
  std::vector<int32_t> token_ids;
  int num_prompt_tokens = 0;
  int num_preemptions = 0;
};

struct StepOutput {
  std::vector<RequestOutput> finished;
  /// (request id, token) for every token sampled in this step.
  std::vector<std::pair<int64_t, int32_t>> new_tokens;
  bool is_prefill = false;
  /// Tokens the model computed (prefill: uncached prompt tokens).
  int num_computed_tokens = 0;
  double seconds = 0;
};

/// Cumulative throughput since construction or reset_stats().
struct EngineStats {
  int64_t prefill_tokens = 0, decode_tokens = 0;
  double prefill_seconds = 0, decode_seconds = 0;
  int64_t steps = 0, preemptions = 0, cached_prompt_tokens = 0;
};

struct GenerateOptions {
  /// A live progress bar with prefill and decode tok/s on stderr.
  bool show_progress = false;
  /// Called for every sampled token, with the prompt's index, as it is
  /// produced (streaming).
  std::function<void(size_t prompt_index, int32_t token)> on_token;
};

class LLM {
public:
  /// Loads config.json, generation_config.json, the weights (memory-mapped)
  /// and tokenizer.json when present. Throws engine::Error naming the file
  /// or option at fault.
  explicit LLM(const std::string &model_path,
               EngineConfig config = default_engine_config());
  ~LLM();

  /// Queues a request; returns its id. Throws engine::Error for invalid
  /// sampling parameters, token ids outside the vocabulary, a text prompt
  /// without a tokenizer, or a prompt longer than max_model_len.
  int64_t add_request(const Prompt &prompt, const SamplingParams &params);
  /// One schedule/run/post-process step.
  StepOutput step();
  bool is_finished() const;
  /// Runs prompts to completion; params has one entry for all prompts or
  /// one per prompt. Outputs are in prompt order.
  std::vector<RequestOutput> generate(const std::vector<Prompt> &prompts,
                                      const std::vector<SamplingParams> &params,
                                      const GenerateOptions &options = {});

  const ModelConfig &model_config() const { return model_config_; }
  const GenerationConfig &generation_config() const { return generation_; }
  const EngineConfig &config() const { return config_; }
  /// Null when the model folder has no tokenizer.json.
  const Tokenizer *tokenizer() const { return tokenizer_.get(); }
  const ModelRunner &runner() const { return *runner_; }
  /// The weights the model runs on (memory-mapped).
  const Checkpoint &checkpoint() const { return *checkpoint_; }
  const std::vector<int32_t> &eos_token_ids() const { return eos_; }
  EngineStats stats() const { return stats_; }
  void reset_stats() { stats_ = EngineStats{}; }

private:
  RequestOutput output_of(const Sequence &seq) const;

  EngineConfig config_;
  ModelConfig model_config_;
  GenerationConfig generation_;
  std::unique_ptr<Checkpoint> checkpoint_;
  std::unique_ptr<Tokenizer> tokenizer_;
  std::unique_ptr<ModelRunner> runner_;
  std::unique_ptr<Scheduler> scheduler_;
  std::vector<int32_t> eos_;
  std::map<int64_t, std::unique_ptr<Sequence>> sequences_;
  int64_t next_id_ = 0;
  EngineStats stats_;
};

} // namespace engine
