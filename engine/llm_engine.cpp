// engine/llm_engine.cpp - loading a model folder and driving the
// schedule/run/post-process loop.
#include "engine/llm_engine.h"

#include "engine/error.h"
#include "engine/progress_bar.h"

#include <perf/perf.h>

#include <chrono>
#include <filesystem>

namespace engine {

namespace {
double now_seconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// splitmix64: decorrelates the engine seed and the request id into the
/// request's own stream seed.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
} // namespace

LLM::LLM(const std::string &model_path, EngineConfig config)
    : config_(std::move(config)) {
  model_config_ = load_model_config(model_path);
  generation_ = load_generation_config(model_path);
  validate(config_, model_config_);
  checkpoint_ = std::make_unique<Checkpoint>(model_path);
  if (std::filesystem::exists(std::filesystem::path(model_path) /
                              "tokenizer.json"))
    tokenizer_ = std::make_unique<Tokenizer>(Tokenizer::load(model_path));
  runner_ = make_model_runner(config_, model_config_, *checkpoint_);

  // generation_config.json lists every end token (Qwen3: <|im_end|> and
  // <|endoftext|>); config.json's is the fallback.
  eos_ = !generation_.eos_token_ids.empty() ? generation_.eos_token_ids
                                            : model_config_.eos_token_ids;
  SchedulerConfig sc;
  sc.max_num_seqs = config_.max_num_seqs;
  sc.max_num_batched_tokens = config_.max_num_batched_tokens;
  sc.num_kv_blocks = runner_->num_kv_blocks();
  sc.block_size = config_.kvcache_block_size;
  sc.max_model_len = config_.max_model_len;
  scheduler_ = std::make_unique<Scheduler>(sc, eos_);
}

LLM::~LLM() = default;

int64_t LLM::add_request(const Prompt &prompt, const SamplingParams &params) {
  validate(params);
  std::vector<int32_t> ids;
  if (const auto *text = std::get_if<std::string>(&prompt)) {
    if (!tokenizer_)
      throw Error("prompt: the model folder has no tokenizer.json; give "
                  "token ids instead of text");
    ids = tokenizer_->encode(*text);
  } else {
    ids = std::get<std::vector<int32_t>>(prompt);
  }
  for (int32_t id : ids)
    if (id < 0 || id >= model_config_.vocab_size)
      throw Error("prompt: token id " + std::to_string(id) +
                  " is outside the vocabulary (0.." +
                  std::to_string(model_config_.vocab_size - 1) + ")");
  const int64_t id = next_id_++;
  auto seq = std::make_unique<Sequence>(id, std::move(ids), params,
                                        config_.kvcache_block_size);
  seq->rng = Rng(params.seed ? *params.seed : mix(config_.seed ^ mix(id)));
  scheduler_->add(seq.get()); // throws for prompts that can never run
  sequences_.emplace(id, std::move(seq));
  PERF_BEGIN("request");
  return id;
}

bool LLM::is_finished() const { return scheduler_->is_finished(); }

RequestOutput LLM::output_of(const Sequence &seq) const {
  RequestOutput out;
  out.request_id = seq.seq_id;
  out.token_ids = seq.completion_token_ids();
  out.num_prompt_tokens = seq.num_prompt_tokens;
  out.num_preemptions = seq.num_preemptions;
  if (tokenizer_) {
    // The embedding has padding rows past the tokenizer's vocabulary
    // (Qwen3: 151936 rows, 151669 tokens) that a model can still sample;
    // they have no text, and Hugging Face's decode skips them too.
    std::vector<int32_t> known;
    for (int32_t id : out.token_ids)
      if (id < tokenizer_->vocab_size())
        known.push_back(id);
    out.text = tokenizer_->decode(known, /*skip_special_tokens=*/true);
  }
  return out;
}

StepOutput LLM::step() {
  StepOutput out;
  ScheduledBatch batch = scheduler_->schedule();
  if (batch.seqs.empty())
    return out;
  out.is_prefill = batch.is_prefill;
  for (const Sequence *s : batch.seqs) {
    out.num_computed_tokens +=
        batch.is_prefill ? s->num_tokens() - s->num_cached_tokens : 1;
    if (batch.is_prefill)
      stats_.cached_prompt_tokens += s->num_cached_tokens;
  }
  const double start = now_seconds();
  std::vector<int32_t> tokens = runner_->run(batch.seqs, batch.is_prefill);
  std::vector<Sequence *> finished =
      scheduler_->postprocess(batch.seqs, tokens);
  out.seconds = now_seconds() - start;

  for (size_t i = 0; i < batch.seqs.size(); ++i) {
    out.new_tokens.emplace_back(batch.seqs[i]->seq_id, tokens[i]);
    PERF_PROGRESS("token");
  }
  for (Sequence *s : finished) {
    out.finished.push_back(output_of(*s));
    stats_.preemptions += s->num_preemptions;
    PERF_PROGRESS("request_finished");
    PERF_END("request");
    sequences_.erase(s->seq_id);
  }
  ++stats_.steps;
  if (batch.is_prefill) {
    stats_.prefill_tokens += out.num_computed_tokens;
    stats_.prefill_seconds += out.seconds;
  } else {
    stats_.decode_tokens += out.num_computed_tokens;
    stats_.decode_seconds += out.seconds;
  }
  return out;
}

std::vector<RequestOutput>
LLM::generate(const std::vector<Prompt> &prompts,
              const std::vector<SamplingParams> &params,
              const GenerateOptions &options) {
  if (params.size() != 1 && params.size() != prompts.size())
    throw Error("generate: " + std::to_string(params.size()) +
                " sampling parameter sets for " +
                std::to_string(prompts.size()) +
                " prompts (give one, or one per prompt)");
  std::map<int64_t, size_t> index_of;
  for (size_t i = 0; i < prompts.size(); ++i) {
    const SamplingParams &p = params.size() == 1 ? params[0] : params[i];
    index_of[add_request(prompts[i], p)] = i;
  }
  std::vector<RequestOutput> outputs(prompts.size());
  ProgressBar bar(options.show_progress, int64_t(prompts.size()));
  while (!is_finished()) {
    StepOutput s = step();
    if (options.on_token)
      for (auto &[id, token] : s.new_tokens)
        options.on_token(index_of.at(id), token);
    bar.update(s.is_prefill, s.num_computed_tokens, s.seconds,
               int64_t(s.finished.size()));
    for (RequestOutput &o : s.finished)
      outputs[index_of.at(o.request_id)] = std::move(o);
  }
  bar.finish();
  return outputs;
}

} // namespace engine
