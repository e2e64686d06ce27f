// engine/scheduler.cpp - continuous batching with preemption by recompute
// (see scheduler.h).
//
// Why every sequence finishes: add() only accepts a sequence whose KV fits
// the whole cache at its longest. Decode walks running sequences oldest
// first and preempts from the newest end, so the oldest running sequence
// always gets its block (in the worst case everything else is preempted and
// the cache holds only its blocks). A prefill step admits at least one
// sequence (the front one fits max_num_batched_tokens, since no sequence
// exceeds max_model_len, and fits the cache once nothing else runs).
// Preemption keeps every generated token, so each step appends at least
// one token and no sequence ever loses any: the total work is bounded.
#include "engine/scheduler.h"

#include "engine/error.h"

#include <algorithm>
#include <stdexcept>

namespace engine {

namespace {

const SchedulerConfig &validated(const SchedulerConfig &config) {
  const auto positive = [](const char *name, int value) {
    if (value < 1)
      throw Error(std::string("scheduler: ") + name +
                  " must be positive, got " + std::to_string(value));
  };
  positive("max_num_seqs", config.max_num_seqs);
  positive("max_num_batched_tokens", config.max_num_batched_tokens);
  positive("num_kv_blocks", config.num_kv_blocks);
  positive("block_size", config.block_size);
  positive("max_model_len", config.max_model_len);
  if (config.max_num_batched_tokens < config.max_model_len)
    throw Error("scheduler: max_num_batched_tokens (" +
                std::to_string(config.max_num_batched_tokens) +
                ") must be at least max_model_len (" +
                std::to_string(config.max_model_len) +
                "): a prompt is prefilled in one step");
  return config;
}

} // namespace

Scheduler::Scheduler(const SchedulerConfig &config,
                     std::vector<int32_t> eos_token_ids)
    : config_(validated(config)), eos_token_ids_(std::move(eos_token_ids)),
      blocks_(config.num_kv_blocks, config.block_size) {}

void Scheduler::add(Sequence *seq) {
  const std::string who = "request " + std::to_string(seq->seq_id) + ": ";
  const int prompt = seq->num_tokens();
  if (prompt == 0)
    throw Error(who + "prompt is empty");
  if (prompt > config_.max_model_len)
    throw Error(who + "prompt has " + std::to_string(prompt) +
                " tokens, max_model_len is " +
                std::to_string(config_.max_model_len));
  validate(seq->params);
  if (seq->block_size != config_.block_size)
    throw Error(who + "block_size " + std::to_string(seq->block_size) +
                " differs from the scheduler's " +
                std::to_string(config_.block_size));
  if (seq->status != SequenceStatus::Waiting || !seq->block_table.empty())
    throw Error(who + "was already scheduled");
  // KV is written for every token but the last sampled one.
  const int64_t longest =
      std::min<int64_t>(static_cast<int64_t>(prompt) + seq->params.max_tokens,
                        config_.max_model_len);
  const int64_t kv_tokens = std::max<int64_t>(prompt, longest - 1);
  const int64_t blocks =
      (kv_tokens + config_.block_size - 1) / config_.block_size;
  if (blocks > config_.num_kv_blocks)
    throw Error(who + "prompt (" + std::to_string(prompt) +
                " tokens) + max_tokens (" +
                std::to_string(seq->params.max_tokens) + ") needs " +
                std::to_string(blocks) + " KV blocks, the cache has only " +
                std::to_string(config_.num_kv_blocks));
  seq->num_cached_tokens = 0;
  waiting_.push_back(seq);
}

ScheduledBatch Scheduler::schedule() {
  ScheduledBatch batch;
  batch.is_prefill = true;
  int64_t batched_tokens = 0;
  while (!waiting_.empty() &&
         static_cast<int>(running_.size()) < config_.max_num_seqs) {
    Sequence *seq = waiting_.front();
    const BlockManager::PrefixMatch match = blocks_.match_prefix(*seq);
    const int uncached =
        seq->num_tokens() - match.num_hit_blocks * config_.block_size;
    // Stop at the first that does not fit, so admission stays FIFO.
    if (batched_tokens + uncached > config_.max_num_batched_tokens ||
        match.num_blocks_needed > blocks_.num_free_blocks())
      break;
    blocks_.allocate(*seq);
    batched_tokens += seq->num_tokens() - seq->num_cached_tokens;
    seq->status = SequenceStatus::Running;
    waiting_.pop_front();
    running_.push_back(seq);
    batch.seqs.push_back(seq);
  }
  if (!batch.seqs.empty())
    return batch;

  batch.is_prefill = false;
  size_t i = 0;
  while (i < running_.size() &&
         static_cast<int>(batch.seqs.size()) < config_.max_num_seqs) {
    Sequence *seq = running_[i];
    bool preempted_itself = false;
    while (!blocks_.can_append(*seq)) {
      // running_.back() is the most recently admitted; when that is `seq`
      // itself, nothing newer is left to give way.
      Sequence *victim = running_.back();
      running_.pop_back();
      preempt(victim);
      if (victim == seq) {
        preempted_itself = true;
        break;
      }
    }
    if (preempted_itself)
      break;
    blocks_.may_append(*seq);
    batch.seqs.push_back(seq);
    ++i;
  }
  return batch;
}

void Scheduler::preempt(Sequence *seq) {
  // Recompute: drop the KV (its full blocks stay cached until reused, so the
  // re-prefill often hits them) and queue it first among the waiting; its
  // prompt and completion so far are what the next prefill computes.
  blocks_.deallocate(*seq);
  seq->status = SequenceStatus::Waiting;
  ++seq->num_preemptions;
  waiting_.push_front(seq);
}

bool Scheduler::is_eos(int32_t token) const {
  return std::find(eos_token_ids_.begin(), eos_token_ids_.end(), token) !=
         eos_token_ids_.end();
}

std::vector<Sequence *>
Scheduler::postprocess(const std::vector<Sequence *> &seqs,
                       const std::vector<int32_t> &token_ids) {
  if (seqs.size() != token_ids.size())
    throw std::invalid_argument(
        "scheduler: postprocess() got " + std::to_string(token_ids.size()) +
        " tokens for " + std::to_string(seqs.size()) + " sequences");
  std::vector<Sequence *> finished;
  for (size_t i = 0; i < seqs.size(); ++i) {
    Sequence *seq = seqs[i];
    const int32_t token = token_ids[i];
    seq->token_ids.push_back(token);
    if ((!seq->params.ignore_eos && is_eos(token)) ||
        seq->num_completion_tokens() >= seq->params.max_tokens ||
        seq->num_tokens() >= config_.max_model_len) {
      seq->status = SequenceStatus::Finished;
      blocks_.deallocate(*seq);
      finished.push_back(seq);
    }
  }
  if (!finished.empty())
    running_.erase(
        std::remove_if(running_.begin(), running_.end(),
                       [](const Sequence *s) { return s->is_finished(); }),
        running_.end());
  return finished;
}

std::string Scheduler::check_invariants() const {
  if (static_cast<int>(running_.size()) > config_.max_num_seqs)
    return std::to_string(running_.size()) + " sequences running, max " +
           std::to_string(config_.max_num_seqs);
  for (const Sequence *seq : waiting_)
    if (seq->status != SequenceStatus::Waiting || !seq->block_table.empty())
      return "waiting sequence " + std::to_string(seq->seq_id) +
             " is not Waiting or holds blocks";
  std::vector<const Sequence *> holders(running_.begin(), running_.end());
  for (const Sequence *seq : running_) {
    // Between postprocess() and the next may_append() the newest token may
    // not have its block yet.
    const int have = static_cast<int>(seq->block_table.size());
    if (seq->status != SequenceStatus::Running || have < 1 ||
        have > seq->num_blocks() || have + 1 < seq->num_blocks())
      return "running sequence " + std::to_string(seq->seq_id) + " holds " +
             std::to_string(have) + " blocks for " +
             std::to_string(seq->num_tokens()) + " tokens";
  }
  return blocks_.check_invariants(holders);
}

} // namespace engine
